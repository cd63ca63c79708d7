/**
 * Run before each test file. Test files share their worker's module graph (`isolate: false`), so what
 * one file does to the globals must not reach the next: @hono/node-server makes its own Request and
 * Response classes the global ones when it serves, and MSW replaces `fetch` while it listens. Each
 * file leaves the globals as it found them.
 */
import { afterAll } from 'vitest';

const NAMES = ['Request', 'Response', 'Headers', 'fetch'] as const;
const found = NAMES.map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)] as const);

afterAll(() => {
  for (const [name, desc] of found) {
    if (desc) Object.defineProperty(globalThis, name, desc);
    else delete (globalThis as Record<string, unknown>)[name];
  }
});
