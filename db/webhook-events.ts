// The events a prediction's webhook receives while it runs (migration 20261129_8101, lib/webhook-events.ts),
// and the row that orders and throttles them across processes. An event is sent only while
// holding the row's lease, taken by one conditional UPDATE that also checks the throttle and that
// the result's delivery has not begun (`closed`); the result's delivery closes the row, in one
// UPDATE too, before its first attempt and then waits out a lease still held. Both are writes to
// the one row, so the database orders them: no event can go out once the result's was tried.
import type { Db } from './knex.ts';
import { affected } from './knex.ts';
import { numOrNull } from './rows.ts';
import { eventsOf } from '../lib/webhook-events.ts';
import type { RunningEvent, WebhookEvent } from '../lib/webhook-events.ts';

export interface EventFilter {
  predictionId: string;
  url: string;
  events: WebhookEvent[];
}

/**
 * Written before the prediction is accepted; dropFilter takes it back when the submit is refused,
 * and once its result's first attempt may go (nothing is left to order then).
 */
export async function insertFilter(db: Db, f: EventFilter & { userId: number }, now: number): Promise<void> {
  await db('webhook_event_filters').insert({ prediction_id: f.predictionId, user_id: f.userId, url: f.url, events: f.events.join(','), created_at: now });
}

export async function dropFilter(db: Db, predictionId: string): Promise<void> {
  await db('webhook_event_filters').where({ prediction_id: predictionId }).delete();
}

export async function findFilter(db: Db, predictionId: string): Promise<EventFilter | undefined> {
  const row = await db('webhook_event_filters').where({ prediction_id: predictionId }).first<{ url: string; events: string } | undefined>('url', 'events');
  return row ? { predictionId, url: row.url, events: eventsOf(row.events) } : undefined;
}

/**
 * Takes the lease to send one event until `leaseUntil`; false when the result's delivery has
 * begun, another event is being sent, `start` was sent already, or (progress, logs) one was sent
 * less than `intervalMs` ago or, with `afterStart`, start has not gone yet (so that an update can
 * never take the lease from the start, which is sent once). A progress or logs event moves the
 * throttle's clock; `start` does not.
 */
export async function takeEventLease(db: Db, predictionId: string, event: RunningEvent, now: number, leaseUntil: number, opts: { intervalMs: number; afterStart: boolean }): Promise<boolean> {
  const q = db('webhook_event_filters').where({ prediction_id: predictionId, closed: false })
    .andWhere((w) => w.whereNull('lease_until').orWhere('lease_until', '<=', now));
  if (event === 'start') q.andWhere('start_sent', false);
  else {
    q.andWhere((w) => w.whereNull('last_update_at').orWhere('last_update_at', '<=', now - opts.intervalMs));
    if (opts.afterStart) q.andWhere('start_sent', true);
  }
  const n = await q.update(event === 'start' ? { lease_until: leaseUntil, start_sent: true } : { lease_until: leaseUntil, last_update_at: now });
  return affected(n) === 1;
}

/** Gives the lease back (only the one this sender took: a lease that ran out may be another's now). */
export async function releaseEventLease(db: Db, predictionId: string, leaseUntil: number): Promise<void> {
  await db('webhook_event_filters').where({ prediction_id: predictionId, lease_until: leaseUntil }).update({ lease_until: null });
}

/**
 * No event of this prediction starts from now on (its result is about to be sent). Answers until
 * when an event already under way may still be sending (null: none is), or undefined when the
 * prediction has no filter (one UPDATE matching nothing: every prediction without one).
 */
export async function closeEvents(db: Db, predictionId: string): Promise<number | null | undefined> {
  const n = await db('webhook_event_filters').where({ prediction_id: predictionId }).update({ closed: true });
  if (affected(n) === 0) return undefined;
  return eventLease(db, predictionId);
}

/** Until when the event under way may be sending; null when none is. */
export async function eventLease(db: Db, predictionId: string): Promise<number | null> {
  const row = await db('webhook_event_filters').where({ prediction_id: predictionId }).first<{ lease_until: number | string | null } | undefined>('lease_until');
  return row ? numOrNull(row.lease_until) : null;
}
