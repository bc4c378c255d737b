// Webhooks in the database, in three parts:
// - secrets: the owner's signing secrets, created on first use and rotated;
// - deliveries: creating a prediction's delivery (in the store's transaction that finishes it),
//   then its attempts, the owner's delivery log, reopening and the sweeper's stalled ones;
// - running events: the event filter a submit asks for and the lease row that orders the
//   start/progress/logs events before the result's delivery.
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Db } from './knex.ts';
import { affected, isMysql, iso, num, numOrNull } from './knex.ts';
import { newWebhookSecret, seal, unseal } from '../lib/secrets.ts';
import { metadataOf, predictionFromRow } from './predictions/record.ts';
import type { Prediction } from './predictions/record.ts';
import type { ProviderMetadata } from '../lib/prediction-view.ts';
import { ownerWhere } from './owner.ts';
import type { Owner } from './owner.ts';
import { insertHead, rowsInsert } from './sql.ts';
import { withLockRetry } from './retry.ts';
import { eventsOf } from '../lib/webhook-events.ts';
import type { RunningEvent, WebhookEvent } from '../lib/webhook-events.ts';

export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export type DeliveryStatus = 'pending' | 'delivered' | 'gone' | 'dead';

export interface Delivery {
  id: string;
  predictionId: string;
  userId: number;
  url: string;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
}

export interface Attempt {
  number: number;
  startedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  /** the first bytes of the receiver's answer, as text */
  responseExcerpt: string | null;
}

/** A prediction's deliveries and their attempts, or an alert's (migration 20261129_8001). */
export interface DeliveryTables { deliveries: string; attempts: string }
export const PREDICTION_DELIVERIES: DeliveryTables = { deliveries: 'webhook_deliveries', attempts: 'webhook_attempts' };
export const ALERT_DELIVERIES: DeliveryTables = { deliveries: 'alert_deliveries', attempts: 'alert_delivery_attempts' };

interface DeliveryRow {
  id: string; prediction_id: string; user_id: number; url: string; status: string; attempts: number;
  last_status_code: number | null; last_error: string | null; created_at: number | string;
}

function toDelivery(r: DeliveryRow): Delivery {
  return {
    id: r.id, predictionId: r.prediction_id, userId: num(r.user_id), url: r.url, status: r.status as DeliveryStatus,
    attempts: num(r.attempts), lastStatusCode: numOrNull(r.last_status_code), lastError: r.last_error, createdAt: iso(r.created_at),
  };
}


// ------------------------------------------------------------------ secrets

/**
 * Where an owner's secrets live, and the row that serialises their creation and rotation: the
 * account's, or the team's own (a team prediction is never signed with a member's secret: one who
 * left the team would still hold it). Migration 20261129_0101.
 */
function secretStore(owner: Owner): { table: string; column: string; id: number; lock: string } {
  return owner.teamId === null
    ? { table: 'webhook_secrets', column: 'user_id', id: owner.userId, lock: 'users' }
    : { table: 'team_webhook_secrets', column: 'team_id', id: owner.teamId, lock: 'teams' };
}

/**
 * Which of the owner's two sets of secrets: production (`sandbox` false) signs its production
 * predictions' and its alerts' deliveries; sandbox signs its sandbox predictions' (is_test) and is
 * the one a sandbox key may read and rotate, so that a leaked sandbox key can never forge a
 * production delivery (migration 20261201_0801). Each set has its own current and previous secret.
 */
export type SecretMode = { sandbox: boolean };

/**
 * Secrets that currently sign the owner's deliveries of `mode`, newest first; creates the first
 * one on demand. Empty only for a deleted team (its secrets went with it, and none is made again).
 */
