import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/support/slow-first-sequencer.js';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // Node loads graphql's CommonJS entry for our dependencies (Pothos, yoga); make the
    // files Vite transforms use the same copy, or graphql refuses objects "from another realm".
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // Test files of a worker share its loaded modules (the Prisma client, the GraphQL schema):
    // loading them again for every file cost more than a third of the run. Every file opens
    // its own database and service, and restores the process-wide settings it changes.
    isolate: false,
    // Two cores, but many tests wait on sockets and child processes: a third worker fills those waits.
    maxWorkers: 3,
    sequence: { sequencer: SlowFirstSequencer },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
