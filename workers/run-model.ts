// The run-model consumer: claim the prediction, run its adapter, store the files, record the
// outcome (and the money) in one transition, then acknowledge. Transport-free: it returns an
// Outcome and the queue maps it onto acks, delay queues and dead-lettering.
// Upstream adapters (those with a `job`) are not run in one go: the job is submitted, recorded
// on the prediction, and advanced one poll per delayed message (workers/upstream-jobs.ts).
import type { App } from '../lib/context.ts';
import type { Prediction } from '../db/predictions/record.ts';
import type { ModelInfo } from '../spec/catalog.ts';
import { adapterRegistry, configuredProviders } from './adapters/index.ts';
import { acceptingProviders } from '../spec/mapping.ts';
import { cleanMetadata } from '../lib/provider-metadata.ts';
import { createCircuitBreaker } from './circuit-breaker.ts';
import { AdapterError } from './adapters/types.ts';
import type { Adapter, AdapterFile, AdapterResult, ProviderReport } from './adapters/types.ts';
import { providerCostRecorder } from '../db/provider-costs.ts';
import { runCost } from './provider-cost.ts';
import { progressReporter } from './run-progress.ts';
import { findFilter } from '../db/webhooks.ts';
import { leaseStartEvent } from './webhooks/events.ts';
import { removeTemporary } from './adapters/upstream-http.ts';
import { identifyOutput } from './output-type.ts';
import type { Delivery, Outcome } from './queue/types.ts';
import { createUpstreamJobs, isPollMessage, modelRef, runBy, runByNamed } from './upstream-jobs.ts';
import type { PollMessage, RunLog } from './upstream-jobs.ts';
import type { PredictionMessage } from './dispatch.ts';
import { isRequestId, seconds } from '../lib/telemetry.ts';
import { countedTokens, usagePrice } from '../spec/pricing.ts';
import fs from 'node:fs/promises';

/** Dead-lettering after three retries (the owner's rule for the predictions queue; app.ts topics()). */
export const MAX_RETRIES = 3;

/** older than any download can run (10 minutes) plus its move into place */
const STALE_TEMPORARY_MS = 60 * 60_000;
/** The abort reason of a worker shutting down: the prediction is handed back, not failed. */
export const HAND_BACK = 'worker shutting down: handing the prediction back';

/** The run log of a queue message's body (`reqId` ignored unless it is a plain request id). */
export function runLogOf(app: App, body: unknown): RunLog {
  const reqId = (body as { reqId?: unknown } | null)?.reqId;
  return isRequestId(reqId) ? { log: app.log.child({ reqId }), reqId } : { log: app.log };
}

/** A language model's completion charged by its usage, and the tokens in it (the store's types, through app.store). */
type UsageCharge = NonNullable<Parameters<App['store']['complete']>[0]['usage']>;
type InlineUsage = UsageCharge['usage'];

/** What a charge by usage comes to once the store has capped it (at the hold; the markup at the held one). */
function cappedCharge(p: Prediction, u: UsageCharge): { charge: number; markup: number } {
  const charge = Math.max(0, Math.min(p.price, Math.floor(u.charge)));
  return { charge, markup: Math.max(0, Math.min(p.studioId === null ? 0 : p.studioMarkup, charge, Math.floor(u.studioMarkup ?? 0))) };
}