export async function activeSecrets(db: Db, owner: Owner, mode: SecretMode, key: Buffer, now: number): Promise<Array<{ secret: string; createdAt: number; expiresAt: number | null }>> {
  const store = secretStore(owner);
  const rows = await db(store.table).where(store.column, store.id).andWhere('is_test', mode.sandbox)
    .andWhere((q) => q.whereNull('expires_at').orWhere('expires_at', '>', now)).orderBy('id', 'desc');
  if (rows.length === 0) {
    // Two first uses at once must not create two secrets: the owner's row serialises them. A
    // deadlock victim (a rotation or take-back of the same owner, or a metadata lock) tries again.
    const created = await withLockRetry(() => db.transaction(async (trx) => {
      const live = await trx(store.lock).where('id', store.id).modify((q) => { if (owner.teamId !== null) q.whereNull('deleted_at'); }).forUpdate().first('id');
      if (!live) return false;
      const existing = await trx(store.table).where(store.column, store.id).andWhere('is_test', mode.sandbox).first('id');
      if (!existing) await trx(store.table).insert({ [store.column]: store.id, is_test: mode.sandbox, secret_enc: seal(newWebhookSecret(), key), created_at: now });
      return true;
    }));
    return created ? activeSecrets(db, owner, mode, key, now) : [];
  }
  return rows.map((r: { secret_enc: string; created_at: number | string; expires_at: number | string | null }) => ({
    secret: unseal(r.secret_enc, key), createdAt: num(r.created_at), expiresAt: numOrNull(r.expires_at),
  }));
}

/**
 * Issues a new secret of `mode`. The one it replaces keeps signing for 24 hours so receivers can
 * switch over; every older one is dropped, so an owner has at most two secrets of each mode
 * however often it rotates (issue 16: 400 rotations made every delivery carry 400 signatures).
 * The other mode's secrets are untouched.
 */
export async function rotateSecret(db: Db, owner: Owner, mode: SecretMode, key: Buffer, now: number): Promise<string> {
  return db.transaction((trx) => replaceSecret(trx, owner, mode, key, now, { keepPrevious: true }));
}

/**
 * Both modes' secrets replaced with no overlap, inside the caller's transaction (an account
 * taken back from whoever registered it, or "sign out everywhere": whoever held a production or
 * a sandbox credential may have read either secret).
 */
export async function replaceAllSecrets(trx: Db, owner: Owner, key: Buffer, now: number): Promise<void> {
  for (const sandbox of [false, true]) await replaceSecret(trx, owner, { sandbox }, key, now, { keepPrevious: false });
}

/**
 * Replaces the owner's signing secrets of `mode` with a new one, inside the caller's transaction.
 * keepPrevious false drops every earlier secret of the mode at once (an account taken back from
 * whoever registered it: they may have read the old one).
 */
export async function replaceSecret(trx: Db, owner: Owner, mode: SecretMode, key: Buffer, now: number, opts: { keepPrevious: boolean }): Promise<string> {
  const store = secretStore(owner);
  const mine = (q: Knex.QueryBuilder) => { q.where(store.column, store.id).andWhere('is_test', mode.sandbox); };
  // Two rotations at once must not both keep "the current one": the owner's row serialises them.
  await trx(store.lock).where('id', store.id).forUpdate().first('id');
  const current = opts.keepPrevious
    ? await trx(store.table).where(mine)
      .andWhere((q) => q.whereNull('expires_at').orWhere('expires_at', '>', now)).orderBy('id', 'desc').first<{ id: number; expires_at: number | string | null } | undefined>('id', 'expires_at')
    : undefined;
  // The new secret first, then the older ones go: those below it in the owner's index range (the
  // owner's and the mode's: the index is (owner, is_test, id)), so the DELETE's locks stop at the
  // new row and never reach the gap after the range. The other order deadlocked on MariaDB: a
  // DELETE of an owner with no older secret locked the gap at the end of the index, and two new
  // accounts' first resets then each waited to insert into it. On MariaDB/MySQL the owner's index
  // is forced: on a small table the planner would scan the primary key and lock every owner's rows.
  const secret = newWebhookSecret();
  const [inserted] = await trx(store.table).insert({ [store.column]: store.id, is_test: mode.sandbox, secret_enc: seal(secret, key), created_at: now });
  const newId = num(inserted);
  if (isMysql(trx)) {
    await trx.raw(`delete s from ${store.table} s force index (${store.table}_${store.column}_is_test_id_index) where s.${store.column} = ? and s.is_test = ? and s.id < ?${current ? ' and s.id <> ?' : ''}`,
      [store.id, mode.sandbox, newId, ...(current ? [current.id] : [])]);
  } else {
    await trx(store.table).where(mine).andWhere('id', '<', newId).modify((q) => { if (current) q.whereNot('id', current.id); }).delete();
  }
  if (current) {
    const expiresAt = Math.min(numOrNull(current.expires_at) ?? Infinity, now + ROTATION_OVERLAP_MS);
    await trx(store.table).where('id', current.id).update({ expires_at: expiresAt });
  }
  return secret;
}

