import express, { type Request, type Response, type Router } from 'express';
import type { RequestContext } from '../context.js';
import { AppError } from '../lib/errors.js';
import { serviceSecret } from '../lib/service-secret.js';
import type { ListenerEnv } from '../rest/auth.js';
import { quoteCheckout, type Quote } from '../modules/checkouts/checkout-quote.js';
import { payCheckout } from '../modules/checkouts/checkout-payment.js';
import { checkoutStatus, findCheckoutForPage, findPayableCheckoutForPage, openCheckoutForProduct, type PayableCheckout } from '../modules/checkouts/checkouts.service.js';
import { checkoutFields } from '../modules/checkouts/checkouts.serializer.js';
import type { FieldValues } from '../modules/checkouts/checkout-fields.js';
import { successRedirectUrl } from '../modules/checkouts/success-redirect.js';
import { normalizeTaxId } from '../modules/tax/tax.js';
import { serializeLicense } from '../modules/licenses/licenses.serializer.js';
import { COUNTRIES, isCountryCode } from './countries.js';
import { csrfNonce, csrfToken, csrfValid } from './csrf.js';
import { renderInlineMarkdown } from './markdown.js';
import { formatMoney, parseMajorAmount, toDecimalString } from './money.js';
import { sendMessage, sendPage } from './render.js';

const CSRF_SECRET = 'checkout_form_key';

interface FormState {
  email: string;
  name: string;
  country: string;
  tax_id: string;
  amount: string;
  fields: FieldValues;
}

const CADENCE: Record<string, string> = {
  'every-day': 'daily',
  'every-month': 'monthly',
  'every-three-months': 'every three months',
  'every-six-months': 'every six months',
  'every-year': 'yearly',
};

function pageContext(env: ListenerEnv, res: Response, storeId: string): RequestContext {
  return { db: env.db, storeId, mode: env.mode, clock: env.clock, traceId: res.locals.traceId as string, source: 'page', baseUrl: env.baseUrl, caches: env.caches };
}

function taxLabel(q: Quote): string {
  if (!q.tax_country) return 'Tax (choose your country)';
  if (q.reverse_charge) return 'Tax (reverse charge)';
  const pct = `${Math.floor(q.tax_rate_bp / 100)}${q.tax_rate_bp % 100 ? '.' + String(q.tax_rate_bp % 100).padStart(2, '0').replace(/0$/, '') : ''}%`;
  return q.tax_rate_bp ? `Tax (${q.tax_country} ${pct}${q.tax_mode === 'inclusive' ? ', included' : ''})` : `Tax (${q.tax_country})`;
}

function quoteView(q: Quote) {
  const m = (v: number) => formatMoney(v, q.currency);
  return {
    unit: m(q.unit_price),
    subTotal: m(q.sub_total),
    discount: m(q.discount_amount),
    tax: m(q.tax_amount),
    total: m(q.amount_due),
  };
}

function quoteFor(c: PayableCheckout, form: { country: string; tax_id: string; amount: string }): Quote {
  return quoteCheckout({
    product: c.product,
    units: c.units,
    customPrice: c.customPrice,
    chosenPrice: form.amount ? parseMajorAmount(form.amount, c.product.currency) : null,
    discount: c.discount,
    country: isCountryCode(form.country) ? form.country : null,
    taxId: normalizeTaxId(form.tax_id),
  });
}

function initialForm(c: PayableCheckout): FormState {
  const buyer = (c.buyer ?? {}) as Partial<{ email: string; name: string; country: string; tax_id: string }>;
  const suggested = c.product.payWhatYouWant ? (c.product.suggestedPrice ?? c.product.price) : null;
  return {
    email: c.customer?.email ?? buyer.email ?? c.customerEmail ?? '',
    name: buyer.name ?? c.customer?.name ?? '',
    country: buyer.country ?? c.customer?.country ?? '',
    tax_id: buyer.tax_id ?? '',
    amount: suggested !== null ? toDecimalString(suggested, c.product.currency) : '',
    fields: (c.customFields ?? {}) as FieldValues,
  };
}

