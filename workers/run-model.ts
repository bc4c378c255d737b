// The run of one prediction, whole, in the order it goes:
//   1. the run-model consumer (createRunModel): claim, run the adapter, store the files, complete;
//   2. a local run's progress and log lines as it goes, and their webhook events (progressReporter);
//   3. an output's type, from its bytes (identifyOutput);
//   4. what the run cost at its provider (runCost).
// An upstream provider's job, submitted once and polled through delayed messages, is
// workers/upstream-jobs.ts; the webhook the completion sends, workers/deliver-webhook.ts.
import fs from 'node:fs/promises';
import { fileTypeFromBuffer, fileTypeFromFile } from 'file-type';
import type { App } from '../lib/context.ts';
import { findPredictionById, heldPriceRule } from '../db/predictions/record.ts';
import type { Prediction } from '../db/predictions/record.ts';
import { recordRunProgress } from '../db/predictions/upstream.ts';
import type { ModelInfo } from '../spec/catalog.ts';
import { adapterRegistry, configuredProviders } from './adapters/index.ts';
import { acceptingProviders } from '../spec/mapping.ts';
import { cleanMetadata } from '../lib/prediction-view.ts';
import { appendLines, serializeRunLogs } from '../lib/run-logs.ts';
import type { RunLogs } from '../lib/run-logs.ts';
import { createCircuitBreaker } from './circuit-breaker.ts';
import { AdapterError, removeTemporary } from './adapters/types.ts';
import type { Adapter, AdapterFile, AdapterResult, MediaKind, ModelRef, ProviderReport, RunUpdate } from './adapters/types.ts';
import type { RunCost as CompletionCost } from '../db/provider-costs.ts';
import { findFilter } from '../db/webhooks.ts';
import type { EventFilter } from '../db/webhooks.ts';
import { leaseStartEvent, sendRunningEvent } from './deliver-webhook.ts';
import type { Delivery, Outcome } from './queue/types.ts';
import { createUpstreamJobs, runBy, runByNamed } from './upstream-jobs.ts';
import type { RunLog } from './upstream-jobs.ts';
import { isPollMessage } from './dispatch.ts';
import type { PollMessage, PredictionMessage } from './dispatch.ts';
import { isRequestId, seconds } from '../lib/telemetry.ts';
import { removeOutputsLogged } from '../lib/storage.ts';
import { computePriceBreakdown, countedTokens, CREDITS_PER_USD, PriceError, storedPriceRule, usagePrice } from '../spec/pricing.ts';

// ---- 1. The consumer
// The run-model consumer: claim the prediction, run its adapter, store the files, record the
// outcome (and the money) in one transition, then acknowledge. Transport-free: it returns an
// Outcome and the queue maps it onto acks, delay queues and dead-lettering.
// Upstream adapters (those with a `job`) are not run in one go: the job is submitted, recorded
// on the prediction, and advanced one poll per delayed message (workers/upstream-jobs.ts).

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

/** What the adapters are told about a model: the spec's x-model, as the catalog read it. */
export function modelRef(model: ModelInfo): ModelRef {
  return {
    operationId: model.operationId,
    category: model.category,
    ...(model.upstream ? { upstream: model.upstream } : {}),
    ...(model.upstreamModel ? { upstreamModel: model.upstreamModel } : {}),
    ...(model.inputMap ? { inputMap: model.inputMap } : {}),
    ...(model.fixedInput ? { fixedInput: model.fixedInput } : {}),
    ...(model.mapping ? { mapping: model.mapping } : {}),
  };
}

/** A language model's completion charged by its usage, and the tokens in it (the store's types, through app.store). */
type UsageCharge = NonNullable<Parameters<App['store']['complete']>[0]['usage']>;
type InlineUsage = UsageCharge['usage'];