// ------------------------------------------------------------------ deliveries

// Creating webhook deliveries: the transitions that finish a prediction (the store, db/store/)
// create them.

/** The Standard Webhooks message id: `msg_` + 144 random bits. */
export function newDeliveryId(): string {
  return `msg_${crypto.randomBytes(18).toString('base64url')}`;
}

/** A delivery row to create: the prediction it reports and where it goes. */
export interface NewDelivery {
  id: string;
  predictionId: string;
  userId: number;
  url: string;
}

const DELIVERY_COLUMNS = ['id', 'prediction_id', 'user_id', 'url', 'status', 'attempts', 'next_attempt_at', 'created_at', 'updated_at'] as const;
const insertRows = rowsInsert('webhook_deliveries', DELIVERY_COLUMNS);
const deliveryRow = (d: NewDelivery & { now: number }): Knex.RawBinding[] => [d.id, d.predictionId, d.userId, d.url, 'pending', 0, d.now, d.now, d.now];

/** Called in the transaction that finishes the prediction, so a finished prediction never lacks its delivery. */
export async function insertDelivery(trx: Knex, d: NewDelivery, now: number): Promise<void> {
  await insertDeliveries(trx, [{ ...d, now }]);
}

/** insertDelivery for several finished predictions (a worker's completion group), each at its own time, in one fixed INSERT (db/sql.ts rowsInsert). */
export async function insertDeliveries(trx: Knex, ds: ReadonlyArray<NewDelivery & { now: number }>): Promise<void> {
  if (ds.length === 0) return;
  await insertRows(trx, ds.map(deliveryRow));
}

const NESTED_INSERT = `${insertHead('webhook_deliveries', DELIVERY_COLUMNS)}?`;

/** MariaDB/MySQL: insertDeliveries as SQL text and its one binding (the rows, nested), for a statement that holds more (db/store/mariadb/complete-group.ts). */
export function deliveriesInsertSql(ds: ReadonlyArray<NewDelivery & { now: number }>): { sql: string; binding: Knex.RawBinding } {
  // knex types no array of arrays as a binding; mysql2 writes it as the rows' value lists
  return { sql: NESTED_INSERT, binding: ds.map(deliveryRow) as unknown as Knex.RawBinding };
}

// Attempting them, the owner's delivery log, reopening, and the sweeper's stalled ones.

/** A delivery still to send, the prediction it reports, and what its body and its running events need. */
export interface PendingDelivery {
  delivery: Delivery;
  prediction: Prediction;
  /** what the provider said of the completed result (prediction_costs.metadata) */
  providerMetadata?: ProviderMetadata;
  /** whether the prediction was submitted with webhook_events_filter (a webhook_event_filters row) */
  eventFilter: boolean;
  /** when its next attempt is due (epoch ms): a copy of its message that comes earlier is a duplicate */
  nextAttemptAt: number;
  /** a team prediction's whose team was deleted: nothing is signed for it any more */
  teamDeleted: boolean;
}

