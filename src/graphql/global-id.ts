import { ID_PREFIX, type IdKind } from '../lib/ids.js';

/**
 * Global ids are the /v1 ids: `prod_01J…` is both what REST returns and what `node(id:)`
 * takes, since its prefix already names the type. This maps prefixes to the GraphQL types
 * that are nodes.
 */
const NODE_TYPE_OF: Partial<Record<IdKind, string>> = {
  product: 'Product',
  customer: 'Customer',
  checkout: 'Checkout',
  order: 'Order',
  transaction: 'Transaction',
  subscription: 'Subscription',
  subscriptionItem: 'SubscriptionItem',
  discount: 'Discount',
  license: 'License',
  licenseInstance: 'LicenseInstance',
  webhook: 'WebhookEndpoint',
  event: 'Event',
  delivery: 'WebhookDelivery',
  creditAccount: 'CreditAccount',
  ledgerTransaction: 'CreditTransaction',
  meter: 'Meter',
  split: 'Split',
  affiliate: 'Affiliate',
};

const TYPE_BY_PREFIX = new Map<string, string>(
  (Object.entries(NODE_TYPE_OF) as [IdKind, string][]).map(([kind, type]) => [ID_PREFIX[kind], type]),
);

export const NODE_TYPES: ReadonlySet<string> = new Set(TYPE_BY_PREFIX.values());

const ID_SHAPE = /^([a-z]+)_[0-9A-Z]{26}$/;

/** The type an id names, or '' when it names none (a null node, not an error). */
export function decodeId(id: string): { typename: string; id: string } {
  const prefix = ID_SHAPE.exec(id)?.[1];
  return { typename: (prefix && TYPE_BY_PREFIX.get(prefix)) || '', id };
}
