import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // isolated-vm needs --no-node-snapshot, which worker threads refuse: use forks.
    pool: 'forks',
    execArgv: ['--no-node-snapshot'],
    include: [
      'kernel/**/*.test.ts',
      'engine/**/*.test.ts',
      'plugins/**/*.test.ts',
      'test/**/*.test.ts',
      'addons-sdk/**/*.test.ts',
      'catalog/**/*.test.ts',
      'i18n/**/*.test.ts',
      'dashboard/src/**/*.test.{ts,tsx}',
    ],
    globalSetup: ['test/global-setup.ts'],
    // argon2id at its least cost in every test process and the servers they start (the
    // default's 64 MiB × 3 passes took both cores for 0.15–0.35 s a hash); test/helpers/instance.ts
    // passes the same to the instances it builds, kernel/identity/passwords.test.ts the default.
    env: { SVC_PASSWORD_HASH: 'm=1024,t=1,p=1' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll waits for a state, it does not time it: the default 1 s is missed by a page or
    // a job on a loaded machine (two cores shared by several test runs), so allow 10 s.
    expect: { poll: { timeout: 10_000 } },
    // Three files at once on two cores: a file that waits (on a database, a child process, a
    // deadline) leaves its core to the others. The whole suite: 630 s with two, 500 s with three,
    // the cores busy 96% of the time (2026-11-28).
    maxWorkers: 3,
    // Each worker keeps one module graph across its test files instead of importing everything
    // again per file: the suite spent more time importing (511 s summed) than in half its tests.
    // Test files build their own instances, so nothing a test needs lives in a module.
    isolate: false,
  },
});