/** A pending delivery with its prediction, in one query (the delivery worker's hot path). */
export async function findPendingDelivery(db: Db, id: string): Promise<PendingDelivery | undefined> {
  const row = await db('webhook_deliveries as d')
    .join('predictions as p', 'p.id', 'd.prediction_id')
    // in the same read: what the provider said of the result, and whether running events were asked for
    .leftJoin('prediction_costs as c', 'c.prediction_id', 'd.prediction_id')
    .leftJoin('webhook_event_filters as f', 'f.prediction_id', 'd.prediction_id')
    // read here, not from the signing secrets: a worker holds those for a few seconds
    .leftJoin('teams as t', 't.id', 'p.team_id')
    .select('p.*', 'd.id as d_id', 'd.url as d_url', 'd.status as d_status', 'd.attempts as d_attempts',
      'd.last_status_code as d_last_status_code', 'd.last_error as d_last_error', 'd.created_at as d_created_at',
      'd.next_attempt_at as d_next_attempt_at', 'c.metadata as c_metadata', 'f.prediction_id as f_prediction_id', 't.deleted_at as t_deleted_at')
    .where('d.id', id).andWhere('d.status', 'pending')
    .first<Record<string, unknown> | undefined>();
  if (!row) return undefined;
  const prediction = predictionFromRow(row);
  return {
    prediction,
    // kept for a completed prediction only, as the result route shows it
    ...(prediction.status === 'completed' ? metadataOf(row.c_metadata as string | null) : {}),
    eventFilter: row.f_prediction_id != null,
    nextAttemptAt: num(row.d_next_attempt_at),
    teamDeleted: row.t_deleted_at != null,
    delivery: toDelivery({
      id: String(row.d_id), prediction_id: prediction.id, user_id: prediction.userId, url: String(row.d_url), status: String(row.d_status),
      attempts: num(row.d_attempts), last_status_code: row.d_last_status_code as number | null, last_error: row.d_last_error as string | null,
      created_at: row.d_created_at as number | string,
    }),
  };
}

/**
 * Records attempt number `a.number`, then the delivery's new state, when the delivery is still
 * pending with the attempt before it recorded; false (the attempt taken back out of the log) when
 * another copy of its message recorded this attempt first: two copies sent at once leave one state
 * and one retry chain. The attempt goes in first, so that whoever reads the new state finds the
 * attempt that led to it. No transaction: this is the delivery hot path, and a crash between the
 * statements only leaves the delivery pending, so the broker's redelivery makes the attempt again
 * (receivers are idempotent by webhook-id anyway).
 */
export async function recordAttempt(
  db: Db,
  d: Pick<Delivery, 'id'>,
  a: { number: number; startedAt: number; durationMs: number; statusCode?: number; error?: string; excerpt?: string },
  next: { status: DeliveryStatus; nextAttemptAt: number },
  now: number,
  tables: DeliveryTables = PREDICTION_DELIVERIES,
): Promise<boolean> {
  const [attemptId] = await db(tables.attempts).insert({
    delivery_id: d.id, number: a.number, started_at: a.startedAt, duration_ms: a.durationMs,
    status_code: a.statusCode ?? null, error: a.error?.slice(0, 500) ?? null, response_excerpt: a.excerpt ?? null,
  });
  const n = await db(tables.deliveries).where({ id: d.id, status: 'pending', attempts: a.number - 1 }).update({
    status: next.status, attempts: a.number, last_status_code: a.statusCode ?? null, last_error: a.error?.slice(0, 500) ?? null,
    next_attempt_at: next.nextAttemptAt, updated_at: now,
  });
  if (affected(n) === 1) return true;
  await db(tables.attempts).where('id', num(attemptId)).delete();
  return false;
}

export async function listDeliveries(db: Db, predictionId: string): Promise<Array<Delivery & { attemptLog: Attempt[] }>> {
  const rows = await db<DeliveryRow>('webhook_deliveries').where('prediction_id', predictionId).orderBy('created_at', 'asc');
  return withAttempts(db, rows);
}

/** A place in the delivery log: its rows are ordered by (created_at, id), newest first. */
export interface DeliveryCursor { createdAt: number; id: string }

/** A delivery in the owner's log: a prediction's, or (predictionId null) an alert's, with the alert's kind. */
export type LoggedDelivery = Omit<Delivery, 'predictionId'> & { predictionId: string | null; alertKind: string | null; attemptLog: Attempt[] };