/** What a run cost at its provider (runCost, part 4), and what the provider said of the result (seed, size, timings), shown beside it. */
function costOfRun(p: Prediction, model: ModelInfo, report: ProviderReport | undefined): CompletionCost {
  const { cost, source } = runCost(model, p.input, report);
  const metadata = cleanMetadata(report?.metadata);
  return { provider: model.upstream ?? 'local', upstreamModel: model.upstreamModel ?? null, providerCost: cost, source, ...(metadata ? { metadata } : {}) };
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

  async function fail(p: Prediction, message: string, code: string | null = null, run: RunLog = noRequest, cost?: CompletionCost): Promise<void> {
    const failed = await store.fail(p, message, app.clock(), code, cost);
    if (failed.recorded) {
      metrics.predictions.inc({ model: p.model, outcome: 'failed' });
      run.log.info({ id: p.id, model: p.model, error: message, code }, 'prediction failed');
    }
    if (failed.deliveryId) await app.dispatcher.dispatchWebhook(failed.deliveryId, run.reqId);
    // Every failure, whatever its code: an earlier attempt may have stored some outputs before its
    // storage failed, and the last attempt may have failed otherwise. One not recorded (the row was
    // no longer processing: cancelled meanwhile, or another run's) is looked at first. After the
    // webhook: a store that does not answer (the usual cause) must not hold it back.
    await removeOrphanOutputs(p.id, run, failed.recorded ? 'failed' : undefined);
  }

  /**
   * Removes whatever runs stored under the outputs of a prediction that failed or was cancelled:
   * both are final, so no completed row can ever list those files (retention, which removes the
   * files a completed row lists, would never find them). `status` is the row's, when the caller
   * knows it (it just recorded it, or read it); else the row is read, and a prediction still
   * running (another run's retry may complete it) or completed (another run's outputs: the same
   * keys) is left alone. Best effort: a failure is a warning, and the outcome stays what it is.
   */
  async function removeOrphanOutputs(id: string, run: RunLog, status?: 'failed' | 'cancelled'): Promise<void> {
    const what = 'the stored outputs of a prediction that did not complete';
    if (status === undefined) {
      let current: Prediction | undefined;
      try {
        current = await findPredictionById(app.db, id);
      } catch (err) {
        run.log.warn({ id, storage: app.storage.kind, err: (err as Error).message }, `could not remove ${what}`);
        return;
      }
      // (a row that is gone lists nothing either)
      if (current && current.status !== 'cancelled' && current.status !== 'failed') return;
    }
    await removeOutputsLogged(app.storage, run.log, id, what);
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
   * A language model's answer is charged by its usage (spec/pricing.ts usagePrice, as POST
   * /v1/chat/completions settles a call): the tokens the provider reported or, where it reported
   * none, counted as /v1 counts them (four bytes of the prompt and of the answer a token), at the
   * price rule the prediction was held by (a reload since may have repriced the model; one held
   * before the rule was kept: the model's price now).
   */
  async function usageCharge(p: Prediction, model: ModelInfo, files: readonly AdapterFile[], report: ProviderReport | undefined): Promise<UsageCharge> {
    const parts: string[] = [];
    for (const f of files) parts.push(f.data ? Buffer.from(f.data).toString('utf8') : await fs.readFile(f.path, 'utf8'));
    const text = parts.join('');
    const kept = p.price > 0 ? await heldPriceRule(app.db, p.id) : null;
    const rule = kept === null ? model.price : storedPriceRule(kept);
    const tokens: InlineUsage = report?.usage ? { ...report.usage, source: 'reported' } : { ...countedTokens(rule.tokens, p.input, text), source: 'counted' };
    const held = { price: p.price, listPrice: p.billing?.listPrice ?? p.price, discountPercent: p.billing?.discountPercent ?? null, studioMarkup: p.studioId === null ? 0 : p.studioMarkup };
    return { ...usagePrice(rule, p.input, tokens, held), usage: tokens, text };
  }

  /**
   * Stores one output. A store that fails (a timeout, a full disk, S3 refusing) is the gateway's
   * own fault, not the model's, and usually passes: a retryable error, so the run is tried again
   * as after a provider's blip (a local run: its message is retried; a provider's finished job:
   * its next poll downloads and stores the outputs again, without a new submit).
   */
  async function save(p: Prediction, index: number, file: AdapterFile, run: RunLog): Promise<string> {
    try {
      return await app.storage.save(p.id, index, file);
    } catch (err) {
      run.log.warn({ id: p.id, model: p.model, output: index, storage: app.storage.kind, err: (err as Error).message, code: (err as NodeJS.ErrnoException).code ?? (err as Error).name }, 'could not store an output');
      throw new AdapterError('the outputs were made but the gateway could not store them; nothing was charged', true, { code: 'output_not_stored' });
    }
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
      for (const [i, file] of typed.entries()) keys.push(await save(p, i, file, run));
    } catch (err) {
      // Gone before the failure is recorded: whoever sees it failed finds nothing left behind.
      await removeTemporary(result.files);
      throw err;
    }
    // beside the charge, in its transaction: what the run cost at its provider (nothing charged if
    // the completion is not recorded: cancelled meanwhile, the provider ran it all the same)
    const cost = costOfRun(p, model, result.report);
    const done = await store.complete({ p, result: { outputs: keys, nsfw: result.files.map((f) => f.nsfw === true), inferenceMs: result.inferenceMs }, now: app.clock(), cost, ...(usage ? { usage } : {}) });
    if (done.recorded) metrics.predictions.inc({ model: p.model, outcome: 'completed' });
    // An earlier attempt may have stored files under other names (another type, more outputs)
    // before it failed: the row lists only this run's, so retention would never find the rest.
    if (done.recorded && p.attempts > 1) await removeOutputsLogged(app.storage, run.log, p.id, 'the outputs an earlier attempt stored under other names', { keep: keys });
    run.log.info({ id: p.id, model: p.model, recorded: done.recorded, inferenceMs: Math.round(result.inferenceMs) }, 'prediction completed');
    // Not confirmed now? The delivery row exists, so the sweeper publishes it later.
    if (done.deliveryId) await app.dispatcher.dispatchWebhook(done.deliveryId, run.reqId);
    // Not recorded: the row was no longer processing. Cancelled or failed meanwhile, nothing will
    // ever list the files just stored; completed by another run (a takeover), they are its
    // outputs too (the same keys), and pending again (another run's retry), it may still complete.
    if (!done.recorded && keys.length > 0) await removeOrphanOutputs(p.id, run);
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
  const upstream = createUpstreamJobs(app, { adapterFor, finish, fail, onError, tracked, timed, costOfRun, removeOrphanOutputs, runLogOf: (body) => runLogOf(app, body), modelRef, handBack: HAND_BACK, breaker });

  async function handle(delivery: Delivery<PredictionMessage | PollMessage>): Promise<Outcome> {
    metrics.workerInFlight.inc({ topic: 'predictions' });
    try {
      return await handleMessage(delivery);
    } catch (err) {
      // The queue dead-letters a last attempt that throws, and no later message comes for it.
      if (delivery.attempt >= MAX_RETRIES && !isPollMessage(delivery.body)) await failAbandoned(delivery.body, err);
      throw err;
    } finally {
      metrics.workerInFlight.dec({ topic: 'predictions' });
    }
  }

  /**
   * The last attempt of a prediction threw (the database failed the write that retries or fails
   * it, usually): its message goes to the dead-letter queue and no later one comes, so a row it
   * left `processing` would keep its hold for ever (a `pending` one is published again by the
   * sweeper, and an upstream job's chain too). It is failed here, once (the store's transition
   * is conditional), nothing charged. Best effort: a database still down leaves it to an operator.
   */
  async function failAbandoned(body: unknown, cause: unknown): Promise<void> {
    const id = (body as { id?: unknown } | null)?.id;
    if (typeof id !== 'string') return;
    const run = runLogOf(app, body);
    try {
      const p = await findPredictionById(app.db, id);
      if (p?.status !== 'processing' || p.upstreamJob) return;
      await fail(p, 'internal error while running the model; nothing was charged', null, run);
    } catch (err) {
      run.log.error({ id, err: (err as Error).message, cause: (cause as Error)?.message }, 'a prediction whose retries are exhausted could not be failed: it stays processing with its hold until it is failed by hand');
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
    // whose message seemed lost: `swept`, its attempt carrying on the row's) finds it running or
    // finished and is acknowledged unused.
    // A first delivery carries the submit's ticket, handed back to the store unread.
    const retryCopy = delivery.attempt > 0 && (body as PredictionMessage).swept !== true;
    const p = await store.claim({ id, now: app.clock(), takeOver: delivery.redelivered || retryCopy, ticket: (body as { ticket?: unknown }).ticket });
    // Unknown, running elsewhere, finished or cancelled: nothing to do, and nothing to charge. A
    // retry or a redelivery may find its prediction cancelled after an earlier attempt stored
    // some outputs (then failed retryably, or its worker died): those go. (Not for a first copy:
    // no run stored anything before it.)
    if (!p) {
      if (delivery.attempt > 0 || delivery.redelivered) await removeOrphanOutputs(id, run);
      return { kind: 'ack' };
    }
    // webhook_events_filter (workers/deliver-webhook.ts, part 6): the events its webhook asked for, if any;
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

// ---- 2. Progress
// What a run in this process (a local adapter) reports as it goes, written to its prediction at
// most once per RUN_PROGRESS_WRITE_MS (default 1 s): an adapter may report every step, and the hot
// path must not get a write per step. A run shorter than that writes nothing at all (nobody could
// have watched it); a longer one gets its last update written by `flush` before it ends, so its
// final lines are kept whatever the throttle held back. When the submit asked its webhook for
// events (`events`), the start and then an event after each write go out one after another, in a
// chain of their own (a slow receiver never holds the writes back; updates that come while one
// waits make one event), and `flush` waits for them too (workers/deliver-webhook.ts).

export interface ProgressReporter {
  report(update: RunUpdate): void;
  /** writes what is still held back (the run ended); resolves when written */
  flush(): Promise<void>;
  /** how many writes were made (tests and metrics) */
  readonly writes: number;
}

export function progressReporter(app: App, predictionId: string, opts: { intervalMs?: number; now?: () => number; events?: EventFilter | null } = {}): ProgressReporter {
  const events = opts.events ?? null;
  const interval = opts.intervalMs ?? app.config.runProgressWriteMs;
  const now = opts.now ?? (() => performance.now());
  const started = now();
  let logs: RunLogs | null = null;
  let progress: number | undefined;
  let dirty = false;
  let logsDirty = false;
  // the first write waits one interval from the start too
  let lastWrite = started;
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  let writes = 0;
  let sending: Promise<unknown> = events ? sendRunningEvent(app, predictionId, { kind: 'start' }, events) : Promise.resolve();
  // the update waiting for its turn in `sending`, if any: later writes join it
  let queued: { logs: boolean } | null = null;
  function queueEvent(logs: boolean): void {
    if (!events) return;
    if (queued) {
      queued.logs ||= logs;
      return;
    }
    const next = queued = { logs };
    sending = sending.then(() => {
      queued = null;
      return sendRunningEvent(app, predictionId, { kind: 'update', logs: next.logs }, events);
    });
  }

  function write(): Promise<void> {
    if (!dirty) return writing;
    dirty = false;
    const update = { ...(progress !== undefined ? { progress } : {}), ...(logsDirty && logs ? { logs: serializeRunLogs(logs) } : {}) };
    logsDirty = false;
    lastWrite = now();
    writes++;
    writing = writing.then(() => recordRunProgress(app.db, predictionId, update, app.clock())).catch((err: unknown) => {
      // progress is a courtesy: a failed write never fails the run
      app.log.warn({ id: predictionId, err: (err as Error).message }, 'could not record run progress');
    }).then(() => queueEvent(update.logs !== undefined));
    return writing;
  }

  return {
    report(update) {
      if (update.progress !== undefined && Number.isFinite(update.progress)) progress = Math.min(1, Math.max(0, update.progress));
      if (update.logs && update.logs.length > 0) {
        logs = appendLines(logs, update.logs, app.clock());
        logsDirty = true;
      }
      dirty = true;
      const wait = lastWrite + interval - now();
      if (wait <= 0) {
        clearTimeout(timer);
        timer = undefined;
        void write();
      } else if (timer === undefined) {
        timer = setTimeout(() => {
          timer = undefined;
          void write();
        }, wait);
        timer.unref();
      }
    },
    flush() {
      clearTimeout(timer);
      timer = undefined;
      // a run too short to have written anything leaves its row alone
      if (writes === 0 && now() - started < interval) return writing.then(() => sending).then(() => undefined);
      return write().then(() => sending).then(() => undefined);
    },
    get writes() {
      return writes;
    },
  };
}

// ---- 3. The output's type
// What an output file is, decided from its bytes, never from what the adapter or the upstream
// claims: the stored extension (and so the Content-Type /files/ serves) comes from here. The type
// must match the model's declared output kind (x-model.output), so an "image" that is really HTML
// or SVG fails the prediction instead of being served as markup from the API's origin.
//
// Binary formats are identified by their magic numbers (file-type). Text formats have none, so
// each kind that legitimately produces text has an explicit rule:
//   text     any valid UTF-8: stored as .json when it parses as JSON, else .txt (text/plain);
//   model3d  glTF JSON (a JSON object with asset.version) as .gltf, or Wavefront OBJ (UTF-8
//            whose lines are all OBJ statements or comments) as .obj;
//   image, video, audio: no text form is accepted (this is what refuses SVG and HTML).

export interface OutputType {
  contentType: string;
  extension: string;
}

/** what a detected MIME type must look like for each declared kind */
const BINARY_RULES: Readonly<Record<MediaKind, (mime: string) => boolean>> = {
  image: (mime) => mime.startsWith('image/'),
  video: (mime) => mime.startsWith('video/'),
  audio: (mime) => mime.startsWith('audio/'),
  model3d: (mime) => mime.startsWith('model/'),
  // A text model that returns a binary file has gone wrong.
  text: () => false,
};

const KIND_NAMES: Readonly<Record<MediaKind, string>> = {
  image: 'an image',
  video: 'a video',
  audio: 'an audio file',
  model3d: 'a 3D model',
  text: 'text',
};

/** text formats are judged on their first MiB: enough for a format check, bounded for memory */
const TEXT_SAMPLE_BYTES = 1024 * 1024;
const OBJ_STATEMENT = /^(#|v|vt|vn|vp|f|l|p|o|g|s|mtllib|usemtl|cstype|deg|curv|curv2|surf|parm|trim|hole|end)(\s|$)/;

async function sample(file: AdapterFile): Promise<Uint8Array> {
  if (file.data) return file.data.subarray(0, TEXT_SAMPLE_BYTES);
  const handle = await fs.open(file.path, 'r');
  try {
    const buffer = new Uint8Array(TEXT_SAMPLE_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, TEXT_SAMPLE_BYTES, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** the text of a UTF-8 sample (a character cut at the sample's end is not an error), or null */
function utf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
  } catch {
    return null;
  }
}

function textType(kind: MediaKind, text: string, complete: boolean): OutputType | null {
  if (text.includes('\u0000')) return null;
  let json: unknown;
  let isJson = false;
  if (complete) {
    try {
      json = JSON.parse(text);
      isJson = true;
    } catch {
      // not JSON
    }
  }
  if (kind === 'text') return isJson ? { contentType: 'application/json', extension: 'json' } : { contentType: 'text/plain', extension: 'txt' };
  if (kind !== 'model3d') return null;
  if (isJson) {
    const asset = typeof json === 'object' && json !== null ? (json as { asset?: { version?: unknown } }).asset : undefined;
    return typeof asset?.version === 'string' ? { contentType: 'model/gltf+json', extension: 'gltf' } : null;
  }
  const lines = text.split(/\r?\n/);
  // The sample may end mid-line; that last piece is not judged.
  if (!complete) lines.pop();
  const statements = lines.map((line) => line.trim()).filter((line) => line !== '');
  if (statements.length === 0 || !statements.every((line) => OBJ_STATEMENT.test(line))) return null;
  return statements.some((line) => /^v\s/.test(line)) ? { contentType: 'model/obj', extension: 'obj' } : null;
}

/**
 * The stored type of output `index` of a model declaring `kind`; throws a non-retryable
 * AdapterError (shown to the user, code `output_rejected`) when the bytes are not that kind of file.
 */
export async function identifyOutput(file: AdapterFile, kind: MediaKind, index: number): Promise<OutputType> {
  const mismatch = (found: string) => new AdapterError(`output ${index + 1} is not ${KIND_NAMES[kind]} (its content is ${found}); it was not stored`, false, { code: 'output_rejected' });
  const size = file.data ? file.data.byteLength : (await fs.stat(file.path)).size;
  // Nothing in it: no kind of file, and for a text model no answer (the adapters read an empty
  // answer the same way when it comes inline), so it is never stored nor charged.
  if (size === 0) throw new AdapterError(`output ${index + 1} is empty; it was not stored`, false, { code: 'empty_result' });
  const detected = file.data ? await fileTypeFromBuffer(file.data) : await fileTypeFromFile(file.path);
  if (detected) {
    if (!BINARY_RULES[kind](detected.mime)) throw mismatch(detected.mime);
    return { contentType: detected.mime, extension: detected.ext };
  }
  const bytes = await sample(file);
  const text = utf8(bytes);
  if (text === null) throw mismatch('of an unknown type');
  const type = textType(kind, text, bytes.byteLength === size);
  if (!type) throw mismatch(/^\s*</.test(text) ? 'markup (HTML, SVG or XML)' : 'text');
  return type;
}

// ---- 4. The provider's cost
// What a run cost the operator at its provider (docs/operating/model-files.md, "Provider cost and
// margin"): the cost the provider's answer reports, else the provider's cost rule applied to the
// input (a token rule to the usage reported), else unknown. The gateway's own adapters cost it
// nothing at a provider. Pure.

export interface RunCost {
  cost: number | null;
  source: 'reported' | 'rule' | 'local' | 'unknown';
}

/** `model` as the provider that ran it runs it (upstream-jobs.ts runBy): its own cost rule. */
export function runCost(model: Pick<ModelInfo, 'adapterKind' | 'cost'>, input: Readonly<Record<string, unknown>>, report?: ProviderReport): RunCost {
  if (model.adapterKind === 'local') return { cost: 0, source: 'local' };
  const usd = report?.costUsd;
  // rounded to a millionth of a credit first: 0.035 * 1000 is 35.000000000000004 in binary
  if (typeof usd === 'number' && Number.isFinite(usd) && usd >= 0) return { cost: Math.ceil(Math.round(usd * CREDITS_PER_USD * 1e6) / 1e6), source: 'reported' };
  if (model.cost) {
    try {
      return { cost: computePriceBreakdown(model.cost, input, report?.usage).total, source: 'rule' };
    } catch (err) {
      // a cost the rule cannot give exactly (an absurd usage reported) is not recorded as a number
      if (!(err instanceof PriceError)) throw err;
    }
  }
  return { cost: null, source: 'unknown' };
}
