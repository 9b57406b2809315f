/**
 * The reference the service is measured against: the least a Node server can do to answer
 * GET /v1/products/<id> from PostgreSQL — one `pg` query on a pool of the same size as the
 * service's (20), the row as JSON, no framework, no auth, no logging. Run as a child
 * process by bench/run.ts with DATABASE_URL, HOST and PORT.
 */
import http from 'node:http';
import pg from 'pg';

const url = process.env.DATABASE_URL;
const port = Number(process.env.PORT);
if (!url || !Number.isInteger(port)) {
  console.error('baseline-server needs DATABASE_URL and PORT');
  process.exit(2);
}

const pool = new pg.Pool({ connectionString: url, max: 20 });
const PRODUCT_PATH = /^\/v1\/products\/([^/?]+)$/;

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  if (req.method === 'GET' && req.url === '/healthz') {
    await pool.query('SELECT 1');
    return send(res, 200, { status: 'ok' });
  }
  const match = req.method === 'GET' ? PRODUCT_PATH.exec(req.url ?? '') : null;
  if (!match?.[1]) return send(res, 404, { error: 'not_found' });
  const { rows } = await pool.query('SELECT * FROM "Product" WHERE id = $1', [decodeURIComponent(match[1])]);
  if (!rows[0]) return send(res, 404, { error: 'not_found' });
  send(res, 200, rows[0]);
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((err: unknown) => {
    console.error(err);
    if (!res.headersSent) send(res, 500, { error: 'internal' });
  });
});

server.listen(port, process.env.HOST || '127.0.0.1');

async function stop(): Promise<void> {
  server.close();
  server.closeAllConnections();
  await pool.end();
  process.exit(0);
}
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
