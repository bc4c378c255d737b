// Getting accepted work onto the queue, and keeping it there.
// Predictions: persisted as `queued` before they are published; once the broker confirms the
// publish they become `pending` (batched: one UPDATE for many confirms). Anything still `queued`
// after a grace period (broker down at submit, API process died before the confirm) is
// published again by the sweeper; duplicates are harmless because workers claim rows with a
// conditional UPDATE. A request `pending` (confirmed, unclaimed) for longer than
// PENDING_REPUBLISH_AFTER_MS may have lost its message (a purged queue, a broker that lost
// it): it is published again too; a copy that finds it running or finished is ignored. Webhook deliveries: created in the transaction that finishes their
// prediction; a pending delivery long past its due time lost its message and is published again.
// With the in-process queue, messages die with the process, so on start every unfinished
// prediction and pending delivery is published again.
// A copy published again carries on the attempts its row records (sweptAttempt), so work that
// fails every time and loses its retry's message every time is still dead-lettered after its
// retries, not retried for ever.
import type { Db } from '../db/knex.ts';
import { findStalePending, findUnfinished, findUnpublished, releaseOrphanedClaims, touchPending } from '../db/predictions/sweeps.ts';
import { findStalledUpstream, touchUpstream } from '../db/predictions/upstream.ts';
import { findStalledDeliveries, touchDelivery } from '../db/webhooks.ts';
import type { Queue } from './queue/types.ts';
import { MAX_WEBHOOK_RETRIES } from './webhook-backoff.ts';
import type { Logger } from 'pino';

export interface IdMessage {
  id: string;
  /**
   * the X-Request-Id of the HTTP request that caused the work, for the consumers' log lines; the
   * sweeper's republished copies read it from the prediction row. Absent on messages of older versions
   */
  reqId?: string;
}
/**
 * `ticket`: what the store's submit answered for the first claim (Store.submit), carried as it is.
 * `events`: whether the submit asked for running webhook events (webhook_events_filter), so that a
 * worker looks for the filter only then. Both absent on the sweeper's copies (the worker looks).
 * `swept`: a copy the sweeper (or the in-process queue's recovery) published again, whose attempt
 * carries on the row's: unlike a retry copy it never takes over a running prediction (its
 * message was perhaps only late, and a worker has it). Its own retry copies leave it out.
 */
export type PredictionMessage = IdMessage & { ticket?: unknown; events?: boolean; swept?: true };
export type WebhookMessage = IdMessage;
/**
 * The next poll of an upstream job (workers/upstream-jobs.ts), on the predictions topic beside
 * PredictionMessage: published by the job's chain, and again by the sweeper when it was lost.
 */
export interface PollMessage {
  id: string;
  /** the number of this poll in the prediction's chain (the row's upstream_polls when it is current) */
  poll: number;
  /** consecutive retryable failures so far (a poll that fails this often fails the prediction) */
  failures?: number;
  /** the submitting request's X-Request-Id, passed down the chain (absent on the sweeper's copies) */
  reqId?: string;
}

/** A predictions message that is a poll of an upstream job, not a PredictionMessage. */
export function isPollMessage(body: unknown): body is PollMessage {
  if (typeof body !== 'object' || body === null) return false;
  const { id, poll } = body as { id?: unknown; poll?: unknown };
  return typeof id === 'string' && typeof poll === 'number' && Number.isSafeInteger(poll) && poll >= 0;
}

/**
 * The attempt a copy of work published again starts at: a prediction's runs so far (the row's
 * `attempts`, one per claim: a run its worker died in or handed back at shutdown counts too);
 * a webhook delivery's attempts in its current round (a redelivery starts a new round of
 * 1 + MAX_WEBHOOK_RETRIES; the row counts every round's, which are taken as whole rounds: after
 * one that ended early, at a `410`, the count is off by up to three either way, and such a round
 * whose messages are all lost ends after two to five attempts, never runs for ever). Exact
 * counts would need the round's start recorded on the row: a schema change.
 */
export function sweptAttempt(topic: 'predictions' | 'webhooks', attempts: number): number {
  const n = Number.isSafeInteger(attempts) && attempts > 0 ? attempts : 0;
  return topic === 'webhooks' ? n % (MAX_WEBHOOK_RETRIES + 1) : n;
}

export interface Dispatcher {
  /**
   * publishes a prediction, with the submit's ticket for its first claim (opaque: published as it
   * is); resolves true once confirmed, false if the queue could not take it now (the sweeper will)
   */
  dispatch(id: string, reqId?: string, ticket?: unknown, opts?: { events: boolean }): Promise<boolean>;
  /** publishes a webhook delivery, with the same guarantee */
  dispatchWebhook(id: string, reqId?: string): Promise<boolean>;
  /** publishes what lost its message; returns how many */
  sweep(): Promise<number>;
  /** in-process queue only: publishes every unfinished prediction and pending delivery after a restart */
  recover(): Promise<number>;
  start(sweepEveryMs: number): void;
  stop(): Promise<void>;
}

