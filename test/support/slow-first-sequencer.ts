import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files known to take longest, started first. Vitest orders by the durations of the last run,
 * but a clean clone (CI) has none and it falls back to file size: a small file that starts
 * server processes (the CLI, a restart) would start last and keep the run waiting for it.
 * With a last run's durations, Vitest's own order stands.
 */
const SLOW = [
  'test/cli.test.ts',
  'test/webhooks/delivery-restart.test.ts',
  'test/browser/checkout-browser.test.ts',
  'test/contract/credits-concurrency.test.ts',
  'test/contract/webhooks.test.ts',
  'test/billing/proration.test.ts',
  'src/modules/discounts/discounts.service.test.ts',
  'src/modules/webhooks/webhooks.service.test.ts',
  'test/checkout/checkout-flow.test.ts',
  'test/webhooks/listen-command.test.ts',
  'test/billing/renewals.test.ts',
  'test/contract/credits.test.ts',
];

export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const known = (f: TestSpecification) => this.ctx.cache.getFileTestResults(`${f.project.name}:${f.moduleId.slice(this.ctx.config.root.length + 1)}`);
    if (sorted.every(known)) return sorted;
    const rank = (f: TestSpecification) => {
      const i = SLOW.findIndex((s) => f.moduleId.endsWith(s));
      return i === -1 ? SLOW.length : i;
    };
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}
