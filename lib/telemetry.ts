// The gateway's telemetry, shared by the HTTP edge and the workers, in two parts:
// - metrics: the Prometheus registry and its counters, histograms and gauges;
// - request ids: the X-Request-Id that ties one request's log lines together, from the API through
//   the queue to the worker's and the webhook's.
import crypto from 'node:crypto';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

// ------------------------------------------------------------------ metrics

// The gateway's Prometheus metrics (prom-client), one registry per App: tests run several apps in
// one process, and the global registry would mix them. Counters and histograms are updated where
// things happen (the HTTP edge, the consumers, the adapters); the gauges of shared state (queue
// depth, ledger totals) are read at scrape time through `sources`, so nothing polls in between.
// Names and labels are listed in README "Operations".

export interface MetricSources {
  /** messages waiting in a topic's queue (not counting delayed retries); bounded in time by the queue */
  queueDepth(topic: string): Promise<number>;
  /** age in ms of the oldest prediction accepted but not yet claimed by a worker; null when none waits */
  oldestWaitingMs(): Promise<number | null>;
  /** sums over every wallet (users and teams), in credits */
  ledgerTotals(): Promise<{ balance: number; held: number }>;
  /** where a failing source is reported; the scrape goes on without that gauge */
  onError(what: string, err: unknown): void;
}

export const QUEUE_TOPICS = ['predictions', 'webhooks'] as const;

/** Latency buckets in seconds: HTTP requests are milliseconds, model runs can be minutes. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const ADAPTER_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

export function createMetrics(sources: MetricSources) {
  const registry = new Registry();
  const registers = [registry];

  const metrics = {
    registry,
    httpRequests: new Counter({
      name: 'mediagate_http_requests_total',
      help: 'HTTP requests answered, by route (operationId, or the hapi route path), method and status',
      labelNames: ['route', 'method', 'status'] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: 'mediagate_http_request_duration_seconds',
      help: 'Time from receiving a request to answering it, by route, method and status',
      labelNames: ['route', 'method', 'status'] as const,
      buckets: HTTP_BUCKETS,
      registers,
    }),
    predictions: new Counter({
      name: 'mediagate_predictions_total',
      help: 'Predictions by model and outcome: submitted and sandbox (API), completed, failed and retried (worker)',
      labelNames: ['model', 'outcome'] as const,
      registers,
    }),
    workerInFlight: new Gauge({
      name: 'mediagate_worker_in_flight',
      help: 'Messages this process is handling now, by topic (predictions: model runs; webhooks: delivery attempts)',
      labelNames: ['topic'] as const,
      registers,
    }),
    workerConcurrency: new Gauge({
      name: 'mediagate_worker_concurrency',
      help: 'How many messages of a topic this process takes at once (the consumer prefetch)',
      labelNames: ['topic'] as const,
      registers,
    }),
    adapterDuration: new Histogram({
      name: 'mediagate_adapter_duration_seconds',
      help: 'Provider calls (a local model run, or one upstream submit or status poll), by provider (the upstream, or "local"), adapter and outcome (ok, error)',
      labelNames: ['provider', 'adapter', 'outcome'] as const,
      buckets: ADAPTER_BUCKETS,
      registers,
    }),
    adapterErrors: new Counter({
      name: 'mediagate_adapter_errors_total',
      help: 'Failed provider calls, by provider, adapter and whether the error is retryable',
      labelNames: ['provider', 'adapter', 'retryable'] as const,
      registers,
    }),
    webhookAttempts: new Counter({
      name: 'mediagate_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome: delivered, gone (410), retry, dead',
      labelNames: ['outcome'] as const,
      registers,
    }),
    retentionRemoved: new Counter({
      name: 'mediagate_retention_removed_total',
      help: 'Records removed by the retention job run in this process, by kind (outputs: predictions whose files were removed)',
      labelNames: ['kind'] as const,
      registers,
    }),
    retentionRuns: new Counter({
      name: 'mediagate_retention_runs_total',
      help: 'Retention job runs in this process, by outcome (ok, error)',
      labelNames: ['outcome'] as const,
      registers,
    }),
  };

  new Gauge({
    name: 'mediagate_queue_depth',
    help: 'Messages ready in a topic queue at scrape time (delayed retries not counted)',
    labelNames: ['topic'] as const,
    registers,
    async collect() {
      // Asked together: a broker that does not answer costs the scrape one bound (the transport's,
      // workers/queue/amqp/topology.ts), not one per topic. A topic not counted is left out of this
      // scrape; the other gauges answer as usual.
      const depths = await Promise.allSettled(QUEUE_TOPICS.map((topic) => sources.queueDepth(topic)));
      this.reset();
      depths.forEach((depth, i) => {
        const topic = QUEUE_TOPICS[i]!;
        if (depth.status === 'fulfilled') this.set({ topic }, depth.value);
        else sources.onError(`queue depth of ${topic}`, depth.reason);
      });
    },
  });
  new Gauge({
    name: 'mediagate_queue_oldest_waiting_seconds',
    help: 'Age of the oldest prediction accepted but not yet started by a worker (0 when none waits)',
    registers,
    async collect() {
      this.reset();
      try {
        this.set(((await sources.oldestWaitingMs()) ?? 0) / 1000);
      } catch (err) {
        sources.onError('oldest waiting prediction', err);
      }
    },
  });
  new Gauge({
    name: 'mediagate_ledger_credits',
    help: 'Sum over every wallet (users and teams) at scrape time: kind="balance" (available) or kind="held" (reserved by unfinished predictions); 1000 credits = 1 USD',
    labelNames: ['kind'] as const,
    registers,
    async collect() {
      this.reset();
      try {
        const totals = await sources.ledgerTotals();
        this.set({ kind: 'balance' }, totals.balance);
        this.set({ kind: 'held' }, totals.held);
      } catch (err) {
        sources.onError('ledger totals', err);
      }
    },
  });
  return metrics;
}

export type Metrics = ReturnType<typeof createMetrics>;

/** Node process metrics (CPU, memory, event loop lag, GC) on the app's registry; once per process (main.ts). */
export function collectProcessMetrics(metrics: Metrics): void {
  collectDefaultMetrics({ register: metrics.registry, prefix: 'mediagate_' });
}

/** Seconds between two epoch-millisecond instants, for histograms. */
export function seconds(fromMs: number, toMs: number): number {
  return Math.max(0, toMs - fromMs) / 1000;
}

// ------------------------------------------------------------------ request ids

// Request ids (X-Request-Id): accepted from a client when short and plain, else generated; carried
// from the API into queue messages so a prediction's worker and webhook log lines share it.

const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** true for a value safe to log and pass on as a request id (1-128 of A-Z a-z 0-9 . _ : -) */
export function isRequestId(value: unknown): value is string {
  return typeof value === 'string' && ACCEPTABLE_ID.test(value);
}

/** The request id of an incoming header value: kept when acceptable, otherwise a fresh UUID. */
export function acceptRequestId(header: unknown): string {
  return isRequestId(header) ? header : crypto.randomUUID();
}
