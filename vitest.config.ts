import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // graphql ships both .mjs and .js builds; Pothos (CJS) and our ESM code must share one copy,
    // or graphql-js refuses "another module or realm" schemas.
    alias: { graphql: new URL('./node_modules/graphql/index.js', import.meta.url).pathname },
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/harness/global-setup.ts'],
    // The schema, operations and Prisma's query compiler load once per worker, not per file;
    // each test file still gets its own database (test/harness/app.ts).
    isolate: false,
    // settledRssMb() (test/harness/loop-watch.ts) collects garbage before it reads the RSS
    execArgv: ['--expose-gc'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
});
