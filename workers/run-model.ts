// The run-model consumer: claim the prediction, run its adapter, store the files, record the
// outcome (and the money) in one transition, then acknowledge. Transport-free: it returns an
// Outcome and the queue maps it onto acks, delay queues and dead-lettering.
import type { App } from '../lib/context.ts';
import { claim, completePrediction, failPrediction, handBackPrediction, requeuePrediction } from '../db/predictions.ts';
import type { Prediction } from '../db/predictions.ts';
import { adapterRegistry } from './adapters/index.ts';
import { AdapterError } from './adapters/types.ts';
import type { Adapter, AdapterFile } from './adapters/types.ts';
import { removeTemporary } from './adapters/http-json.ts';
import { identifyOutput } from './output-type.ts';
import type { Delivery, Outcome } from './queue/types.ts';
import type { PredictionMessage } from './dispatch.ts';
import { isRequestId } from '../lib/request-id.ts';
import { seconds } from '../lib/metrics.ts';

/** Dead-lettering after three retries (the owner's rule for the predictions queue; app.ts topics()). */
export const MAX_RETRIES = 3;

/** older than any download can run (10 minutes) plus its move into place */
const STALE_TEMPORARY_MS = 60 * 60_000;
/** The abort reason of a worker shutting down: the prediction is handed back, not failed. */
export const HAND_BACK = 'worker shutting down: handing the prediction back';

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

  const { metrics } = app;

  async function fail(p: Prediction, message: string, log: App['log'], reqId: string | undefined): Promise<void> {
    const failed = await failPrediction(app.db, p, message, app.clock());
    if (failed.recorded) {
      metrics.predictions.inc({ model: p.model, outcome: 'failed' });
      log.info({ id: p.id, model: p.model, error: message }, 'prediction failed');
    }
    if (failed.deliveryId) await app.dispatcher.dispatchWebhook(failed.deliveryId, reqId);
  }

  async function handle(delivery: Delivery<PredictionMessage>): Promise<Outcome> {
    metrics.workerInFlight.inc({ topic: 'predictions' });
    try {
      return await run(delivery);
    } finally {
      metrics.workerInFlight.dec({ topic: 'predictions' });
    }
  }

  async function run(delivery: Delivery<PredictionMessage>): Promise<Outcome> {
    const id = delivery.body?.id;
    if (typeof id !== 'string') return { kind: 'dead-letter', reason: 'message without a prediction id' };
    // The submitting request's id, when the message carries one (older messages and the
    // sweeper's copies do not): every line about this run then names it.
    const reqId = isRequestId(delivery.body.reqId) ? delivery.body.reqId : undefined;
    const log = reqId ? app.log.child({ reqId }) : app.log;
    // A `processing` row is only taken over by a redelivery (its worker died holding the message)
    // or by a retry copy (published by the worker that held it, once its handler had returned,
    // e.g. after it threw). Any other copy of the message (the sweeper republished a request
    // whose message seemed lost) finds it running or finished and is acknowledged unused.
    const p = await claim(app.db, id, app.clock(), { fromProcessing: delivery.redelivered || delivery.attempt > 0 });
    // Unknown, running elsewhere, finished or cancelled: nothing to do, and nothing to charge.
    if (!p) return { kind: 'ack' };
    const model = app.spec.models.get(p.model);
    if (!model) {
      await fail(p, `model ${p.model} is no longer offered by this gateway`, log, reqId);
      return { kind: 'ack' };
    }
    const provider = { provider: model.upstream ?? 'local', adapter: model.adapter };

    const controller = new AbortController();
    running.add(controller);
    let produced: AdapterFile[] = [];
    const adapterStarted = Date.now();
    let adapterDone = false;
    try {
      const result = await adapterFor(model.adapter).run(p.input, {
        signal: controller.signal,
        predictionId: p.id,
        tempDir: app.storage.tempDir,
        model: {
          operationId: model.operationId,
          category: model.category,
          ...(model.upstream ? { upstream: model.upstream } : {}),
          ...(model.upstreamModel ? { upstreamModel: model.upstreamModel } : {}),
        },
      });
      adapterDone = true;
      metrics.adapterDuration.observe({ ...provider, outcome: 'ok' }, seconds(adapterStarted, Date.now()));
      produced = result.files;
      const keys: string[] = [];
      try {
        // The bytes decide the stored type, and it must be the kind of file the model declares.
        const typed: AdapterFile[] = [];
        for (const [i, file] of result.files.entries()) typed.push({ ...file, ...(await identifyOutput(file, model.output, i)) });
        for (const [i, file] of typed.entries()) keys.push(await app.storage.save(p.id, i, file));
      } catch (err) {
        // Gone before the failure is recorded: whoever sees it failed finds nothing left behind.
        await removeTemporary(produced);
        throw err;
      }
      const done = await completePrediction(app.db, p, { outputs: keys, nsfw: result.files.map((f) => f.nsfw === true), inferenceMs: result.inferenceMs }, app.clock());
      if (done.recorded) metrics.predictions.inc({ model: p.model, outcome: 'completed' });
      log.info({ id: p.id, model: p.model, recorded: done.recorded, inferenceMs: Math.round(result.inferenceMs) }, 'prediction completed');
      // Not confirmed now? The delivery row exists, so the sweeper publishes it later.
      if (done.deliveryId) await app.dispatcher.dispatchWebhook(done.deliveryId, reqId);
      return { kind: 'ack' };
    } catch (err) {
      if (controller.signal.aborted && controller.signal.reason === HAND_BACK) {
        // Shutdown past the grace period: not a failure. Back to pending, and the message goes
        // back to the queue for another worker.
        await handBackPrediction(app.db, p.id, app.clock());
        log.info({ id: p.id, model: p.model }, 'prediction handed back at shutdown');
        return { kind: 'requeue', reason: HAND_BACK };
      }
      const retryable = err instanceof AdapterError ? err.retryable : !controller.signal.aborted;
      const message = err instanceof AdapterError ? err.message : 'internal error while running the model';
      if (!adapterDone) {
        metrics.adapterDuration.observe({ ...provider, outcome: 'error' }, seconds(adapterStarted, Date.now()));
        metrics.adapterErrors.inc({ ...provider, retryable: String(retryable) });
      }
      if (!(err instanceof AdapterError)) log.error({ err, id: p.id }, 'unexpected error while running a model');
      if (retryable && delivery.attempt < MAX_RETRIES) {
        await requeuePrediction(app.db, p.id, message, app.clock());
        metrics.predictions.inc({ model: p.model, outcome: 'retried' });
        log.info({ id: p.id, model: p.model, attempt: delivery.attempt, error: message }, 'prediction will be retried');
        return { kind: 'retry', delayMs: delays[Math.min(delivery.attempt, delays.length - 1)]!, reason: message };
      }
      await fail(p, message, log, reqId);
      // Retries exhausted on a retryable error: keep the message for operators to inspect.
      return retryable ? { kind: 'dead-letter', reason: message } : { kind: 'ack' };
    } finally {
      running.delete(controller);
      // Whatever was not moved into storage is removed, whichever way the run ended.
      await removeTemporary(produced);
    }
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