/** The prediction publishes started in one turn of the event loop (createDispatcher's publish). */
interface Cohort {
  /** publishes not settled yet */
  open: number;
  /** the turn ended: no more publishes join */
  closed: boolean;
  /** confirmed ones, waiting for the others */
  ids: string[];
}

/**
 * An inline call unsettled and silent this long lost its API process: a non-streamed call is
 * bounded far below it (2 x CHAT_UPSTREAM_TIMEOUT_MS at most), and a stream, which may run
 * longer, touches its row at least every INLINE_TOUCH_MS while chunks come (handlers/openai.ts).
 */
export const INLINE_ABANDONED_AFTER_MS = 30 * 60_000;

export function createDispatcher(deps: {
  db: Db;
  /** the store's confirm marker (db/store/types.ts Store.markPending) */
  store: {
    markPending(ids: readonly string[], now: number, opts?: { readFirst?: boolean }): Promise<void>;
    /** inline calls a stopped API process never settled (Store.failAbandonedInline) */
    failAbandonedInline?(silentBefore: number, now: number): Promise<number>;
  };
  queue: Queue; log: Logger; clock: () => number; graceMs?: number; markDelayMs?: number; webhookTimeoutMs?: number; pendingRepublishAfterMs?: number;
}): Dispatcher {
  const { db, store, queue, log, clock } = deps;
  const graceMs = deps.graceMs ?? 15_000;
  // never so long that the sweeper could take a confirmed row for an unpublished one
  const markDelayMs = Math.min(deps.markDelayMs ?? 0, Math.floor(graceMs / 2));
  const pendingAfterMs = deps.pendingRepublishAfterMs ?? 600_000;
  // A delivery attempt may legitimately run this long past its due time before it is recorded.
  const deliveryGraceMs = graceMs + (deps.webhookTimeoutMs ?? 15_000);
  const confirmed: string[] = [];
  let flushing: Promise<void> | null = null;
  /** ends the marker's wait early (stop), while it waits */
  let endMarkWait: (() => void) | null = null;
  let stopping = false;
  let cohort: Cohort | null = null;
  let timer: NodeJS.Timeout | null = null;
  let sweeping = false;

  /** The confirms gathered so far, after the marker's wait; those that come meanwhile wait for the next. */
  function scheduleFlush(): void {
    flushing ??= new Promise<void>((resolve) => {
      if (markDelayMs === 0 || stopping) return setImmediate(resolve);
      const wait = setTimeout(() => { endMarkWait = null; resolve(); }, markDelayMs);
      wait.unref();
      endMarkWait = () => { clearTimeout(wait); endMarkWait = null; resolve(); };
    }).then(flush);
  }

  async function flush(): Promise<void> {
    const due = confirmed.splice(0);
    for (let i = 0; i < due.length; i += 500) {
      const batch = due.slice(i, i + 500);
      try {
        await store.markPending(batch, clock(), { readFirst: markDelayMs > 0 });
      } catch (err) {
        // Losing this marker only means the sweeper may publish a duplicate later.
        log.warn({ err, count: batch.length }, 'could not mark predictions pending');
      }
    }
    flushing = null;
    if (confirmed.length) scheduleFlush();
  }

  // The publishes of predictions started in one turn of the event loop (the requests of one
  // submit batch, answered by one commit) form a cohort, whose confirms are marked together once
  // every one of its publishes has settled (confirmed, returned or its channel closed): their
  // confirms arrive within a round trip of each other but in several frames, and marked as they
  // came they took a statement each. Nobody waits for the marker (each client has its answer at
  // its own confirm), and while it waits the row is `queued`, which the sweeper leaves alone for
  // DISPATCH_GRACE_MS and a worker claims as it claims `pending`. So the marker waits
  // DISPATCH_MARK_DELAY_MS (2 s) first, gathering the cohorts confirmed meanwhile: a worker keeping
  // up has claimed most of their rows by then, and store.markPending writes only the rows still queued
  // (a backlog's), sparing MariaDB the write of a status that no one would have read.
  function joinCohort(): Cohort {
    if (cohort === null) {
      const c: Cohort = cohort = { open: 0, closed: false, ids: [] };
      setImmediate(() => {
        c.closed = true;
        if (cohort === c) cohort = null;
        release(c);
      });
    }
    cohort.open++;
    return cohort;
  }

  function release(c: Cohort): void {
    if (!c.closed || c.open > 0 || c.ids.length === 0) return;
    confirmed.push(...c.ids);
    c.ids = [];
    scheduleFlush();
  }

  /** `swept`: a copy published again, with the attempts its row records (sweptAttempt). */
  async function publish(topic: 'predictions' | 'webhooks', id: string, reqId?: string, ticket?: unknown, events?: boolean, swept?: { attempts: number }): Promise<boolean> {
    const c = topic === 'predictions' ? joinCohort() : null;
    let confirmedByQueue = true;
    const attempt = swept ? sweptAttempt(topic, swept.attempts) : 0;
    try {
      const body = { id, ...(reqId === undefined ? {} : { reqId }), ...(ticket === undefined ? {} : { ticket }), ...(events === undefined ? {} : { events }), ...(swept && topic === 'predictions' ? { swept: true as const } : {}) } satisfies PredictionMessage;
      await queue.publish(topic, body, attempt > 0 ? { attempt } : undefined);
    } catch (err) {
      log.warn({ err: (err as Error).message, topic, id, ...(reqId ? { reqId } : {}) }, 'publish not confirmed; the sweeper will retry');
      confirmedByQueue = false;
    }
    if (c !== null) {
      c.open--;
      if (confirmedByQueue) c.ids.push(id);
      release(c);
    }
    return confirmedByQueue;
  }

  /** Copies of work that lost its message, each carrying on its row's attempts. */
  async function publishAll(topic: 'predictions' | 'webhooks', items: ReadonlyArray<{ id: string; reqId: string | null; attempts: number }>): Promise<number> {
    let n = 0;
    for (const { id, reqId, attempts } of items) if (await publish(topic, id, reqId ?? undefined, undefined, undefined, { attempts })) n++;
    return n;
  }

  return {
    dispatch: (id, reqId, ticket, opts) => publish('predictions', id, reqId, ticket, opts?.events),
    dispatchWebhook: (id, reqId) => publish('webhooks', id, reqId),
    async sweep() {
      if (sweeping) return 0;
      sweeping = true;
      let n = 0;
      try {
        const now = clock();
        n += await publishAll('predictions', (await findUnpublished(db, now - graceMs, 500)).map((p) => ({ id: p.id, reqId: p.httpRequestId, attempts: p.attempts })));
        for (const { id, reqId, attempts } of await findStalePending(db, now - pendingAfterMs, 500)) {
          if (await publish('predictions', id, reqId ?? undefined, undefined, undefined, { attempts })) {
            await touchPending(db, id, clock());
            n++;
          }
        }
        // An upstream job polled through delayed messages touches its row at every poll; one left
        // alone this long lost its poll message (a purged queue, a worker that died between
        // moving the chain on and publishing): its current poll is published again.
        for (const { id, polls, reqId } of await findStalledUpstream(db, now - pendingAfterMs, 500)) {
          try {
            await queue.publish('predictions', reqId === null ? { id, poll: polls } : { id, poll: polls, reqId });
          } catch (err) {
            log.warn({ err: (err as Error).message, id }, 'could not republish a stalled upstream poll');
            continue;
          }
          await touchUpstream(db, id, clock());
          n++;
        }
        for (const { id, reqId, attempts } of await findStalledDeliveries(db, now - deliveryGraceMs, 500)) {
          if (await publish('webhooks', id, reqId ?? undefined, undefined, undefined, { attempts })) {
            await touchDelivery(db, id, clock(), now - deliveryGraceMs);
            n++;
          }
        }
        // An inline call (POST /v1/chat/completions) runs in an API process, a non-streamed one
        // within its bound and a stream touching its row as it goes; one unsettled and silent far
        // past that lost its process: failed, its hold released.
        const abandoned = await store.failAbandonedInline?.(now - INLINE_ABANDONED_AFTER_MS, clock()) ?? 0;
        if (abandoned) log.warn({ count: abandoned }, 'inline calls whose API process stopped were failed and their holds released');
      } finally {
        sweeping = false;
      }
      if (n) log.info({ count: n }, 'published work whose earlier publish was not confirmed');
      return n;
    },
    async recover() {
      // This process is the only worker of the in-process queue, and it is just starting: a row
      // still `processing` was left by the previous run (stopped mid-task) and nobody holds it.
      const orphaned = await releaseOrphanedClaims(db, clock());
      // inline calls of the previous run cannot be resumed: failed, their holds released
      const abandoned = await store.failAbandonedInline?.(clock() + 1, clock()) ?? 0;
      if (abandoned) log.info({ count: abandoned }, 'inline calls left by the previous run were failed and their holds released');
      if (orphaned) log.info({ count: orphaned }, 'predictions left processing by the previous run are pending again');
      let n = 0;
      let after = '';
      for (;;) {
        const batch = await findUnfinished(db, 500, after);
        if (batch.length === 0) break;
        n += await publishAll('predictions', batch.map((p) => ({ id: p.id, reqId: p.httpRequestId, attempts: p.attempts })));
        after = batch[batch.length - 1]!.id;
      }
      // Pending deliveries of any age: their messages (and delays) were in this process.
      n += await publishAll('webhooks', await findStalledDeliveries(db, Number.MAX_SAFE_INTEGER, 100_000));
      if (n) log.info({ count: n }, 'requeued unfinished work after restart');
      return n;
    },
    start(sweepEveryMs) {
      timer = setInterval(() => {
        this.sweep().catch((err: unknown) => log.warn({ err }, 'sweep failed'));
      }, sweepEveryMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      // a cohort of this turn whose publishes all settled is released at the turn's end; the
      // marker's wait ends now, and confirms that still come are marked without one
      await new Promise<void>((resolve) => setImmediate(resolve));
      stopping = true;
      endMarkWait?.();
      while (flushing) await flushing;
    },
  };
}
