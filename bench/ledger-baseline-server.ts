/**
 * The ledger baseline: a debit of a customer's credit account written by hand with `pg`,
 * keeping the invariants the service keeps, over plain HTTP (no framework, no auth): the
 * idempotency key claimed first (a retry finds the first transaction), both accounts (the
 * customer's and its store counter-account) locked in id order, the debit refused whole below
 * zero, two entries with their balances after, both balances moved, the event recorded, in
 * one transaction. Run by bench/ledger.ts with DATABASE_URL and PORT.
 */
import http from 'node:http';
import pg from 'pg';
import { newId } from '../src/lib/ids.js';
import { shardOf } from '../src/modules/credits/credits.service.js';

const url = process.env.DATABASE_URL;
const port = Number(process.env.PORT);
if (!url || !Number.isInteger(port)) {
  console.error('ledger-baseline-server needs DATABASE_URL and PORT');
  process.exit(2);
}
const pool = new pg.Pool({ connectionString: url, max: 20 });
const DEBIT = /^\/v1\/customer-credits\/accounts\/([^/]+)\/debit$/;

function send(res: http.ServerResponse, status: number, body: unknown) {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

async function debit(accountId: string, input: { amount: string; reference: string; idempotency_key: string }) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const account = (await client.query(`SELECT "storeId", "mode", "unitLabel" FROM "CreditAccount" WHERE "id" = $1 AND "owner" = 'customer'`, [accountId])).rows[0];
    if (!account) throw Object.assign(new Error('not found'), { status: 404 });
    const txn = newId('ledgerTransaction');
    const claimed = await client.query(
      `INSERT INTO "LedgerTransaction" ("id","storeId","mode","reference","idempotencyKey","requestHash","createdAt") VALUES ($1,$2,$3,$4,$5,$6,now())
       ON CONFLICT ("storeId","mode","idempotencyKey") DO NOTHING`,
      [txn, account.storeId, account.mode, input.reference, input.idempotency_key, `${accountId}:${input.amount}`],
    );
    if (claimed.rowCount === 0) {
      const first = (await client.query(`SELECT * FROM "LedgerTransaction" WHERE "storeId" = $1 AND "mode" = $2 AND "idempotencyKey" = $3`, [account.storeId, account.mode, input.idempotency_key])).rows[0];
      await client.query('COMMIT');
      return { status: 201, body: first };
    }
    // The store counter-account of the shard the service uses for this account.
    const system = (await client.query(`SELECT "id" FROM "CreditAccount" WHERE "storeId" = $1 AND "mode" = $2 AND "systemUnit" = $3`, [account.storeId, account.mode, `${account.unitLabel}#${shardOf(accountId)}`])).rows[0];
    const locked = (await client.query(`SELECT "id", "balance", "version" FROM "CreditAccount" WHERE "id" = ANY($1) ORDER BY "id" FOR UPDATE`, [[accountId, system.id]])).rows as { id: string; balance: string; version: number }[];
    const amount = BigInt(input.amount);
    const mine = locked.find((a) => a.id === accountId)!;
    const theirs = locked.find((a) => a.id === system.id)!;
    const after = BigInt(mine.balance) - amount;
    if (after < 0n) {
      await client.query('ROLLBACK');
      return { status: 409, body: { error: { type: 'invalid_request_error', code: 'insufficient_balance', message: 'insufficient balance', request_id: txn } } };
    }
    const systemAfter = BigInt(theirs.balance) + amount;
    await client.query(
      `INSERT INTO "LedgerEntry" ("id","storeId","mode","transactionId","accountId","side","amount","balanceAfter","createdAt")
       VALUES ($1,$3,$4,$2,$5,'credit',$7,$8,now()), ($9,$3,$4,$2,$6,'debit',$7,$10,now())`,
      [newId('ledgerEntry'), txn, account.storeId, account.mode, system.id, accountId, input.amount, systemAfter.toString(), newId('ledgerEntry'), after.toString()],
    );
    await client.query(
      `UPDATE "CreditAccount" a SET "balance" = v.balance, "version" = a."version" + 1, "updatedAt" = now() FROM (VALUES ($1, $2::bigint), ($3, $4::bigint)) v(id, balance) WHERE a."id" = v.id`,
      [accountId, after.toString(), system.id, systemAfter.toString()],
    );
    await client.query(`INSERT INTO "Event" ("id","storeId","mode","type","payload","createdAt") VALUES ($1,$2,$3,'credits.consumed',$4,now())`, [
      newId('event'),
      account.storeId,
      account.mode,
      JSON.stringify({ id: txn, account_id: accountId, amount_minor_units: input.amount, balance_after_minor_units: after.toString(), reference: input.reference }),
    ]);
    await client.query('COMMIT');
    return { status: 201, body: { id: txn, reference: input.reference, idempotency_key: input.idempotency_key, entries: [] } };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
  if (req.method === 'GET' && req.url === '/healthz') return send(res, 200, { status: 'ok' });
  const match = req.method === 'POST' ? DEBIT.exec(req.url ?? '') : null;
  if (!match?.[1]) return send(res, 404, { error: 'not_found' });
  let raw = '';
  for await (const chunk of req) raw += chunk;
  const out = await debit(decodeURIComponent(match[1]), JSON.parse(raw));
  send(res, out.status, out.body);
}

const server = http.createServer((req, res) => {
  handle(req, res).catch((err: { status?: number }) => {
    if (!res.headersSent) send(res, err.status ?? 500, { error: 'failed' });
  });
});
server.listen(port, '127.0.0.1');
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.end().then(() => process.exit(0));
});
