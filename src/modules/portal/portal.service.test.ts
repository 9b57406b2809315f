import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db } from '../../db/tenant.js';
import { newId } from '../../lib/ids.js';
import { openTestDatabase, type TestDatabase } from '../../../test/support/database.js';
import { otherContext, perform, storeContext, type TestContext } from '../../../test/support/context.js';
import { createCustomerOp } from '../customers/customers.operations.js';
import { createProductOp } from '../products/products.operations.js';
import { createPortalLinkOp } from './portal.operations.js';
import { PORTAL_LINK_LIFETIME_MS, portalLinkValid, portalView } from './portal.service.js';

describe('customer portal', () => {
  let tdb: TestDatabase;
  let ctx: TestContext;
  let customerId: string;

  beforeAll(async () => {
    tdb = await openTestDatabase();
    ctx = await storeContext(tdb);
    customerId = (await perform(ctx, createCustomerOp, { email: 'buyer@example.com' })).id;
  });
  afterAll(() => tdb?.close());

  const partsOf = (link: string) => {
    const url = new URL(link);
    return { path: url.pathname, expires: url.searchParams.get('expires')!, signature: url.searchParams.get('signature')! };
  };

  it('signs a link for this environment that expires after an hour', async () => {
    const { customer_portal_link } = await perform(ctx, createPortalLinkOp, { customer_id: customerId });
    expect(customer_portal_link.startsWith(`${ctx.baseUrl}/portal/${customerId}?`)).toBe(true);
    const { expires, signature } = partsOf(customer_portal_link);
    expect(Number(expires)).toBe(ctx.clock.now().getTime() + PORTAL_LINK_LIFETIME_MS);
    expect(await portalLinkValid(ctx.data, 'test', ctx.clock.now(), customerId, expires, signature)).toBe(true);
    expect(await portalLinkValid(ctx.data, 'prod', ctx.clock.now(), customerId, expires, signature)).toBe(false);
    expect(await portalLinkValid(ctx.data, 'test', ctx.clock.now(), 'cust_other', expires, signature)).toBe(false);
    expect(await portalLinkValid(ctx.data, 'test', ctx.clock.now(), customerId, String(Number(expires) + 1), signature)).toBe(false);
    expect(await portalLinkValid(ctx.data, 'test', new Date(Number(expires)), customerId, expires, signature)).toBe(false);
  });

  it('refuses a customer of another store or environment, and a missing customer_id', async () => {
    for (const other of [await storeContext(tdb), otherContext(ctx, { mode: 'prod' })]) {
      await expect(perform(other, createPortalLinkOp, { customer_id: customerId })).rejects.toMatchObject({ code: 'not_found' });
      expect(await portalView(other, customerId)).toBeNull();
    }
    await expect(perform(ctx, createPortalLinkOp, {})).rejects.toMatchObject({ code: 'validation_failed', issues: [{ path: ['customer_id'] }] });
  });

  it('reads what the page shows: subscriptions, orders and licenses with product names, newest first', async () => {
    const product = await perform(ctx, createProductOp, { name: 'Desktop App', price: 3000, currency: 'EUR', billing_type: 'onetime' });
    const t = db(ctx);
    const orders = [newId('order'), newId('order')];
    for (const id of orders) {
      await t.order.create({ data: { id, customerId, productId: product.id, status: 'paid', type: 'onetime', currency: 'EUR', subTotal: 3000n, amountDue: 3000n, amountPaid: 3000n } });
    }
    const license = newId('license');
    await t.license.create({ data: { id: license, productId: product.id, customerId, orderId: orders[0], key: `KEY-${license}` } });
    const view = await portalView(ctx, customerId);
    expect(view?.email).toBe('buyer@example.com');
    expect(view?.orders.map((o) => [o.id, o.product.name, o.amountPaid])).toEqual([...orders].reverse().map((id) => [id, 'Desktop App', 3000n]));
    expect(view?.licenses.map((l) => [l.id, l.product.name])).toEqual([[license, 'Desktop App']]);
    expect(view?.subscriptions).toEqual([]);
  });
});
