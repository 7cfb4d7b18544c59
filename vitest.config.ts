import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/support/longest-first';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['test/support/global-setup.ts'],
    // Every handler response a test receives is checked against the document (test/support/contract.ts).
    setupFiles: ['test/support/contract.ts'],
    // BaseMint's ESM build imports directories, which Node's loader refuses: vitest transforms it instead.
    server: { deps: { inline: [/@b3dotfun\/basemint/] } },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Tests start their own dynalite and anvil on free loopback ports; two cores, so keep the pool small.
    pool: 'forks',
    maxWorkers: 2,
    // The longest files start first (test/support/longest-first.ts): none is left as the run's tail.
    sequence: { sequencer: LongestFirst },
    env: {
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      // Explorer and insights pages read every detail: tests rewrite the table between pages (the kept details have tests of their own).
      EXPLORER_DETAILS_CACHE_SECONDS: '0',
      INSIGHTS_DETAILS_CACHE_SECONDS: '0',
      // Every compacted item is expanded and compared with its record (shared/table/compact.ts; the ingest leaves it out).
      COMPACTION_CHECK: '1',
    },
  },
});
