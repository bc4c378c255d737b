// Upstream jobs, advanced by polling through delayed queue messages (README "Providers"):
//
//   claim -> submit once -> record the provider's job on the row -> publish {id, poll: 1} delayed
//   poll message n -> one status call -> running: publish {id, poll: n+1} delayed, ack
//                                      -> succeeded: copy the outputs into storage, complete (debit);
//                                         a download or store that failed: the next poll copies again
//                                      -> failed: fail (the hold is released)
//
// No worker holds a message for the length of a job (RabbitMQ's consumer timeout would close
// its channel). The job id on the row means a restarted or redelivered claim resumes polling
// and never submits again. `upstream_polls` numbers the chain: a poll message whose number is
// not the row's is a stale duplicate and is dropped, so duplicate chains die out; a chain whose
// message was lost is published again by the sweeper (workers/dispatch.ts). A prediction
// cancelled by its owner is noticed by the next poll, which cancels the job at the provider.
//
// Failover (x-model.providers): the claim tries the model's configured providers in order and
// moves to the next only when a provider's circuit is open or it refused the submit with a
// retryable answer (HTTP 408/425/429/5xx, or no connection). A timeout is not a refusal (the
// provider may have accepted the job and the answer was lost), and nothing fails over once a
// job is recorded: polls, collection and cancel always go to the provider that took the job.
import type { App } from '../lib/context.ts';
import { findPredictionById } from '../db/predictions/record.ts';
import type { Prediction } from '../db/predictions/record.ts';
import type { RunCost } from '../db/provider-costs.ts';
import { FINISHED_UPSTREAM } from '../db/upstream-cancellations.ts';
import { sendRunningEventLater } from './deliver-webhook.ts';
import { advanceUpstreamPolls, recordRunLogs, recordUpstreamJob, rewindUpstreamPolls, setUpstreamStatus } from '../db/predictions/upstream.ts';
import { mergeWholeLog, parseRunLogs, serializeRunLogs } from '../lib/run-logs.ts';
import type { UpstreamProgress } from '../db/predictions/upstream.ts';
import { callbackUrlFor } from '../lib/upstream-callbacks.ts';
import type { ModelInfo, ProviderInfo } from '../spec/catalog.ts';
import type { CircuitBreaker } from './circuit-breaker.ts';
import { AdapterError } from './adapters/types.ts';
import { removeTemporary } from './adapters/types.ts';
import type { Adapter, AdapterFile, AdapterResult, JobAdapter, JobContext, JobState, ModelRef, ProviderReport } from './adapters/types.ts';
import type { Delivery, Outcome } from './queue/types.ts';
import type { PollMessage } from './dispatch.ts';

/**
 * Where a run's lines go: a child logger carrying the submitting request's id when the message
 * has one (older messages and the sweeper's copies do not), and that id for the next message.
 */
export interface RunLog {
  log: App['log'];
  reqId?: string;
}