export function createRunModel(app: App) {
  const delays = app.config.retryDelaysMs;
  const adapters = new Map<string, Adapter>();
  const running = new Set<AbortController>();
  // A worker that died mid-download left its partial file behind. A live download is never this
  // old (each is bounded by its timeout), and workers sharing STORAGE_DIR may all sweep.
  app.storage.removeStaleTemporary(STALE_TEMPORARY_MS).then(
    (removed) => removed > 0 && app.log.info({ removed }, 'removed stale temporary downloads'),
    (err: unknown) => app.log.warn({ err }, 'could not remove stale temporary downloads'),
  );

  function adapterFor(name: string): Adapter {
    let a = adapters.get(name);
    if (!a) {
      a = adapterRegistry[name]!.create(app.adapterEnv);
      adapters.set(name, a);
    }
    return a;
  }

  const { metrics, store } = app;
  const noRequest: RunLog = { log: app.log };

  async function fail(p: Prediction, message: string, code: string | null = null, run: RunLog = noRequest): Promise<void> {
    const failed = await store.fail(p, message, app.clock(), code);
    if (failed.recorded) {
      metrics.predictions.inc({ model: p.model, outcome: 'failed' });
      run.log.info({ id: p.id, model: p.model, error: message, code }, 'prediction failed');
    }
    if (failed.deliveryId) await app.dispatcher.dispatchWebhook(failed.deliveryId, run.reqId);
  }

  /**
   * One call to a provider (a local run; an upstream submit or status poll), timed and counted by
   * provider (the upstream, or "local") and adapter: mediagate_adapter_duration_seconds and, when
   * it throws, mediagate_adapter_errors_total.
   */
  async function timed<T>(model: ModelInfo, signal: AbortSignal, call: () => Promise<T>): Promise<T> {
    const labels = { provider: model.upstream ?? 'local', adapter: model.adapter };
    const started = Date.now();
    try {
      const result = await call();
      metrics.adapterDuration.observe({ ...labels, outcome: 'ok' }, seconds(started, Date.now()));
      return result;
    } catch (err) {
      metrics.adapterDuration.observe({ ...labels, outcome: 'error' }, seconds(started, Date.now()));
      const retryable = err instanceof AdapterError ? err.retryable : !signal.aborted;
      metrics.adapterErrors.inc({ ...labels, retryable: String(retryable) });
      throw err;
    }
  }

  /**
   * Records what a run cost at its provider beside what the gateway was paid (`charged`; 0 when
   * the prediction did not complete although the provider ran it). Reporting, not money: a
   * failure is logged and never fails the run whose charge is already recorded.
   */
  // one multi-row INSERT for the runs that end together (db/provider-costs.ts)
  const recordProviderCostBatched = providerCostRecorder(app.db);

  async function recordCost(p: Prediction, model: ModelInfo, report: ProviderReport | undefined, charged: number, run: RunLog = noRequest): Promise<void> {
    const { cost, source } = runCost(model, p.input, report);
    // and what the provider said of the result (seed, size, timings), shown beside it
    const metadata = cleanMetadata(report?.metadata);
    try {
      await recordProviderCostBatched({
        predictionId: p.id, model: p.model, provider: model.upstream ?? 'local', upstreamModel: model.upstreamModel ?? null,
        charged, providerCost: cost, source, now: app.clock(), ...(metadata ? { metadata } : {}),
      });
    } catch (err) {
      run.log.warn({ id: p.id, err: (err as Error).message }, 'could not record the provider cost of a run');
    }
  }

  /**
   * A language model's answer is charged by its usage (spec/pricing.ts usagePrice, as POST
   * /v1/chat/completions settles a call): the tokens the provider reported or, where it reported
   * none, counted as /v1 counts them (four bytes of the prompt and of the answer a token).
   */
  async function usageCharge(p: Prediction, model: ModelInfo, files: readonly AdapterFile[], report: ProviderReport | undefined): Promise<UsageCharge> {
    const parts: string[] = [];
    for (const f of files) parts.push(f.data ? Buffer.from(f.data).toString('utf8') : await fs.readFile(f.path, 'utf8'));
    const text = parts.join('');
    const tokens: InlineUsage = report?.usage ? { ...report.usage, source: 'reported' } : { ...countedTokens(model.price.tokens, p.input, text), source: 'counted' };
    const held = { price: p.price, listPrice: p.billing?.listPrice ?? p.price, discountPercent: p.billing?.discountPercent ?? null, studioMarkup: p.studioId === null ? 0 : p.studioMarkup };
    return { ...usagePrice(model.price, p.input, tokens, held), usage: tokens, text };
  }

  /** Types the files from their bytes, stores them and completes the prediction (the debit happens here). */
  async function finish(p: Prediction, model: ModelInfo, result: AdapterResult, run: RunLog = noRequest): Promise<void> {
    const keys: string[] = [];
    let usage: UsageCharge | undefined;
    try {
      // The bytes decide the stored type, and it must be the kind of file the model declares.
      const typed: AdapterFile[] = [];
      for (const [i, file] of result.files.entries()) typed.push({ ...file, ...(await identifyOutput(file, model.output, i)) });
      // read before the file is moved into storage
      if (model.category === 'llm') usage = await usageCharge(p, model, typed, result.report);
      for (const [i, file] of typed.entries()) keys.push(await app.storage.save(p.id, i, file));
    } catch (err) {
      // Gone before the failure is recorded: whoever sees it failed finds nothing left behind.
      await removeTemporary(result.files);
      throw err;
    }
    const done = await store.complete({ p, result: { outputs: keys, nsfw: result.files.map((f) => f.nsfw === true), inferenceMs: result.inferenceMs }, now: app.clock(), ...(usage ? { usage } : {}) });
    if (done.recorded) metrics.predictions.inc({ model: p.model, outcome: 'completed' });
    // beside the charge: what the run cost at its provider (not recorded: cancelled meanwhile, nothing was paid)
    const charged = usage ? cappedCharge(p, usage) : { charge: p.price, markup: p.studioMarkup };
    await recordCost(p, model, result.report, done.recorded ? charged.charge - charged.markup : 0, run);
    run.log.info({ id: p.id, model: p.model, recorded: done.recorded, inferenceMs: Math.round(result.inferenceMs) }, 'prediction completed');
    // Not confirmed now? The delivery row exists, so the sweeper publishes it later.
    if (done.deliveryId) await app.dispatcher.dispatchWebhook(done.deliveryId, run.reqId);
  }

  /**
   * The outcome of an error from a claimed run (or an upstream submit): a retryable one goes back
   * to pending and its message to a delay queue, up to MAX_RETRIES; anything else fails the
   * prediction (the hold is released: nothing is charged).
   */
  async function onError(p: Prediction, err: unknown, delivery: Delivery<unknown>, signal: AbortSignal, run: RunLog = noRequest): Promise<Outcome> {
    if (signal.aborted && signal.reason === HAND_BACK) {
      // Shutdown past the grace period: not a failure. Back to pending, and the message goes
      // back to the queue for another worker.
      await store.handBack(p.id, app.clock());
      run.log.info({ id: p.id, model: p.model }, 'prediction handed back at shutdown');
      return { kind: 'requeue', reason: HAND_BACK };
    }
    const retryable = err instanceof AdapterError ? err.retryable : !signal.aborted;
    const message = err instanceof AdapterError ? err.message : 'internal error while running the model';
    const code = err instanceof AdapterError ? err.code ?? null : null;
    if (!(err instanceof AdapterError)) run.log.error({ err, id: p.id }, 'unexpected error while running a model');
    if (retryable && delivery.attempt < MAX_RETRIES) {
      await store.retryLater(p.id, message, app.clock());
      metrics.predictions.inc({ model: p.model, outcome: 'retried' });
      run.log.info({ id: p.id, model: p.model, attempt: delivery.attempt, error: message }, 'prediction will be retried');
      const wait = delays[Math.min(delivery.attempt, delays.length - 1)]!;
      // A provider's Retry-After (429, 503) is honoured when it asks for longer than our backoff.
      const retryAfter = err instanceof AdapterError ? err.retryAfterMs ?? 0 : 0;
      return { kind: 'retry', delayMs: Math.max(wait, retryAfter), reason: message };
    }
    await fail(p, message, code, run);
    // Retries exhausted on a retryable error: keep the message for operators to inspect.
    return retryable ? { kind: 'dead-letter', reason: message } : { kind: 'ack' };
  }

  /** Runs `body` with an abort controller that shutdown can trip. */
  async function tracked<T>(body: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    running.add(controller);
    try {
      return await body(controller.signal);
    } finally {
      running.delete(controller);
    }
  }

  // Per process (README "Providers"): each worker learns on its own that a provider is down.
  const breaker = createCircuitBreaker({ ...app.config.upstreamBreaker, now: app.clock });
  const upstream = createUpstreamJobs(app, { adapterFor, finish, fail, onError, tracked, timed, recordCost, runLogOf: (body) => runLogOf(app, body), handBack: HAND_BACK, breaker });

  async function handle(delivery: Delivery<PredictionMessage | PollMessage>): Promise<Outcome> {
    metrics.workerInFlight.inc({ topic: 'predictions' });
    try {
      return await handleMessage(delivery);
    } finally {
      metrics.workerInFlight.dec({ topic: 'predictions' });
    }
  }

  async function handleMessage(delivery: Delivery<PredictionMessage | PollMessage>): Promise<Outcome> {
    const body: unknown = delivery.body;
    if (isPollMessage(body)) return upstream.poll(body, delivery);
    const id = (body as { id?: unknown } | null)?.id;
    if (typeof id !== 'string') return { kind: 'dead-letter', reason: 'message without a prediction id' };
    // The submitting request's id, when the message carries one: every line about this run names it.
    const run = runLogOf(app, body);
    // A `processing` row is only taken over by a redelivery (its worker died holding the message)
    // or by a retry copy (published by the worker that held it, once its handler had returned,
    // e.g. after it threw). Any other copy of the message (the sweeper republished a request
    // whose message seemed lost) finds it running or finished and is acknowledged unused.
    // A first delivery carries the submit's ticket, handed back to the store unread.
    const p = await store.claim({ id, now: app.clock(), takeOver: delivery.redelivered || delivery.attempt > 0, ticket: (body as { ticket?: unknown }).ticket });
    // Unknown, running elsewhere, finished or cancelled: nothing to do, and nothing to charge.
    if (!p) return { kind: 'ack' };
    // webhook_events_filter (workers/webhooks/events.ts): the events its webhook asked for, if any;
    // looked for only when the submit's message says there are some, or does not say (the
    // sweeper's copies): not a query per prediction
    const asked = (body as { events?: unknown }).events;
    const events = asked === false ? null : await findFilter(app.db, p.id) ?? null;
    const model = app.spec.models.get(p.model);
    if (!model) {
      await fail(p, `model ${p.model} is no longer offered by this gateway`, null, run);
      return { kind: 'ack' };
    }
    if (p.upstreamJob) {
      // A job a previous claim submitted: only the provider that took it may see it again.
      const taken = runByNamed(model, p.upstreamJob.provider);
      const job = taken ? adapterFor(taken.adapter).job : undefined;
      if (!taken || !job) {
        await fail(p, `model ${p.model} is no longer served by the provider that took the job`, 'not_configured', run);
        return { kind: 'ack' };
      }
      if (events) await leaseStartEvent(app, p.id, events);
      return upstream.start(p, [], delivery, run, { model: taken, job });
    }
    const adapter = adapterFor(model.adapter);
    if (adapter.job) {
      // Failover order, without the providers this environment does not configure, nor those
      // whose limits or value maps this input breaks (the submit refused an input none could take).
      const { accepting, problems } = acceptingProviders(configuredProviders(model, app.adapterEnv), p.input);
      if (accepting.length === 0 && problems.length > 0) {
        await fail(p, `no provider of ${p.model} on this gateway accepts this input: ${problems.map((q) => `${q.field}: ${q.msg}`).join('; ')}`, 'upstream_rejected_input', run);
        return { kind: 'ack' };
      }
      const candidates = accepting.flatMap((provider) => {
        const job = adapterFor(provider.adapter).job;
        return job ? [{ model: runBy(model, provider), job }] : [];
      });
      // (a local run sends its start from its reporter, in order with its progress events)
      if (events) await leaseStartEvent(app, p.id, events);
      return upstream.start(p, candidates, delivery, run);
    }

    return tracked(async (signal) => {
      let produced: AdapterFile[] = [];
      const progress = progressReporter(app, p.id, { events });
      try {
        const result = await timed(model, signal, () => adapter.run(p.input, { signal, predictionId: p.id, tempDir: app.storage.tempDir, model: modelRef(model), report: progress.report }));
        produced = result.files;
        // the last lines are written while it is still processing, before the state that ends it
        await progress.flush();
        await finish(p, model, result, run);
        return { kind: 'ack' } satisfies Outcome;
      } catch (err) {
        await progress.flush();
        return onError(p, err, delivery, signal, run);
      } finally {
        // Whatever was not moved into storage is removed, whichever way the run ended.
        await removeTemporary(produced);
      }
    });
  }

  return {
    handle,
    /** how many predictions are running in this process */
    get running() {
      return running.size;
    },
    /** aborts every running adapter (shutdown): their predictions go back to pending and their messages to the queue */
    abortAll() {
      for (const c of running) c.abort(HAND_BACK);
    },
  };
}