async function renderCheckout(
  req: Request,
  res: Response,
  env: ListenerEnv,
  c: PayableCheckout,
  status: number,
  form: FormState,
  messages: { error?: string; fieldErrors?: string[]; notice?: string } = {},
) {
  const secret = await serviceSecret(env.db, CSRF_SECRET);
  const nonce = csrfNonce(req, res, env.baseUrl.startsWith('https:'));
  const quote = quoteFor(c, form);
  sendPage(res, status, 'checkout', `Checkout: ${c.product.name}`, {
    testMode: c.mode === 'test',
    product: {
      name: c.product.name,
      description: c.product.description,
      image: c.product.imageUrls[0] ?? null,
      cadence: c.product.billingType === 'recurring' ? (CADENCE[c.product.billingPeriod] ?? `every ${c.product.recurringIntervalCount} ${c.product.recurringInterval}(s)`) : null,
    },
    quote,
    money: { ...quoteView(quote), minimum: formatMoney(c.product.price, c.product.currency) },
    taxLabel: taxLabel(quote),
    discount: c.discount ? { code: c.discount.code } : null,
    payWhatYouWant: c.product.payWhatYouWant && c.customPrice === null && quote.trial_days === 0,
    fields: checkoutFields(c).map((f) => ({
      ...f,
      labelHtml: f.type === 'checkbox' ? renderInlineMarkdown(f.checkboxLabel ?? f.label) : '',
      value: form.fields[f.key] ?? (f.type === 'checkbox' ? false : ''),
    })),
    form,
    emailLocked: Boolean(c.customer),
    countries: COUNTRIES,
    csrf: csrfToken(secret, c.id, nonce),
    action: `/checkout/${c.id}`,
    quoteUrl: `/checkout/${c.id}/quote`,
    error: messages.error ?? null,
    fieldErrors: messages.fieldErrors ?? [],
    notice: messages.notice ?? null,
  });
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

function formFromBody(body: Record<string, unknown>, c: PayableCheckout): FormState {
  const fields: FieldValues = {};
  for (const f of checkoutFields(c)) {
    const v = body[`cf_${f.key}`];
    fields[f.key] = f.type === 'checkbox' ? v === 'on' : str(v);
  }
  return { email: str(body.email), name: str(body.name), country: str(body.country), tax_id: str(body.tax_id), amount: str(body.amount), fields };
}

/** The form as the core's pay input; empty optional fields are left out so they read as absent. */
function payInput(body: Record<string, unknown>, form: FormState, c: PayableCheckout) {
  const expected = Number(str(body.expected_total));
  const amount = form.amount ? parseMajorAmount(form.amount, c.product.currency) : undefined;
  return {
    email: form.email,
    name: form.name,
    country: form.country,
    ...(form.tax_id.trim() ? { tax_id: form.tax_id } : {}),
    card_number: str(body.card_number),
    card_expiry: str(body.card_expiry),
    card_cvc: str(body.card_cvc),
    ...(amount !== undefined ? { amount: amount ?? -1 } : {}),
    custom_fields: form.fields,
    ...(Number.isSafeInteger(expected) ? { expected_total: expected } : {}),
  };
}

const FIELD_LABELS: Record<string, string> = {
  email: 'E-mail',
  name: 'Full name',
  country: 'Country',
  tax_id: 'Tax id',
  card_number: 'Card number',
  card_expiry: 'Expiry',
  card_cvc: 'CVC',
  amount: 'Your price',
};

function fieldMessages(err: AppError): string[] {
  return err.issues.map((i) => {
    const head = String(i.path[0] ?? '');
    if (head === 'custom_fields') return i.message;
    return FIELD_LABELS[head] ? `${FIELD_LABELS[head]}: ${i.message}` : i.message;
  });
}

/** Hosted checkout pages of one listener (its environment), served without an API key. */
export function checkoutPages(env: ListenerEnv): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: '32kb', parameterLimit: 100 });

  router.get('/buy/:productId', async (req, res) => {
    const ctx = { db: env.db, mode: env.mode, clock: env.clock, baseUrl: env.baseUrl, traceId: res.locals.traceId as string, caches: env.caches };
    try {
      const c = await openCheckoutForProduct(ctx, req.params.productId);
      if (!c) return sendMessage(res, 404, 'Product not found', 'This product does not exist in this environment.');
      res.redirect(303, `/checkout/${c.id}`);
    } catch (err) {
      if (err instanceof AppError && err.code !== 'internal') return sendMessage(res, err.code === 'unavailable' ? 503 : 400, 'This product cannot be bought right now', err.message);
      throw err;
    }
  });

  router.get('/checkout/:id', async (req, res) => {
    const c = await findPayableCheckoutForPage(env.db, env.mode, req.params.id);
    if (!c) return sendMessage(res, 404, 'Checkout not found', 'This checkout does not exist in this environment.');
    const status = checkoutStatus(c, env.clock.now());
    if (status === 'completed') return sendMessage(res, 200, 'Already paid', 'This checkout has been paid.', { href: `/checkout/${c.id}/receipt`, label: 'See the receipt' });
    if (status === 'expired') return sendMessage(res, 410, 'Checkout expired', 'This checkout has expired. Start again from the seller\'s page.');
    await renderCheckout(req, res, env, c, 200, initialForm(c));
  });

  // Tax and total for the country the buyer picked; the page's script calls it.
  router.get('/checkout/:id/quote', async (req, res) => {
    const c = await findPayableCheckoutForPage(env.db, env.mode, req.params.id);
    if (!c) throw new AppError('not_found', 'Checkout not found');
    const q = quoteFor(c, { country: str(req.query.country), tax_id: str(req.query.tax_id), amount: str(req.query.amount) });
    const view = quoteView(q);
    res.set('cache-control', 'no-store').json({
      ...view,
      amount_due: q.amount_due,
      tax_label: taxLabel(q),
      pay_label: q.trial_days > 0 ? 'Start trial' : `Pay ${view.total}`,
    });
  });

  router.post('/checkout/:id', form, async (req, res) => {
    const c = await findPayableCheckoutForPage(env.db, env.mode, req.params.id);
    if (!c) return sendMessage(res, 404, 'Checkout not found', 'This checkout does not exist in this environment.');
    const body = (req.body ?? {}) as Record<string, unknown>;
    const secret = await serviceSecret(env.db, CSRF_SECRET);
    if (!csrfValid(req, secret, c.id, body.csrf)) {
      return sendMessage(res, 403, 'Please try again', 'This form was sent from another site or has expired. Nothing was charged.', { href: `/checkout/${c.id}`, label: 'Reload the checkout' });
    }
    const state = formFromBody(body, c);
    const ctx = pageContext(env, res, c.storeId);
    try {
      const outcome = await payCheckout(ctx, c.id, payInput(body, state, c));
      if (outcome.kind === 'completed') return res.redirect(303, await successRedirectUrl(env.db, outcome.checkout, env.baseUrl));
      if (outcome.kind === 'total_changed') {
        return renderCheckout(req, res, env, outcome.checkout, 409, state, { notice: `The total is now ${formatMoney(outcome.quote.amount_due, outcome.quote.currency)} for the details you entered. Review it and pay again; nothing was charged.` });
      }
      return renderCheckout(req, res, env, outcome.checkout, 402, state, { error: outcome.message });
    } catch (err) {
      if (!(err instanceof AppError) || err.code === 'internal') throw err;
      const fresh = (await findPayableCheckoutForPage(env.db, env.mode, c.id)) ?? c;
      if (checkoutStatus(fresh, env.clock.now()) === 'completed') return res.redirect(303, await successRedirectUrl(env.db, fresh, env.baseUrl));
      const status = err.code === 'validation_failed' || err.code === 'bad_request' ? 400 : err.code === 'conflict' ? 409 : err.code === 'unavailable' ? 503 : 400;
      const issues = fieldMessages(err);
      return renderCheckout(req, res, env, fresh, status, state, {
        error: issues.length ? 'Please check these fields:' : err.message,
        fieldErrors: issues,
      });
    }
  });

  router.get('/checkout/:id/receipt', async (req, res) => {
    const c = await findCheckoutForPage(env.db, env.mode, req.params.id);
    if (!c || c.status !== 'completed' || !c.order) return sendMessage(res, 404, 'Receipt not found', 'There is no paid order for this checkout.');
    const now = env.clock.now();
    const o = c.order;
    const m = (v: number) => formatMoney(v, o.currency);
    sendPage(res, 200, 'receipt', 'Receipt', {
      testMode: c.mode === 'test',
      customerName: c.customer?.name ?? c.customer?.email ?? '',
      email: c.customer?.email ?? '',
      productName: c.product.name,
      order: { id: o.id, discount_amount: o.discountAmount },
      money: { subTotal: m(o.subTotal), discount: m(o.discountAmount), tax: m(o.taxAmount), paid: m(o.amountPaid) },
      subscription: c.subscription
        ? { id: c.subscription.id, status: c.subscription.status, periodEnd: c.subscription.currentPeriodEndDate?.toISOString().slice(0, 10) ?? '' }
        : null,
      licenses: c.order.licenses.map((l) => serializeLicense(l, now, null)),
    });
  });

  return router;
}
