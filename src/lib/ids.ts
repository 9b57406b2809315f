import { monotonicFactory } from 'ulid';

const ulid = monotonicFactory();

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
