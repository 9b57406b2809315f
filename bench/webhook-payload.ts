/**
 * What both sides of the delivery measurement send: the same events, so the same body
 * sizes. The payload has the shape and size of a real `checkout.completed` object.
 */
import type { EventForDelivery } from '../src/modules/webhooks/signing.js';

export function benchPayload(i: number): Record<string, unknown> {
  return {
    id: `ch_bench_${i}`,
    object: 'checkout',
    mode: 'test',
    status: 'completed',
    units: 1,
    request_id: `req-${i}`,
    product: { id: 'prod_bench', object: 'product', name: 'Bench app', description: 'A product of the benchmark', price: 1500, currency: 'USD', billing_type: 'onetime', billing_period: 'once', status: 'active', tax_mode: 'exclusive', tax_category: 'saas', default_success_url: null, image_url: null, features: [], mode: 'test', created_at: '2026-11-21T20:00:00.000Z', updated_at: '2026-11-21T20:00:00.000Z' },
    customer: { id: 'cust_bench', object: 'customer', email: `buyer-${i}@example.com`, name: 'Ada Buyer', country: 'US', mode: 'test', created_at: '2026-11-21T20:00:00.000Z', updated_at: '2026-11-21T20:00:00.000Z' },
    order: { id: `ord_bench_${i}`, object: 'order', customer: 'cust_bench', product: 'prod_bench', amount: 1500, currency: 'USD', sub_total: 1500, tax_amount: 0, discount_amount: 0, amount_due: 1500, amount_paid: 1500, status: 'paid', type: 'onetime', mode: 'test', created_at: '2026-11-21T20:00:00.000Z', updated_at: '2026-11-21T20:00:00.000Z' },
    metadata: { cart: `c${i}` },
    success_url: 'https://seller.example/thanks',
    checkout_url: `http://127.0.0.1:8081/checkout/ch_bench_${i}`,
  };
}

export function benchEvent(i: number): EventForDelivery {
  return { id: `evt_bench_${String(i).padStart(7, '0')}`, type: 'checkout.completed', createdAt: new Date(Date.UTC(2026, 10, 21, 20) + i), payload: benchPayload(i) };
}