const LOG_COLUMNS = ['id', 'user_id', 'url', 'status', 'attempts', 'last_status_code', 'last_error', 'created_at'];

/**
 * The owner's delivery log: deliveries of the owner's predictions (a team's: whoever submitted
 * them) and of the owner's alerts, newest first, at most `limit`, after `before` in that order
 * when given (created earlier, or in the same millisecond with a smaller id: a page never skips
 * the rows that share its last row's millisecond), of one `status` when given; `sandboxOnly` (a
 * sandbox key asking): only sandbox predictions' (alerts are not a sandbox's); `alerts: false` (a
 * caller who may not read the wallet's balance): only predictions'.
 */
export async function listOwnerDeliveries(
  db: Db, owner: Owner,
  opts: { status?: DeliveryStatus; before?: DeliveryCursor; limit: number; sandboxOnly?: boolean; alerts?: boolean },
): Promise<LoggedDelivery[]> {
  const filter = (table: string) => (q: Knex.QueryBuilder) => {
    if (opts.status) q.andWhere(`${table}.status`, opts.status);
    const before = opts.before;
    if (before) {
      q.andWhere((w) => w.where(`${table}.created_at`, '<', before.createdAt)
        .orWhere((same) => same.where(`${table}.created_at`, before.createdAt).andWhere(`${table}.id`, '<', before.id)));
    }
  };
  const owned = db('predictions').select('id').where(ownerWhere(owner));
  if (opts.sandboxOnly) owned.andWhere('is_test', true);
  const predictions = db('webhook_deliveries as d').select(LOG_COLUMNS.map((c) => `d.${c}`))
    .select('d.prediction_id', db.raw('NULL as alert_kind')).whereIn('d.prediction_id', owned).modify(filter('d'));
  if (!opts.sandboxOnly && opts.alerts !== false) {
    // unwrapped: SQLite takes no parentheses around a UNION's members
    predictions.unionAll(db('alert_deliveries as ad').join('alerts as a', 'a.id', 'ad.alert_id').select(LOG_COLUMNS.map((c) => `ad.${c}`))
      .select(db.raw('NULL as prediction_id'), 'a.kind as alert_kind').where(ownerWhere(owner, 'ad')).modify(filter('ad')), false);
  }
  // one ordered query over both kinds, so the database's own order of ids decides ties
  const rows = await db.select('*').from(predictions.as('u'))
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(opts.limit) as Array<DeliveryRow & { prediction_id: string | null; alert_kind: string | null }>;
  const attempts = await withAttempts(db, rows.filter((r) => r.prediction_id !== null));
  const alertAttempts = await withAttempts(db, rows.filter((r) => r.prediction_id === null), ALERT_DELIVERIES);
  const byId = new Map([...attempts, ...alertAttempts].map((d) => [d.id, d.attemptLog]));
  return rows.map((r) => ({ ...toDelivery(r), predictionId: r.prediction_id, alertKind: r.alert_kind, attemptLog: byId.get(r.id) ?? [] }));
}

/** The deliveries of these alerts with their attempts, oldest first, by alert id (the account export's). */
export async function listAlertDeliveries(db: Db, alertIds: readonly number[]): Promise<Map<number, Array<Delivery & { attemptLog: Attempt[] }>>> {
  const byAlert = new Map<number, Array<Delivery & { attemptLog: Attempt[] }>>();
  if (alertIds.length === 0) return byAlert;
  const rows = await db('alert_deliveries').select([...LOG_COLUMNS, 'alert_id']).whereIn('alert_id', alertIds)
    .orderBy([{ column: 'created_at', order: 'asc' }, { column: 'id', order: 'asc' }]) as Array<DeliveryRow & { alert_id: number | string }>;
  const withLog = await withAttempts(db, rows, ALERT_DELIVERIES);
  rows.forEach((r, i) => {
    const list = byAlert.get(num(r.alert_id)) ?? [];
    list.push(withLog[i]!);
    byAlert.set(num(r.alert_id), list);
  });
  return byAlert;
}

