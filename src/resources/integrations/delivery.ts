/**
 * Notification delivery: the platform's integrations post to their webhooks from background jobs, so
 * a request that causes an event never waits for it. Each instance (found by its clock) has a delivery
 * log, visible at `GET /__fauxlab/deliveries`; a delivery is tried up to three times (network errors,
 * 429 and 5xx), with a short backoff. Pipelines finish on the instance clock, not in a request: the
 * pipelines an integration cares about are watched until they do.
 */
import type { Clock } from '../../core/clock.js';
import type { Fx } from '../../core/context.js';
import { OutboundBlocked, outboundRequest, type OutboundPolicy } from '../../core/outbound.js';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface DeliveryAttempt {
  /** Wall-clock time of the attempt (the instance clock may be frozen). */
  at: string;
  status?: number;
  error?: string;
}

export interface Delivery {
  id: number;
  /** When the event happened, on the instance clock. */
  at: string;
  /** The integration's slug, or for a webhook its kind: `project_hook`, `group_hook`, `system_hook`. */
  integration: string;
  /** The integration's or the webhook's id. */
  integration_id: number;
  /** Null for an instance event (a system hook's `user_create`, ...). */
  project_id: number | null;
  project: string | null;
  event: string;
  action: string | null;
  url: string;
  /**
   * What is posted: the body as JSON, or, with a form content type, as the form's `payload` field (the
   * log keeps the payload itself, not its encoding).
   */
  request: { headers: Record<string, string>; body: unknown };
  status: DeliveryStatus;
  response_status: number | null;
  attempts: DeliveryAttempt[];
}

export type NewDelivery = Omit<Delivery, 'id' | 'status' | 'response_status' | 'attempts'>;

/** A pipeline an integration waits for: notified once it finishes (success or failure). */
export interface PipelineWatch {
  pipelineId: number;
  runAt: string;
  base: string;
  userId: number | null;
}

const MAX_ATTEMPTS = 3;
const BACKOFF_MS = 150;
const TIMEOUT_MS = 5000;
const LOG_SIZE = 1000;
/** Deliveries under way at once; past it a new one is logged as dropped, so memory stays bounded. */
const MAX_IN_FLIGHT = 500;
const WATCH_INTERVAL_MS = 25;
/** Pipelines whose job statuses the watcher remembers. */
const MAX_JOB_STATES = 10_000;

/** The deliveries of one instance. */
export class DeliveryLog {
  readonly #entries: Delivery[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  readonly #watches = new Map<number, PipelineWatch>();
  #seq = 0;
  #timer: ReturnType<typeof setInterval> | undefined;
  /** Set by the first event: how the watcher reads the state and clock. */
  fx: Fx | undefined;
  /** Called by the watcher with finished pipelines; set by the events module. */
  onPipelineCheck: ((log: DeliveryLog) => void) | undefined;
  readonly #jobStates = new Map<number, Map<number, string>>();

  /**
   * The job statuses last reported for a pipeline (job id -> status), kept across watches so that a
   * pipeline watched again (a job played or retried) reports only what changed since. The oldest
   * pipelines' are forgotten past a bound.
   */
  jobStates(pipelineId: number): Map<number, string> {
    let m = this.#jobStates.get(pipelineId);
    if (!m) {
      if (this.#jobStates.size >= MAX_JOB_STATES)
        this.#jobStates.delete(this.#jobStates.keys().next().value!);
      this.#jobStates.set(pipelineId, (m = new Map()));
    }
    return m;
  }

  /** Every delivery, oldest first. */
  list(): Delivery[] {
    return this.#entries.map((d) => structuredClone(d));
  }

  clear(): void {
    this.#entries.length = 0;
  }

  /**
   * Queues a POST; it starts after the current request has answered, and goes where `policy` (the
   * URL blocker's settings when the event happened) lets it.
   */
  enqueue(d: NewDelivery, policy: OutboundPolicy): Delivery {
    if (this.#inFlight.size >= MAX_IN_FLIGHT) return this.record(d, 'dropped: the delivery queue is full');
    const entry: Delivery = { ...d, id: ++this.#seq, status: 'pending', response_status: null, attempts: [] };
    this.#entries.push(entry);
    if (this.#entries.length > LOG_SIZE) this.#entries.shift();
    const run = new Promise<void>((resolve) => setTimeout(resolve, 0))
      .then(() => send(entry, policy))
      .finally(() => this.#inFlight.delete(run));
    this.#inFlight.add(run);
    return entry;
  }

  /** Logs a delivery that was refused before any request (a blocked URL). */
  record(d: NewDelivery, error: string): Delivery {
    const entry: Delivery = {
      ...d,
      id: ++this.#seq,
      status: 'failed',
      response_status: null,
      attempts: [{ at: new Date().toISOString(), error }],
    };
    this.#entries.push(entry);
    if (this.#entries.length > LOG_SIZE) this.#entries.shift();
    return entry;
  }

  watch(w: PipelineWatch): void {
    this.#watches.set(w.pipelineId, w);
    if (!this.#timer) {
      this.#timer = setInterval(() => this.checkPipelines(), WATCH_INTERVAL_MS);
      this.#timer.unref?.();
    }
  }

  watches(): PipelineWatch[] {
    return [...this.#watches.values()];
  }

  unwatch(pipelineId: number): void {
    this.#watches.delete(pipelineId);
    if (this.#watches.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  checkPipelines(): void {
    if (this.#watches.size) this.onPipelineCheck?.(this);
  }

  /** Resolves once every queued delivery (with its retries) is done; pipelines are checked first. */
  async settled(): Promise<void> {
    this.checkPipelines();
    while (this.#inFlight.size) await Promise.allSettled([...this.#inFlight]);
  }
}

function encode(req: Delivery['request']): string {
  const json = JSON.stringify(req.body);
  return req.headers['Content-Type'] === 'application/x-www-form-urlencoded'
    ? `payload=${encodeURIComponent(json)}`
    : json;
}

async function send(entry: Delivery, policy: OutboundPolicy): Promise<void> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const record: DeliveryAttempt = { at: new Date().toISOString() };
    entry.attempts.push(record);
    try {
      const res = await outboundRequest(
        entry.url,
        {
          method: 'POST',
          headers: entry.request.headers,
          body: encode(entry.request),
          timeoutMs: TIMEOUT_MS,
        },
        policy,
      );
      record.status = res.status;
      entry.response_status = res.status;
      if (res.status < 500 && res.status !== 429) {
        entry.status = res.status >= 200 && res.status < 300 ? 'delivered' : 'failed';
        return;
      }
    } catch (e) {
      // `Gitlab::HTTP::BlockedUrlError`: the hook's log shows the message; a blocked URL is not retried.
      if (e instanceof OutboundBlocked) {
        record.error = e.message;
        break;
      }
      const err = e as { code?: string; cause?: { code?: string }; name?: string };
      record.error = err.code ?? err.cause?.code ?? err.name ?? String(e);
    }
    if (attempt < MAX_ATTEMPTS) await new Promise((r) => setTimeout(r, BACKOFF_MS * 2 ** (attempt - 1)));
  }
  entry.status = 'failed';
}

const logs = new WeakMap<Clock, DeliveryLog>();

/**
 * The delivery log of the instance with this clock (`fx.clock` in handlers, `instance.clock` in tests):
 * `await deliveries(fx.clock).settled()` waits for everything queued so far.
 */
export function deliveries(clock: Clock): DeliveryLog {
  let log = logs.get(clock);
  if (!log) logs.set(clock, (log = new DeliveryLog()));
  return log;
}
