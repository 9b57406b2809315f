const { PGlite } = await import('@electric-sql/pglite');
const opts = JSON.parse(process.argv[3] || '{}');
const t1 = performance.now();
const db = new PGlite({ dataDir: process.argv[2], ...opts });
await db.waitReady;
const t2 = performance.now();
console.log(JSON.stringify(opts), 'ready', Math.round(t2 - t1));
await db.close();
