/**
 * The local webhook receiver of the delivery measurement: answers every POST 200 at once
 * and counts them; `GET /count` tells how many arrived, `GET /healthz` that it is up. Its
 * own process, so neither side of the comparison shares an event loop with it. PORT, HOST.
 */
import http from 'node:http';

const port = Number(process.env.PORT);
if (!Number.isInteger(port)) {
  console.error('webhook-receiver needs PORT');
  process.exit(2);
}

let received = 0;
const server = http.createServer((req, res) => {
  if (req.method === 'POST') {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 }).end('ok');
    });
    return;
  }
  const body = req.url === '/count' ? String(received) : 'ok';
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) }).end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(port, process.env.HOST || '127.0.0.1');

process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
});
