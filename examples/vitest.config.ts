/**
 * Runs the example suite inside this repository, where `fauxlab` is the source tree rather than an
 * installed package. In your own project you need none of this: `npm install -D fauxlab msw` and
 * import `fauxlab` / `fauxlab/testing` as the example does.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(`../src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^fauxlab\/testing$/, replacement: src('testing/index.ts') },
      { find: /^fauxlab\/msw$/, replacement: src('msw/index.ts') },
      { find: /^fauxlab$/, replacement: src('index.ts') },
    ],
  },
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['**/*.test.ts'],
  },
});
