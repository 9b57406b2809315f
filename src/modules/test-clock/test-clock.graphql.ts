import { builder } from '../../graphql/builder.js';
import { toApiInput } from '../../graphql/input.js';
import { INPUT_DESCRIPTION, payloadOf, USER_ERRORS_DESCRIPTION, UserErrorRef, type Payload } from '../../graphql/mutation.js';
import { execute } from '../../core/operation.js';
import { advanceTestClockOp, getTestClockOp } from './test-clock.operations.js';
import type { serializeTestClock } from './test-clock.serializer.js';

type TestClockBody = ReturnType<typeof serializeTestClock> & { ran?: Record<string, number> };

const TestClockRef = builder.objectRef<TestClockBody>('TestClock').implement({
  description: "A store's clock in the test environment: real time plus an offset the store moves forward",
  fields: (t) => ({
    now: t.field({ type: 'DateTime', description: 'The store’s current time in the test environment', resolve: (c) => new Date(c.now) }),
    offsetMs: t.float({ description: 'How far ahead of real time, in milliseconds', resolve: (c) => c.offset_ms }),
  }),
});

const RanRef = builder.objectRef<{ kind: string; count: number }>('DueWorkRun').implement({
  description: 'How many jobs of one kind ran because the clock moved',
  fields: (t) => ({ kind: t.exposeString('kind', { description: 'subscription.renew, …' }), count: t.exposeInt('count', { description: 'Jobs of that kind that ran' }) }),
});

builder.queryField('testClock', (t) =>
  t.field({
    type: TestClockRef,
    nullable: true,
    description: "This store's test clock; null in production, which runs on real time",
    resolve: async (_root, _args, ctx) => {
      if (ctx.core.mode !== 'test') return null;
      return (await execute(ctx.core, getTestClockOp, {})).body as TestClockBody;
    },
  }),
);

const AdvanceTestClockInput = builder.inputType('AdvanceTestClockInput', {
  description: 'How far to move the test clock: give seconds or to',
  fields: (t) => ({
    seconds: t.int({ required: false, description: 'Move forward by this many seconds' }),
    to: t.field({ type: 'DateTime', required: false, description: 'Move forward to this instant' }),
  }),
});

const AdvanceTestClockPayload = builder.objectRef<Payload>('AdvanceTestClockPayload').implement({
  description: 'The moved clock and the work it ran, or the userErrors that refused the move',
  fields: (t) => ({
    testClock: t.field({ type: TestClockRef, nullable: true, description: 'The clock after the move; null when refused', resolve: (p) => (p.body as TestClockBody | null) ?? null }),
    ran: t.field({
      type: [RanRef],
      description: 'Work that became due and ran before the answer, by kind',
      resolve: (p) => Object.entries((p.body as TestClockBody | null)?.ran ?? {}).map(([kind, count]) => ({ kind, count })),
    }),
    userErrors: t.field({ type: [UserErrorRef], description: USER_ERRORS_DESCRIPTION, resolve: (p) => p.userErrors }),
  }),
});

builder.mutationField('advanceTestClock', (t) =>
  t.field({
    type: AdvanceTestClockPayload,
    description: "Moves this store's test clock forward and runs the work that became due (renewals, retries, scheduled changes)",
    args: { input: t.arg({ type: AdvanceTestClockInput, required: true, description: INPUT_DESCRIPTION }) },
    resolve: (_root, args, ctx) => payloadOf(ctx, advanceTestClockOp, toApiInput(args.input)),
  }),
);
