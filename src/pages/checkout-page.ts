import express, { type Request, type Response, type Router } from 'express';
import type { RequestContext, ServiceEnv } from '../context.js';
import { AppError, httpStatusOf, invalidField } from '../lib/errors.js';
import { serviceSecret } from '../lib/service-secret.js';
import { quotaHeaders, RateLimitError, type Limiter } from '../lib/rate-limit.js';
import { parseInput } from '../lib/validation.js';
import { chosenPriceRule, quoteCheckout, type Quote } from '../modules/checkouts/checkout-quote.js';
import { payCheckout } from '../modules/checkouts/checkout-payment.js';
import {
  checkoutPageContext,
  checkoutStatus,
  findCheckout,
  findPayableCheckoutOrThrow,
  openCheckoutForProduct,
  type PayableCheckout,
} from '../modules/checkouts/checkouts.service.js';
import { payCheckoutSchema } from '../modules/checkouts/checkouts.schemas.js';
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
import { referralCodeOf } from './referral-cookie.js';

const CSRF_SECRET = 'checkout_form_key';

interface FormState {
  email: string;
  name: string;
  country: string;
  tax_id: string;
  amount: string;
  fields: FieldValues;
}

export const CADENCE: Record<string, string> = {
  'every-day': 'daily',
  'every-month': 'monthly',
  'every-three-months': 'every three months',
  'every-six-months': 'every six months',
  'every-year': 'yearly',
};

const traceIdOf = (res: Response) => res.locals.traceId as string;

function taxLabel(q: Quote): string {
  if (!q.tax_country) return 'Tax (choose your country)';
  if (q.reverse_charge) return 'Tax (reverse charge)';
  const pct = `${Math.floor(q.tax_rate_bp / 100)}${q.tax_rate_bp % 100 ? '.' + String(q.tax_rate_bp % 100).padStart(2, '0').replace(/0$/, '') : ''}%`;
  return q.tax_rate_bp ? `Tax (${q.tax_country} ${pct}${q.tax_mode === 'inclusive' ? ', included' : ''})` : `Tax (${q.tax_country})`;
}

function quoteView(q: Quote) {
  const m = (v: bigint) => formatMoney(v, q.currency);
  return { unit: m(q.unit_price), subTotal: m(q.sub_total), discount: m(q.discount_amount), tax: m(q.tax_amount), total: m(q.amount_due) };
}

/** What the buyer's form asks for, before it is paid: the page shows this total. */
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
  const rule = chosenPriceRule(c);
  return {
    email: c.customer?.email ?? buyer.email ?? c.customerEmail ?? '',
    name: buyer.name ?? c.customer?.name ?? '',
    country: buyer.country ?? c.customer?.country ?? '',
    tax_id: buyer.tax_id ?? '',
    amount: rule.open ? toDecimalString(rule.suggested, c.product.currency) : '',
    fields: (c.customFields ?? {}) as FieldValues,
  };
}

