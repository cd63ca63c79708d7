/**
 * One fresh fauxlab world reached two ways, for client suites that must get the same answers from both:
 * in process through MSW, and over loopback HTTP through @hono/node-server.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { setupServer } from 'msw/node';
import { createFauxlab, type Fauxlab } from '../../src/index.js';
import { fauxlabHandlers } from '../../src/msw/index.js';
import type { ScenarioFile } from '../../src/scenario/schema.js';
import type { Minor } from '../../src/core/versions.js';

/**
 * The releases the client suites run against: the default, 15.4 (the release python-gitlab's and
 * gitbeaker's own functional suites ran against when their types were last written), and 16.11 (the
 * last 16.x, after the 16.0 removals).
 */
export const CLIENT_VERSIONS = ['13.12', '15.4', '16.11'] as const satisfies readonly Minor[];

export interface Target {
  host: string;
  fx: Fauxlab;
  close(): Promise<void>;
}

/**
 * The world behind MSW handlers for `host`; `unhandled` is what MSW does with other requests (`bypass`
 * lets webhook deliveries reach a receiver on 127.0.0.1).
 */
export async function viaMsw(
  scenario: ScenarioFile,
  host: string,
  unhandled: 'error' | 'bypass' = 'error',
  version?: Minor,
): Promise<Target> {
  const fx = createFauxlab({ scenario, version });
  const server = setupServer(...fauxlabHandlers(fx, { baseUrl: host }));
  server.listen({ onUnhandledRequest: unhandled });
  return { host, fx, close: async () => server.close() };
}

/** The world served on a free port of 127.0.0.1 (as GitLab `version`, default 13.12). */
export async function viaHttp(scenario: ScenarioFile, version?: Minor): Promise<Target> {
  const fx = createFauxlab({ scenario, version });
  const { server, port } = await new Promise<{ server: Server; port: number }>((resolve) => {
    const s = serve({ fetch: fx.fetch, hostname: '127.0.0.1', port: 0 }, (info: AddressInfo) =>
      resolve({ server: s as Server, port: info.port }),
    );
  });
  const close = () =>
    new Promise<void>((resolve, reject) => {
      server.close((e) => (e ? reject(e) : resolve()));
      // undici keeps pooled connections open; without this, close() waits for them to time out.
      server.closeAllConnections();
    });
  return { host: `http://127.0.0.1:${port}`, fx, close };
}
