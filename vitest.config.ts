import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'threads',
    // vitest's default in a run is one worker fewer than the cores: on a 2-core machine one worker.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The files of a worker share one module graph: importing the library for each file again was about
    // half of the suite's time. Instances share nothing (no module-level state), and what a file does to
    // the globals is undone after it (test/setup.ts).
    isolate: false,
    setupFiles: ['test/setup.ts'],
    testTimeout: 20_000,
  },
});