async function renderCheckout(
  req: Request,
  res: Response,
  env: ServiceEnv,
  c: PayableCheckout,
  status: number,
  form: FormState,
  messages: { error?: string; fieldErrors?: string[]; notice?: string } = {},
) {
  const secret = await serviceSecret(env.data, CSRF_SECRET);
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
    payWhatYouWant: chosenPriceRule(c).open,
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

/** The form as the core's pay input (the shared schema checks it); empty optional fields read as absent. */
function payInput(body: Record<string, unknown>, form: FormState, c: PayableCheckout) {
  let amount: bigint | undefined;
  if (form.amount.trim()) {
    const parsed = parseMajorAmount(form.amount, c.product.currency);
    if (parsed === null) throw invalidField(['amount'], 'must be an amount such as 12.50');
    amount = parsed;
  }
  const expected = str(body.expected_total);
  return parseInput(payCheckoutSchema, {
    email: form.email,
    name: form.name,
    country: form.country,
    ...(form.tax_id.trim() ? { tax_id: form.tax_id } : {}),
    card_number: str(body.card_number),
    card_expiry: str(body.card_expiry),
    card_cvc: str(body.card_cvc),
    ...(amount !== undefined ? { amount } : {}),
    custom_fields: form.fields,
    ...(/^\d{1,18}$/.test(expected) ? { expected_total: BigInt(expected) } : {}),
  });
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

const notFoundPage = (res: Response) => sendMessage(res, 404, 'Checkout not found', 'This checkout does not exist in this environment.');

/** Hosted checkout pages of one listener (its environment), served without an API key. */
export function checkoutPages(env: ServiceEnv, options: { bodyLimit: string; submits: Limiter }): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: options.bodyLimit, parameterLimit: 100 });

  /** The checkout's store context and the checkout, or null: the checkout id in the URL is the capability. */
  const open = async (res: Response, id: string): Promise<{ ctx: RequestContext; c: PayableCheckout } | null> => {
    const ctx = await checkoutPageContext(env, id, traceIdOf(res));
    return ctx ? { ctx, c: await findPayableCheckoutOrThrow(ctx, id) } : null;
  };

  router.get('/buy/:productId', async (req, res) => {
    try {
      const c = await openCheckoutForProduct(env, req.params.productId, traceIdOf(res), referralCodeOf(req));
      if (!c) return sendMessage(res, 404, 'Product not found', 'This product does not exist in this environment.');
      res.redirect(303, `/checkout/${c.id}`);
    } catch (err) {
      if (err instanceof AppError && err.kind !== 'internal') return sendMessage(res, httpStatusOf(err.kind), 'This product cannot be bought right now', err.message);
      throw err;
    }
  });

  router.get('/checkout/:id', async (req, res) => {
    const found = await open(res, req.params.id);
    if (!found) return notFoundPage(res);
    const { ctx, c } = found;
    const status = checkoutStatus(c, ctx.clock.now());
    if (status === 'completed') return sendMessage(res, 200, 'Already paid', 'This checkout has been paid.', { href: `/checkout/${c.id}/receipt`, label: 'See the receipt' });
    if (status === 'expired') return sendMessage(res, 410, 'Checkout expired', "This checkout has expired. Start again from the seller's page.");
    await renderCheckout(req, res, env, c, 200, initialForm(c));
  });

  // Tax and total for the country the buyer picked; the page's script calls it.
  router.get('/checkout/:id/quote', async (req, res) => {
    const found = await open(res, req.params.id);
    if (!found) throw new AppError('not_found', 'Checkout not found');
    const q = quoteFor(found.c, { country: str(req.query.country), tax_id: str(req.query.tax_id), amount: str(req.query.amount) });
    const view = quoteView(q);
    res.set('cache-control', 'no-store').json({
      ...view,
      amount_due: q.amount_due.toString(),
      tax_label: taxLabel(q),
      pay_label: q.trial_days > 0 ? 'Start trial' : `Pay ${view.total}`,
    });
  });

  router.post('/checkout/:id', form, async (req, res) => {
    // Card testing sends many payment attempts from one address; each submit counts, paid or not.
    try {
      await options.submits.take(req.ip ?? 'unknown');
    } catch (err) {
      if (!(err instanceof RateLimitError)) throw err;
      res.set(quotaHeaders(err.quota, true));
      return sendMessage(res, 429, 'Too many attempts', `Too many payment attempts from your address. Try again in ${err.quota.resetSeconds} seconds. Nothing was charged.`);
    }
    const found = await open(res, req.params.id);
    if (!found) return notFoundPage(res);
    const { ctx, c } = found;
    const body = (req.body ?? {}) as Record<string, unknown>;
    const secret = await serviceSecret(env.data, CSRF_SECRET);
    if (!csrfValid(req, secret, c.id, body.csrf)) {
      return sendMessage(res, 403, 'Please try again', 'This form was sent from another site or has expired. Nothing was charged.', { href: `/checkout/${c.id}`, label: 'Reload the checkout' });
    }
    const state = formFromBody(body, c);
    try {
      const outcome = await payCheckout(ctx, c.id, payInput(body, state, c));
      if (outcome.kind === 'completed') return res.redirect(303, await successRedirectUrl(ctx, outcome.checkout));
      if (outcome.kind === 'total_changed') {
        return renderCheckout(req, res, env, outcome.checkout, 409, state, { notice: `The total is now ${formatMoney(outcome.quote.amount_due, outcome.quote.currency)} for the details you entered. Review it and pay again; nothing was charged.` });
      }
      return renderCheckout(req, res, env, outcome.checkout, 402, state, { error: outcome.message });
    } catch (err) {
      if (!(err instanceof AppError) || err.kind === 'internal') throw err;
      const fresh = await findPayableCheckoutOrThrow(ctx, c.id);
      if (checkoutStatus(fresh, ctx.clock.now()) === 'completed') return res.redirect(303, await successRedirectUrl(ctx, fresh));
      const issues = fieldMessages(err);
      return renderCheckout(req, res, env, fresh, httpStatusOf(err.kind), state, {
        error: issues.length ? 'Please check these fields:' : err.message,
        fieldErrors: issues,
      });
    }
  });

  router.get('/checkout/:id/receipt', async (req, res) => {
    const ctx = await checkoutPageContext(env, req.params.id, traceIdOf(res));
    const c = ctx ? await findCheckout(ctx, { id: req.params.id }) : null;
    if (!c || c.status !== 'completed' || !c.order) return sendMessage(res, 404, 'Receipt not found', 'There is no paid order for this checkout.');
    const now = ctx!.clock.now();
    const o = c.order;
    const m = (v: bigint) => formatMoney(v, o.currency);
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
