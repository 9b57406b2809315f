/**
 * A minimal browser for the hosted checkout page over plain HTTP: keeps the anti-forgery
 * cookie, reads the form's hidden fields, and submits it like a browser would. The demo
 * (src/cli/demo.ts) buys through it, and the tests drive the pages with it
 * (test/support/checkout-page.ts re-exports it).
 */
export interface PageResult {
  status: number;
  location: string | null;
  html: string;
}

export class CheckoutBrowser {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly baseUrl: string) {}

  /** The cookies the pages set, as a browser sends them back. */
  get cookie(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private keep(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  }

  async get(path: string): Promise<PageResult> {
    const res = await fetch(new URL(path, this.baseUrl), { redirect: 'manual', headers: this.cookies.size ? { cookie: this.cookie } : {} });
    this.keep(res);
    return { status: res.status, location: res.headers.get('location'), html: await res.text() };
  }

  /** Submits a page's form (its action, its fields) as a browser on the same site would. */
  async postForm(action: string, fields: Record<string, string>): Promise<PageResult> {
    const res = await fetch(new URL(action, this.baseUrl), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: this.cookie, 'sec-fetch-site': 'same-origin' },
      body: new URLSearchParams(fields),
    });
    this.keep(res);
    return { status: res.status, location: res.headers.get('location'), html: await res.text() };
  }

  static hidden(html: string, name: string): string {
    const m = new RegExp(`name="${name}"[^>]*value="([^"]*)"`).exec(html) ?? new RegExp(`value="([^"]*)"[^>]*name="${name}"`).exec(html);
    if (!m) throw new Error(`no hidden field ${name} on the page`);
    return m[1]!;
  }

  /**
   * Opens the checkout page and submits it with `fields` (buyer details, card, custom fields as
   * cf_<key>), refreshing the total for the chosen country first as the page's script does.
   */
  async pay(checkoutUrl: string, fields: Record<string, string>): Promise<PageResult> {
    const page = await this.get(checkoutUrl);
    if (page.status !== 200) return page;
    const q = new URLSearchParams({ country: fields.country ?? '', tax_id: fields.tax_id ?? '', amount: fields.amount ?? '' });
    const quote = await fetch(new URL(`${new URL(checkoutUrl, this.baseUrl).pathname}/quote?${q}`, this.baseUrl));
    const { amount_due } = (await quote.json()) as { amount_due: string };
    return this.submit(checkoutUrl, page.html, { expected_total: String(amount_due), ...fields });
  }

  submit(checkoutUrl: string, html: string, fields: Record<string, string>): Promise<PageResult> {
    return this.postForm(checkoutUrl, { csrf: CheckoutBrowser.hidden(html, 'csrf'), expected_total: CheckoutBrowser.hidden(html, 'expected_total'), ...fields });
  }
}