/** What run-model lends this module: its adapters, and its one way to finish, fail and retry. */
export interface RunModelParts {
  adapterFor(name: string): Adapter;
  finish(p: Prediction, model: ModelInfo, result: AdapterResult, run?: RunLog): Promise<void>;
  /** with `cost`: the provider ran it (its outputs could not be kept), and its cost is recorded in the failure's transaction */
  fail(p: Prediction, message: string, code?: string | null, run?: RunLog, cost?: RunCost): Promise<void>;
  onError(p: Prediction, err: unknown, delivery: Delivery<unknown>, signal: AbortSignal, run?: RunLog): Promise<Outcome>;
  tracked<T>(body: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** one provider call, timed and counted in the adapter metrics */
  timed<T>(model: ModelInfo, signal: AbortSignal, call: () => Promise<T>): Promise<T>;
  /** what a run cost at its provider */
  costOfRun(p: Prediction, model: ModelInfo, report: ProviderReport | undefined): RunCost;
  /** best effort: removes what runs stored for a prediction that failed or was cancelled (`status`: known so; else read) */
  removeOrphanOutputs(id: string, run: RunLog, status?: 'failed' | 'cancelled'): Promise<void>;
  /** the run log of a message body (its reqId, if any) */
  runLogOf(body: unknown): RunLog;
  /** what the adapters are told about a model */
  modelRef(model: ModelInfo): ModelRef;
  /** the abort reason of a worker shutting down */
  handBack: string;
  /** this process's circuit breaker over the providers */
  breaker: CircuitBreaker;
}

/** The provider's name: its breaker circuit, the job's upstream_name, the metrics label. */
export function providerName(provider: ProviderInfo): string {
  return provider.upstream ?? provider.adapter;
}

/**
 * The model as run by one of its providers: the model with that provider's adapter, upstream,
 * model id and input mapping, so everything downstream reads one provider's fields.
 */
export function runBy(model: ModelInfo, provider: ProviderInfo): ModelInfo {
  const { adapter, adapterKind, upstream, upstreamModel, inputMap, fixedInput, mapping, cost } = provider;
  const { upstream: _u, upstreamModel: _m, inputMap: _i, fixedInput: _f, mapping: _p, cost: _c, ...rest } = model;
  return {
    ...rest, adapter, adapterKind,
    ...(upstream ? { upstream } : {}), ...(upstreamModel ? { upstreamModel } : {}),
    ...(inputMap ? { inputMap } : {}), ...(fixedInput ? { fixedInput } : {}), ...(mapping ? { mapping } : {}), ...(cost ? { cost } : {}),
  };
}

/** The model as run by the provider that took a job (found by name: the list may have been reordered since). */
export function runByNamed(model: ModelInfo, name: string): ModelInfo | undefined {
  const provider = model.providers.find((p) => providerName(p) === name);
  return provider ? runBy(model, provider) : undefined;
}

/** One provider the claim may submit to: the model as that provider runs it, and its job contract. */
export interface Candidate {
  model: ModelInfo;
  job: JobAdapter;
}

/**
 * What a failed call says about the provider's health: a retryable failure counts against its
 * circuit; an answer about the request (a refused input, a moderation refusal, our credentials)
 * shows the provider is up. Cancellation and a missing configuration say nothing.
 */
export function reportFailure(breaker: CircuitBreaker, name: string, err: unknown): void {
  if (!(err instanceof AdapterError)) return;
  if (err.retryable) breaker.failure(name);
  else if (err.code !== 'not_configured' && err.code !== 'upstream_cancelled') breaker.success(name);
}

/** A retryable submit error that means the provider did not take the job: the next provider may. */
function refused(err: unknown): err is AdapterError {
  return err instanceof AdapterError && err.retryable && err.code === 'upstream_unavailable';
}

/**
 * The longest inference time a prediction records (its inference_ms is a 32-bit column, about
 * 24 days). A provider's figure beyond it, or one that is not a number of milliseconds at all,
 * is not believed: the time the gateway measured is kept instead.
 */
const MAX_REPORTED_INFERENCE_MS = 2_147_483_647;

/** the provider's inference time when it can be recorded, else undefined */
function reportedInferenceMs(ms: number | undefined): number | undefined {
  return ms !== undefined && Number.isFinite(ms) && ms >= 0 && Math.round(ms) <= MAX_REPORTED_INFERENCE_MS ? ms : undefined;
}

/** a provider unreachable for this many polls in a row fails the prediction (nothing is charged) */
export const MAX_POLL_FAILURES = 5;

export function createUpstreamJobs(app: App, parts: RunModelParts) {
  const pollDelays = app.config.upstreamPollDelaysMs.length ? app.config.upstreamPollDelaysMs : [1000];
  const ack: Outcome = { kind: 'ack' };

  function context(p: Prediction, model: ModelInfo, signal: AbortSignal): JobContext & { tempDir: string } {
    // Only when UPSTREAM_CALLBACKS is on and the provider's signature can be checked (README "Providers").
    const callbackUrl = callbackUrlFor(app.config.upstreamCallbacks, model.adapter, p.id);
    return { signal, predictionId: p.id, model: parts.modelRef(model), tempDir: app.storage.tempDir, ...(callbackUrl ? { callbackUrl } : {}) };
  }

  /** the wait before poll n+1: the n-th configured delay (then the last), or longer if the provider asked */
  function delayAfter(poll: number, retryAfterMs?: number): number {
    return Math.max(pollDelays[Math.min(poll, pollDelays.length - 1)]!, retryAfterMs ?? 0);
  }

  /**
   * Moves the row's chain from n to n+1, then publishes poll n+1. In that order: published first,
   * poll n+1 could be delivered (to another consumer) before the row moved on, and be dropped as
   * stale. A worker that dies between the two leaves a chain with no message: the sweeper
   * publishes it again once the row has not been touched for PENDING_REPUBLISH_AFTER_MS.
   */
  async function schedule(id: string, poll: number, failures: number, delayMs: number, status: string, run: RunLog, onCancelled?: (p: Prediction) => Promise<void>, progress: UpstreamProgress = {}): Promise<Outcome> {
    if (!(await advanceUpstreamPolls(app.db, id, poll, status, app.clock(), progress))) {
      // Another copy of the chain moved it on first, or the owner cancelled while this poll was
      // asking the provider: no later poll will come to see the cancel, so the provider hears it here.
      const current = onCancelled ? await findPredictionById(app.db, id) : undefined;
      if (current?.status === 'cancelled') await onCancelled!(current);
      return ack;
    }
    // what the provider said of the run, to a webhook that asked for progress or logs events (not waited for)
    if (progress.progress != null || progress.queuePosition != null || progress.logs !== undefined) {
      sendRunningEventLater(app, id, { kind: 'update', logs: progress.logs !== undefined });
    }
    try {
      const next: PollMessage = run.reqId === undefined ? { id, poll: poll + 1, failures } : { id, poll: poll + 1, failures, reqId: run.reqId };
      await app.queue.publish('predictions', next, { delayMs });
    } catch (err) {
      // Put the chain back at n, so that this message (still current) is simply tried again later.
      await rewindUpstreamPolls(app.db, id, poll + 1);
      run.log.warn({ id, err: (err as Error).message }, 'could not schedule the next upstream poll');
      return { kind: 'retry', delayMs, reason: 'could not schedule the next upstream poll' };
    }
    return ack;
  }

  async function cancelAtProvider(p: Prediction, model: ModelInfo, job: JobAdapter, signal: AbortSignal, run: RunLog): Promise<void> {
    const upstreamJob = p.upstreamJob;
    if (!upstreamJob || FINISHED_UPSTREAM.has((upstreamJob.status ?? '').toLowerCase())) return;
    try {
      await job.cancel(upstreamJob.id, context(p, model, signal));
      await setUpstreamStatus(app.db, p.id, 'canceled');
      run.log.info({ id: p.id, provider: upstreamJob.provider }, 'upstream job cancelled at the provider');
    } catch (err) {
      // The provider finishes the job on its own; nothing is charged to the user either way.
      run.log.warn({ id: p.id, provider: upstreamJob.provider, err: (err as Error).message }, 'could not cancel the upstream job');
    }
  }

  /**
   * The row's log with what is new in the provider's whole log; undefined when nothing is new. It
   * rides on the write each poll makes anyway, so logs cost no extra statement while running.
   */
  function newLogs(p: Prediction, state: JobState): string | undefined {
    if (!state.logs) return undefined;
    const stored = parseRunLogs(p.logsText);
    const merged = mergeWholeLog(stored, state.logs, app.clock());
    return merged === null || merged === stored ? undefined : serializeRunLogs(merged);
  }

  /** Acts on what the provider said about the job whose chain is at `poll`. */
  async function advance(p: Prediction, model: ModelInfo, job: JobAdapter, state: JobState, poll: number, failures: number, signal: AbortSignal, run: RunLog): Promise<Outcome> {
    const logs = newLogs(p, state);
    // the last lines of a finished job, before the state that ends it is written
    if (state.kind !== 'running' && logs !== undefined) await recordRunLogs(app.db, p.id, logs);
    if (state.kind === 'failed') {
      await setUpstreamStatus(app.db, p.id, state.status);
      await parts.fail(p, state.error.message, state.error.code ?? 'upstream_failed', run);
      return ack;
    }
    if (state.kind === 'running') {
      const submittedAt = p.upstreamJob?.submittedAt ?? app.clock();
      if (app.clock() - submittedAt > app.config.upstreamMaxWaitMs) {
        await cancelAtProvider(p, model, job, signal, run);
        await parts.fail(p, `upstream "${model.upstream ?? ''}" did not finish within ${Math.round(app.config.upstreamMaxWaitMs / 60_000)} minutes`, 'upstream_timeout', run);
        return ack;
      }
      return schedule(p.id, poll, 0, delayAfter(poll, state.retryAfterMs), state.status, run,
        (current) => cancelAtProvider(current, model, job, signal, run),
        { queuePosition: state.queuePosition ?? null, progress: state.progress ?? null, ...(logs !== undefined ? { logs } : {}) });
    }
    await setUpstreamStatus(app.db, p.id, state.status);
    let files: AdapterFile[] = [];
    try {
      files = await job.collect(state.outputs, context(p, model, signal));
      const submittedAt = p.upstreamJob?.submittedAt ?? app.clock();
      await parts.finish(p, model, { files, inferenceMs: reportedInferenceMs(state.inferenceMs) ?? Math.max(0, app.clock() - submittedAt), ...(state.report ? { report: state.report } : {}) }, run);
      return ack;
    } catch (err) {
      if (signal.aborted && signal.reason === parts.handBack) return { kind: 'requeue', reason: parts.handBack };
      // A download that hit a blip, or the gateway's own storage that failed (output_not_stored):
      // the job is done upstream and its outputs stay there a while, so the next poll downloads
      // and stores them again (no new submit), up to MAX_POLL_FAILURES in a row. Not for a
      // provider that answers once, nor for a job finished in its submit's answer without an id:
      // there is nothing to poll again.
      if (err instanceof AdapterError && err.retryable && !job.answersOnce && state.answeredOnce !== true && failures + 1 < MAX_POLL_FAILURES) {
        // cancelled while collecting: no next poll comes, and the job is done at the provider;
        // what this collection stored goes
        return schedule(p.id, poll, failures + 1, delayAfter(poll, err.retryAfterMs), state.status, run,
          (current) => parts.removeOrphanOutputs(current.id, run, 'cancelled'));
      }
      // the provider ran it and charged for it (its cost is recorded); the user is not charged
      await parts.fail(p, err instanceof AdapterError ? err.message : 'internal error while storing the outputs', err instanceof AdapterError ? err.code ?? null : null, run,
        parts.costOfRun(p, model, state.report));
      if (!(err instanceof AdapterError)) run.log.error({ err, id: p.id }, 'unexpected error while storing upstream outputs');
      return ack;
    } finally {
      await removeTemporary(files);
    }
  }

  /** One poll of a job whose chain is at `poll` (the row is `processing` and its polls is `poll`). */
  async function pollOnce(p: Prediction, model: ModelInfo, job: JobAdapter, poll: number, failures: number, run: RunLog): Promise<Outcome> {
    const upstreamJob = p.upstreamJob!;
    return parts.tracked(async (signal) => {
      let state: JobState;
      try {
        state = await parts.timed(model, signal, () => job.poll(upstreamJob.id, context(p, model, signal)));
        parts.breaker.success(upstreamJob.provider);
      } catch (err) {
        reportFailure(parts.breaker, upstreamJob.provider, err);
        // Shutdown: the message goes back to the queue unchanged; its number is still current.
        if (signal.aborted && signal.reason === parts.handBack) return { kind: 'requeue', reason: parts.handBack } satisfies Outcome;
        if (err instanceof AdapterError && err.retryable && failures + 1 < MAX_POLL_FAILURES) {
          return schedule(p.id, poll, failures + 1, delayAfter(poll, err.retryAfterMs), upstreamJob.status ?? 'unknown', run);
        }
        // The job may still be running upstream: stop it, since nobody will collect it.
        if (err instanceof AdapterError && err.retryable) await cancelAtProvider(p, model, job, signal, run);
        await parts.fail(p, err instanceof AdapterError ? err.message : 'internal error while polling the upstream', err instanceof AdapterError ? err.code ?? null : null, run);
        if (!(err instanceof AdapterError)) run.log.error({ err, id: p.id }, 'unexpected error while polling an upstream job');
        return ack;
      }
      return advance(p, model, job, state, poll, failures, signal, run);
    });
  }

  return {
    /**
     * A claimed prediction of an upstream model: resume the job a previous claim submitted (with
     * the provider that took it, `resumed`), or submit it to the first candidate that takes it.
     */
    async start(p: Prediction, candidates: readonly Candidate[], delivery: Delivery<unknown>, run: RunLog, resumed?: Candidate): Promise<Outcome> {
      // Resumed (a restart, a redelivery, a hand-back): the provider already has the job.
      if (p.upstreamJob && resumed) return pollOnce(p, resumed.model, resumed.job, p.upstreamJob.polls, 0, run);
      return parts.tracked(async (signal) => {
        let submitted: { jobId: string; state: JobState } | undefined;
        let chosen: Candidate | undefined;
        let last: AdapterError | undefined;
        for (const [i, candidate] of candidates.entries()) {
          const name = providerName(candidate.model);
          const next = candidates[i + 1] ? providerName(candidates[i + 1]!.model) : undefined;
          if (!parts.breaker.allow(name)) {
            run.log.info({ id: p.id, provider: name, next }, 'upstream circuit open: provider skipped');
            last = new AdapterError(`upstream "${name}" is unavailable (it failed repeatedly; the gateway retries it shortly)`, true, { code: 'upstream_unavailable' });
            continue;
          }
          try {
            submitted = await parts.timed(candidate.model, signal, () => candidate.job.submit(p.input, context(p, candidate.model, signal)));
            parts.breaker.success(name);
            chosen = candidate;
            break;
          } catch (err) {
            reportFailure(parts.breaker, name, err);
            if (signal.aborted || !refused(err)) return parts.onError(p, err, delivery, signal, run);
            last = err;
            if (next !== undefined) run.log.warn({ id: p.id, provider: name, next, err: err.message }, 'upstream refused the submit: failing over');
          }
        }
        if (!submitted || !chosen) {
          return parts.onError(p, last ?? new AdapterError('no upstream provider of this model is configured', false, { code: 'not_configured' }), delivery, signal, run);
        }
        const model = chosen.model;
        const job = chosen.job;
        const provider = providerName(model);
        // A job this claim could not record is stopped at the provider. Nothing is written to the
        // row: it holds no job, or another claim's, whose status is not this one's.
        const jobId = submitted.jobId;
        const unrecorded = async (): Promise<void> => {
          if (submitted!.state.kind !== 'running') return;
          try {
            await job.cancel(jobId, context(p, model, signal));
            run.log.info({ id: p.id, provider }, 'unrecorded upstream job cancelled at the provider');
          } catch (err) {
            run.log.warn({ id: p.id, provider, err: (err as Error).message }, 'could not cancel the unrecorded upstream job');
          }
        };
        let recorded: boolean;
        try {
          recorded = await recordUpstreamJob(app.db, p.id, { provider, id: submitted.jobId, status: submitted.state.status, ...(model.upstreamModel ? { model: model.upstreamModel } : {}) }, app.clock());
        } catch (err) {
          // The provider took the job and the database refused to record it: the next attempt
          // cannot know it exists and submits again, so this one is stopped at the provider (it
          // would run, and be billed to the operator, beside the one recorded).
          run.log.warn({ id: p.id, provider, err: (err as Error).message }, 'could not record the upstream job: cancelling it at the provider');
          await unrecorded();
          return parts.onError(p, new AdapterError('the gateway could not record the provider\'s job; the prediction is tried again', true), delivery, signal, run);
        }
        // Cancelled while submitting (or another claim recorded a job first): stop this one.
        if (!recorded) {
          await unrecorded();
          return ack;
        }
        run.log.info({ id: p.id, provider, upstreamModel: model.upstreamModel, status: submitted.state.status }, 'upstream job submitted');
        const current: Prediction = { ...p, upstreamJob: { provider, id: submitted.jobId, status: submitted.state.status, polls: 0, submittedAt: app.clock(), queuePosition: null, progress: null } };
        return advance(current, model, job, submitted.state, 0, 0, signal, run);
      });
    },

    /** A poll message: one status call, then the next message, the outputs, or the failure. */
    async poll(message: PollMessage, _delivery: Delivery<unknown>): Promise<Outcome> {
      const run = parts.runLogOf(message);
      const p = await findPredictionById(app.db, message.id);
      if (!p?.upstreamJob) return ack;
      const listed = app.spec.models.get(p.model);
      const model = listed ? runByNamed(listed, p.upstreamJob.provider) : undefined;
      const job = model ? parts.adapterFor(model.adapter).job : undefined;
      if (!model || !job) {
        // The spec changed under a running job: nobody can poll it any more.
        if (p.status === 'processing') await parts.fail(p, `model ${p.model} is no longer served by an upstream adapter`, 'not_configured', run);
        return ack;
      }
      if (p.status === 'cancelled') {
        // The owner cancelled: the provider should stop too. What the provider already ran is
        // the operator's cost; the user's hold was released by the cancel.
        await parts.tracked((signal) => cancelAtProvider(p, model, job, signal, run));
        // a collection that failed (the storage failing on a later output) may have stored the
        // first ones; a chain with no failure behind it only ever found the job running
        if ((message.failures ?? 0) > 0) await parts.removeOrphanOutputs(p.id, run, 'cancelled');
        return ack;
      }
      if (p.status !== 'processing' || p.upstreamJob.polls !== message.poll) return ack;
      return pollOnce(p, model, job, message.poll, message.failures ?? 0, run);
    },
  };
}