async function withAttempts(db: Db, rows: DeliveryRow[], tables: DeliveryTables = PREDICTION_DELIVERIES): Promise<Array<Delivery & { attemptLog: Attempt[] }>> {
  if (rows.length === 0) return [];
  const attempts = await db(tables.attempts).whereIn('delivery_id', rows.map((r) => r.id)).orderBy('id', 'asc');
  return rows.map((r) => ({
    ...toDelivery(r),
    attemptLog: attempts.filter((a: { delivery_id: string }) => a.delivery_id === r.id).map((a: { number: number; started_at: number | string; duration_ms: number; status_code: number | null; error: string | null; response_excerpt: string | null }) => ({
      number: num(a.number), startedAt: iso(a.started_at), durationMs: num(a.duration_ms), statusCode: numOrNull(a.status_code), error: a.error,
      responseExcerpt: a.response_excerpt ?? null,
    })),
  }));
}

/**
 * A dead or gone delivery of one of the owner's predictions (a team's: whoever in the team
 * submitted it) goes back to pending for a fresh round of attempts.
 * `sandboxOnly` (a sandbox key asking): deliveries of production predictions are not found.
 * `alerts: false` (a caller the delivery log lists no alert's to, listOwnerDeliveries): an alert's is not found.
 */
export async function reopenDelivery(db: Db, id: string, owner: Owner, now: number, opts: { sandboxOnly?: boolean; alerts?: boolean } = {}): Promise<'reopened' | 'not-found' | 'busy'> {
  const owned = db('predictions').select('id').where(ownerWhere(owner));
  if (opts.sandboxOnly) owned.andWhere('is_test', true);
  const mine = (qb: Knex.QueryBuilder) => {
    qb.where({ id }).whereIn('prediction_id', owned);
  };
  const row = await db<DeliveryRow>('webhook_deliveries').where(mine).first();
  // not a prediction's: one of the owner's alerts' (never a sandbox's)
  if (!row) return opts.sandboxOnly || opts.alerts === false ? 'not-found' : reopenAlertDelivery(db, id, owner, now);
  const n = await db('webhook_deliveries').where(mine).whereIn('status', ['dead', 'gone'])
    .update({ status: 'pending', next_attempt_at: now, updated_at: now });
  return affected(n) === 1 ? 'reopened' : 'busy';
}

async function reopenAlertDelivery(db: Db, id: string, owner: Owner, now: number): Promise<'reopened' | 'not-found' | 'busy'> {
  const mine = (qb: Knex.QueryBuilder) => { qb.where({ id }).where(ownerWhere(owner)); };
  if (!(await db('alert_deliveries').where(mine).first('id'))) return 'not-found';
  const n = await db('alert_deliveries').where(mine).whereIn('status', ['dead', 'gone'])
    .update({ status: 'pending', next_attempt_at: now, updated_at: now });
  return affected(n) === 1 ? 'reopened' : 'busy';
}

/**
 * Every dead delivery of the owner's predictions created at or after `since` goes back to pending,
 * oldest first, at most `limit`; their ids (one more than `limit` is looked at, to say whether
 * others are left). `sandboxOnly` and `alerts` as in reopenDelivery. Only the ids this call reopened: two
 * calls at once (a double click) each find the same dead rows, and a row both named would be
 * published twice, its copies sent at once.
 */
