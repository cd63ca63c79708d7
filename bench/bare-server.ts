/**
 * The start-up baseline of `bench/table.ts`: the least a Hono app on @hono/node-server takes from spawn
 * to its first 200, measured in the same run as fauxlab's CLI. Nothing but the two modules is loaded.
 * Usage: `node dist/bench/bare-server.js PORT` (127.0.0.1 only; ends on SIGINT or SIGTERM).
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const app = new Hono();
app.get('*', (c) => c.json({ ok: true }));
serve({ fetch: app.fetch, hostname: '127.0.0.1', port: Number(process.argv[2]) });
