import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/**
 * The same cryptographic bytes ulid's own PRNG reads, taken from a pool: ulid asks for one
 * byte per character, and a system call per byte was a measurable share of a posting's CPU.
 */
const pool = Buffer.alloc(4096);
let next = pool.length;
export function pooledRandom(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]! / 256;
}

const ulid = monotonicFactory(pooledRandom);

/** Type prefixes of every identifier the service issues; the body is a ULID, so ids sort by creation time. */
export const ID_PREFIX = {
  store: 'sto',
  apiKey: 'key',
  product: 'prod',
  customField: 'cf',
  feature: 'feat',
  usagePrice: 'up',
  customer: 'cust',
  checkout: 'ch',
  order: 'ord',
  transaction: 'txn',
  subscription: 'sub',
  subscriptionItem: 'sitem',
  discount: 'disc',
  license: 'lic',
  licenseInstance: 'lici',
  creditAccount: 'cca',
  ledgerTransaction: 'cct',
  ledgerEntry: 'cce',
  meter: 'mtr',
  usageEvent: 'uev',
  split: 'spl',
  splitRecipient: 'splr',
  splitAllocation: 'spla',
  affiliateProgram: 'aprg',
  affiliateInvite: 'afi',
  affiliate: 'aff',
  affiliateCommission: 'afc',
  webhook: 'wh',
  event: 'evt',
  job: 'job',
  delivery: 'dlv',
  attempt: 'att',
  refund: 'ref',
  dispute: 'dsp',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${ulid()}`;
}