export async function reopenDeadDeliveries(db: Db, owner: Owner, since: number, now: number, opts: { limit: number; sandboxOnly?: boolean; alerts?: boolean }): Promise<{ ids: string[]; more: boolean }> {
  const owned = db('predictions').select('id').where(ownerWhere(owner));
  if (opts.sandboxOnly) owned.andWhere('is_test', true);
  const rows = await db('webhook_deliveries').select('id').whereIn('prediction_id', owned).andWhere('status', 'dead').andWhere('created_at', '>=', since)
    .orderBy([{ column: 'created_at', order: 'asc' }, { column: 'id', order: 'asc' }]).limit(opts.limit + 1);
  const found = rows.slice(0, opts.limit).map((r: { id: string }) => r.id);
  const ids = await reopenEach(db, 'webhook_deliveries', found, now);
  if (rows.length > opts.limit || opts.sandboxOnly || opts.alerts === false) return { ids, more: rows.length > opts.limit };
  // then the owner's alerts' dead deliveries, in what room is left
  const room = opts.limit - found.length;
  const alertRows = await db('alert_deliveries').select('id').where(ownerWhere(owner)).andWhere('status', 'dead').andWhere('created_at', '>=', since)
    .orderBy([{ column: 'created_at', order: 'asc' }, { column: 'id', order: 'asc' }]).limit(room + 1);
  const alertIds = await reopenEach(db, 'alert_deliveries', alertRows.slice(0, room).map((r: { id: string }) => r.id), now);
  return { ids: [...ids, ...alertIds], more: alertRows.length > room };
}

/** Those of `ids` still dead, back to pending one by one: the ids whose row this call moved. */
async function reopenEach(db: Db, table: string, ids: readonly string[], now: number): Promise<string[]> {
  const reopened: string[] = [];
  for (const id of ids) {
    const n = await db(table).where({ id, status: 'dead' }).update({ status: 'pending', next_attempt_at: now, updated_at: now });
    if (affected(n) === 1) reopened.push(id);
  }
  return reopened;
}

/**
 * The sweeper republished it: due again now, so it is not republished on every sweep. Only while
 * it is still overdue (due before `dueBefore`, as the sweeper found it): a late message consumed
 * meanwhile has recorded its attempt and scheduled the retry, whose due time must stand.
 */
export async function touchDelivery(db: Db, id: string, now: number, dueBefore: number): Promise<void> {
  for (const table of ['webhook_deliveries', 'alert_deliveries']) {
    await db(table).where({ id, status: 'pending' }).andWhere('next_attempt_at', '<', dueBefore).update({ next_attempt_at: now, updated_at: now });
  }
}

/**
 * Pending deliveries long past their due time: their message was never confirmed by the queue,
 * or was lost. `attempts`: the attempts recorded so far (of every round, a redelivery's too).
 */
export async function findStalledDeliveries(db: Db, dueBefore: number, limit: number): Promise<Array<{ id: string; reqId: string | null; attempts: number }>> {
  // the prediction's X-Request-Id, so the republished delivery's log lines carry it
  const rows = await db('webhook_deliveries').select('webhook_deliveries.id', 'webhook_deliveries.attempts', 'predictions.http_request_id')
    .leftJoin('predictions', 'predictions.id', 'webhook_deliveries.prediction_id')
    .where('webhook_deliveries.status', 'pending').andWhere('webhook_deliveries.next_attempt_at', '<', dueBefore)
    .orderBy('webhook_deliveries.next_attempt_at', 'asc').limit(limit);
  const stalled = rows.map((r: { id: string; http_request_id: string | null; attempts: number | string }) => ({ id: r.id, reqId: r.http_request_id, attempts: Number(r.attempts) }));
  if (stalled.length >= limit) return stalled;
  // alerts' deliveries, in what room is left (no request to name)
  const alertRows = await db('alert_deliveries').select('id', 'attempts').where('status', 'pending').andWhere('next_attempt_at', '<', dueBefore)
    .orderBy('next_attempt_at', 'asc').limit(limit - stalled.length);
  return [...stalled, ...alertRows.map((r: { id: string; attempts: number | string }) => ({ id: r.id, reqId: null, attempts: Number(r.attempts) }))];
}

// ------------------------------------------------------------------ running events

// The events a prediction's webhook receives while it runs (migration 20261129_8101, lib/webhook-events.ts),
// and the row that orders and throttles them across processes. An event is sent only while
// holding the row's lease, taken by one conditional UPDATE that also checks the throttle and that
// the result's delivery has not begun (`closed`); the result's delivery closes the row, in one
// UPDATE too, before its first attempt and then waits out a lease still held. Both are writes to
// the one row, so the database orders them: no event can go out once the result's was tried.

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
