import { builder } from '../../graphql/builder.js';
import { toApiInput } from '../../graphql/input.js';
import { payloadOf, UserErrorRef, type Payload } from '../../graphql/mutation.js';
import { execute } from '../../core/operation.js';
import { advanceTestClockOp, getTestClockOp } from './test-clock.operations.js';
import type { serializeTestClock } from './test-clock.serializer.js';

type TestClockBody = ReturnType<typeof serializeTestClock> & { ran?: Record<string, number> };

const TestClockRef = builder.objectRef<TestClockBody>('TestClock').implement({
  description: "A store's clock in the test environment: real time plus an offset the store moves forward",
  fields: (t) => ({
    now: t.field({ type: 'DateTime', resolve: (c) => new Date(c.now) }),
    offsetMs: t.float({ description: 'How far ahead of real time, in milliseconds', resolve: (c) => c.offset_ms }),
  }),
});

const RanRef = builder.objectRef<{ kind: string; count: number }>('DueWorkRun').implement({
  fields: (t) => ({ kind: t.exposeString('kind', { description: 'subscription.renew, …' }), count: t.exposeInt('count') }),
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
  fields: (t) => ({
    seconds: t.int({ required: false, description: 'Move forward by this many seconds' }),
    to: t.field({ type: 'DateTime', required: false, description: 'Move forward to this instant' }),
  }),
});

const AdvanceTestClockPayload = builder.objectRef<Payload>('AdvanceTestClockPayload').implement({
  fields: (t) => ({
    testClock: t.field({ type: TestClockRef, nullable: true, resolve: (p) => (p.body as TestClockBody | null) ?? null }),
    ran: t.field({
      type: [RanRef],
      description: 'Work that became due and ran before the answer, by kind',
      resolve: (p) => Object.entries((p.body as TestClockBody | null)?.ran ?? {}).map(([kind, count]) => ({ kind, count })),
    }),
    userErrors: t.field({ type: [UserErrorRef], resolve: (p) => p.userErrors }),
  }),
});

builder.mutationField('advanceTestClock', (t) =>
  t.field({
    type: AdvanceTestClockPayload,
    description: "Moves this store's test clock forward and runs the work that became due (renewals, retries, scheduled changes)",
    args: { input: t.arg({ type: AdvanceTestClockInput, required: true }) },
    resolve: (_root, args, ctx) => payloadOf(ctx, advanceTestClockOp, toApiInput(args.input)),
  }),
);
