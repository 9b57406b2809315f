/**
 * Completed checkouts per second: N concurrent buyers, each looping over one purchase after
 * another, for the service (REST create + hosted page, as a browser pays) and for a
 * hand-written-SQL baseline (one `pg` transaction per purchase, no HTTP, no page).
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { newId } from '../src/lib/ids.js';

export interface PurchaseRun {
  buyers: number;
  /** Purchases completed inside the measured window, per second of that window. */
  purchasesPerSec: number;
  /** Purchases completed in the measured window. */
  measured: number;
  /** Purchases completed in the warm-up and the measured window: what the database must hold. */
  completed: number;
  /** Purchases that did not complete (any non-303, exception), warm-up included. */
  failures: number;
  /** First few failure descriptions, for the error message. */
  failureSamples: string[];
  p50Ms: number;
  p99Ms: number;
}

/** One purchase; resolves when it completed, throws when it did not. */
export type Purchase = (seq: number) => Promise<void>;

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * `buyers` loops, each starting its next purchase as soon as the last one ended. A warm-up
 * phase first (its purchases count for the database check, not for the rate), then the
 * measured phase; a phase ends when every loop has finished its last purchase, and the rate
 * is divided by that real elapsed time.
 */
export async function runBuyers(buyers: number, warmupSec: number, durationSec: number, purchase: Purchase): Promise<PurchaseRun> {
  let seq = 0;
  let completed = 0;
  let failures = 0;
  const failureSamples: string[] = [];
  const phase = async (seconds: number, latencies: number[] | null) => {
    const deadline = performance.now() + seconds * 1000;
    let done = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: buyers }, async () => {
        while (performance.now() < deadline) {
          const t0 = performance.now();
          try {
            await purchase(seq++);
            completed++;
            done++;
            latencies?.push(performance.now() - t0);
          } catch (err) {
            failures++;
            if (failureSamples.length < 5) failureSamples.push(err instanceof Error ? err.message : String(err));
            // A broken target would otherwise spin; a short pause keeps the failure count meaningful.
            await new Promise((r) => setTimeout(r, 10));
          }
        }
      }),
    );
    return { done, elapsedSec: (performance.now() - started) / 1000 };
  };
  await phase(warmupSec, null);
  const latencies: number[] = [];
  const run = await phase(durationSec, latencies);
  latencies.sort((a, b) => a - b);
  return {
    buyers,
    purchasesPerSec: run.done / run.elapsedSec,
    measured: run.done,
    completed,
    failures,
    failureSamples,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

/** The page's hidden input `name` (same lookup as test/support/checkout-page.ts). */
function hidden(html: string, name: string): string {
  const m = new RegExp(`name="${name}"[^>]*value="([^"]*)"`).exec(html) ?? new RegExp(`value="([^"]*)"[^>]*name="${name}"`).exec(html);
  if (!m) throw new Error(`no hidden field ${name} on the checkout page`);
  return m[1]!;
}

/** Total milliseconds spent in each of the service purchase's three requests (successful purchases only). */
export interface StepTimes {
  purchases: number;
  createMs: number;
  pageMs: number;
  payMs: number;
}

export function formatSteps(t: StepTimes): string {
  const avg = (ms: number) => (t.purchases ? ms / t.purchases : 0).toFixed(0);
  return `POST /v1/checkouts ${avg(t.createMs)} ms, GET page ${avg(t.pageMs)} ms, POST page ${avg(t.payMs)} ms (averages over ${t.purchases} purchases)`;
}

/**
 * The service's purchase, as a seller's server and a buyer's browser make it:
 * POST /v1/checkouts, GET the hosted page (anti-forgery cookie + hidden fields), POST the
 * form with a test card; success is the 303 to the success page.
 */
export function servicePurchase(testUrl: string, apiKey: string, productId: string, runTag: string, steps: StepTimes): Purchase {
  return async (seq) => {
    const t0 = performance.now();
    const created = await fetch(`${testUrl}/v1/checkouts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ product_id: productId }),
    });
    const body = (await created.json()) as { checkout_url?: string };
    if (created.status !== 200 || !body.checkout_url) throw new Error(`POST /v1/checkouts answered ${created.status}: ${JSON.stringify(body).slice(0, 300)}`);
    const url = body.checkout_url;
    const t1 = performance.now();

    const page = await fetch(url, { redirect: 'manual' });
    const html = await page.text();
    if (page.status !== 200) throw new Error(`GET ${url} answered ${page.status}`);
    const cookie = page.headers.get('set-cookie')?.split(';')[0];
    if (!cookie) throw new Error(`GET ${url} set no cookie`);

    const t2 = performance.now();
    const form = new URLSearchParams({
      csrf: hidden(html, 'csrf'),
      expected_total: hidden(html, 'expected_total'),
      email: `buyer-${runTag}-${seq}@bench.example`,
      name: 'Bench Buyer',
      country: 'US',
      card_number: '4242424242424242',
      card_expiry: '12/34',
      card_cvc: '123',
    });
    const paid = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, 'sec-fetch-site': 'same-origin' },
      body: form,
    });
    const answer = await paid.text();
    if (paid.status !== 303) throw new Error(`POST ${url} answered ${paid.status}: ${answer.replace(/\s+/g, ' ').slice(0, 300)}`);
    steps.purchases++;
    steps.createMs += t1 - t0;
    steps.pageMs += t2 - t1;
    steps.payMs += performance.now() - t2;
  };
}

/** Everything the baseline needs to know of the product; read once, not per purchase. */
interface BaselineProduct {
  id: string;
  storeId: string;
  name: string;
  price: number;
  currency: string;
  activationLimit: number | null;
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
function licenseKey(): string {
  const chars = Array.from(randomBytes(25), (b) => BASE32[b & 31]);
  return [0, 5, 10, 15, 20].map((i) => chars.slice(i, i + 5).join('')).join('-');
}

/**
 * The baseline purchase: the rows the service's purchase writes, with hand-written SQL on a
 * `pg` Pool. The checkout row is inserted on its own first (what POST /v1/checkouts does),
 * then one transaction locks it and writes customer (ON CONFLICT on store+mode+email),
 * transaction, order, license, the completed checkout and the checkout.completed event.
 * Leaner than the service on purpose: no HTTP, no page, no anti-forgery token, no separate
 * "processing" step around the charge, no re-read of the product per purchase.
 */
export async function baselinePurchase(pool: pg.Pool, productId: string, runTag: string): Promise<Purchase> {
  const { rows } = await pool.query<BaselineProduct>(
    `SELECT p.id, p."storeId", p.name, p.price, p.currency,
            (SELECT f."licenseActivationLimit" FROM "ProductFeature" f WHERE f."productId" = p.id AND f.type = 'licenseKey' LIMIT 1) AS "activationLimit"
       FROM "Product" p WHERE p.id = $1`,
    [productId],
  );
  const product = rows[0];
  if (!product) throw new Error(`baseline: product ${productId} not found`);

  return async (seq) => {
    const now = new Date();
    const checkoutId = newId('checkout');
    await pool.query(
      `INSERT INTO "Checkout" (id, "storeId", mode, "productId", units, metadata, "extraFields", "createdAt", "updatedAt")
       VALUES ($1, $2, 'test', $3, 1, '{}', '[]', $4, $4)`,
      [checkoutId, product.storeId, product.id, now],
    );

    const email = `baseline-${runTag}-${seq}@bench.example`;
    const buyer = { email, name: 'Bench Buyer', country: 'US', tax_id: null };
    const quote = { currency: product.currency, sub_total: product.price, discount_amount: 0, tax_amount: 0, tax_country: 'US', amount_due: product.price };
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const locked = await client.query<{ status: string; units: number }>('SELECT status, units FROM "Checkout" WHERE id = $1 FOR UPDATE', [checkoutId]);
      if (locked.rows[0]?.status !== 'pending') throw new Error(`baseline: checkout ${checkoutId} is not pending`);
      const customer = await client.query<{ id: string; createdAt: Date }>(
        `INSERT INTO "Customer" (id, "storeId", mode, email, name, country, "createdAt", "updatedAt")
         VALUES ($1, $2, 'test', $3, $4, $5, $6, $6)
         ON CONFLICT ("storeId", mode, email) DO UPDATE SET name = COALESCE("Customer".name, EXCLUDED.name)
         RETURNING id, "createdAt"`,
        [newId('customer'), product.storeId, email, buyer.name, buyer.country, now],
      );
      const customerId = customer.rows[0]!.id;
      const orderId = newId('order');
      const transactionId = newId('transaction');
      await client.query(
        `INSERT INTO "Transaction" (id, "storeId", mode, "customerId", "orderId", "checkoutId", amount, "amountPaid", "discountAmount", "taxAmount",
                                    "taxCountry", currency, type, status, description, "processorReference", "createdAt")
         VALUES ($1, $2, 'test', $3, $4, $5, $6, $6, 0, 0, 'US', $7, 'payment', 'paid', $8, $9, $10)`,
        [transactionId, product.storeId, customerId, orderId, checkoutId, product.price, product.currency, `Payment for ${product.name}`, `sim_${randomBytes(18).toString('base64url')}`, now],
      );
      await client.query(
        `INSERT INTO "Order" (id, "storeId", mode, "customerId", "productId", "transactionId", status, type, units, currency,
                              "subTotal", "discountAmount", "taxAmount", "amountDue", "amountPaid", "createdAt", "updatedAt")
         VALUES ($1, $2, 'test', $3, $4, $5, 'paid', 'onetime', 1, $6, $7, 0, 0, $7, $7, $8, $8)`,
        [orderId, product.storeId, customerId, product.id, transactionId, product.currency, product.price, now],
      );
      const licenseId = newId('license');
      const key = licenseKey();
      await client.query(
        `INSERT INTO "License" (id, "storeId", mode, "productId", "customerId", "orderId", key, status, "activationLimit", "activationCount", "createdAt", "updatedAt")
         VALUES ($1, $2, 'test', $3, $4, $5, $6, 'inactive', $7, 0, $8, $8)`,
        [licenseId, product.storeId, product.id, customerId, orderId, key, product.activationLimit, now],
      );
      await client.query(
        `UPDATE "Checkout" SET status = 'completed', "customerId" = $2, "orderId" = $3, "completedAt" = $4, "updatedAt" = $4,
                               "paymentAttempts" = "paymentAttempts" + 1, buyer = $5, quote = $6
          WHERE id = $1`,
        [checkoutId, customerId, orderId, now, JSON.stringify(buyer), JSON.stringify(quote)],
      );
      // The event's payload is the completed checkout as the API renders it; built by hand here, of a similar size.
      const payload = {
        id: checkoutId,
        mode: 'test',
        object: 'checkout',
        status: 'completed',
        product: { id: product.id, name: product.name, price: product.price, currency: product.currency, billing_type: 'onetime', billing_period: 'once', status: 'active' },
        units: 1,
        order: { id: orderId, customer: customerId, product: product.id, transaction: transactionId, amount: product.price, currency: product.currency, status: 'paid', type: 'onetime', sub_total: product.price, tax_amount: 0, amount_due: product.price, amount_paid: product.price, created_at: now.toISOString() },
        customer: { id: customerId, object: 'customer', email, name: buyer.name, country: buyer.country, created_at: customer.rows[0]!.createdAt.toISOString() },
        custom_fields: [],
        checkout_url: `/checkout/${checkoutId}`,
        success_url: null,
        license_keys: [{ id: licenseId, key, status: 'inactive', activation: 0, activation_limit: product.activationLimit, created_at: now.toISOString() }],
        metadata: {},
        created_at: now.toISOString(),
      };
      await client.query(
        `INSERT INTO "Event" (id, "storeId", mode, type, payload, "createdAt") VALUES ($1, $2, 'test', 'checkout.completed', $3, $4)`,
        [newId('event'), product.storeId, JSON.stringify(payload), now],
      );
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  };
}

export interface PurchaseCounts {
  checkouts: number;
  orders: number;
  transactions: number;
  licenses: number;
  events: number;
}

/** What the database holds for purchases of `productId`: each completed purchase is one of each. */
export async function countPurchases(pool: pg.Pool, productId: string): Promise<PurchaseCounts> {
  const { rows } = await pool.query<Record<keyof PurchaseCounts, string>>(
    `SELECT
       (SELECT count(*) FROM "Checkout" WHERE "productId" = $1 AND status = 'completed') AS checkouts,
       (SELECT count(*) FROM "Order" WHERE "productId" = $1 AND status = 'paid') AS orders,
       (SELECT count(*) FROM "Transaction" t JOIN "Checkout" c ON c.id = t."checkoutId" WHERE c."productId" = $1 AND t.status = 'paid') AS transactions,
       (SELECT count(*) FROM "License" WHERE "productId" = $1) AS licenses,
       (SELECT count(*) FROM "Event" WHERE type = 'checkout.completed' AND payload->'product'->>'id' = $1) AS events`,
    [productId],
  );
  const r = rows[0]!;
  return { checkouts: Number(r.checkouts), orders: Number(r.orders), transactions: Number(r.transactions), licenses: Number(r.licenses), events: Number(r.events) };
}

/** null when every count equals the number of successful purchases; otherwise what differs. */
export function purchaseMismatch(counts: PurchaseCounts, completed: number): string | null {
  const wrong = Object.entries(counts).filter(([, n]) => n !== completed);
  if (!wrong.length) return null;
  return `${completed} purchases answered as completed, but the database holds ${wrong.map(([k, n]) => `${n} ${k}`).join(', ')}`;
}
