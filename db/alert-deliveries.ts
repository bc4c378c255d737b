// Alerts' webhook deliveries (migration 20261129_8001): a row per alert sent to a wallet's alert
// webhook URL, attempted, retried, logged and redelivered like a prediction's delivery (the
// shared parts are in db/webhooks.ts, with ALERT_DELIVERIES naming these tables).
import type { Db } from './knex.ts';
import type { Owner } from './owner.ts';
import { num, numOrNull } from './knex.ts';
import type { AlertKind, AlertRecord } from './alerts.ts';
import type { DeliveryStatus } from './webhooks.ts';

export interface AlertDelivery {
  id: string;
  url: string;
  status: DeliveryStatus;
  attempts: number;
  /** when its next attempt is due (epoch ms) */
  nextAttemptAt: number;
  owner: Owner;
  alert: AlertRecord;
  /** the wallet's alert webhook URL now (null: none); an alert goes only to the URL that is still set */
  currentUrl: string | null;
  /** a team's alert whose team was deleted: nothing is signed for it any more */
  teamDeleted: boolean;
}

/** The delivery of an alert this process just recorded (db/alerts.ts recordCrossing), due now. */
export async function insertAlertDelivery(db: Db, d: { id: string; alertId: number; owner: Owner; url: string }, now: number): Promise<void> {
  await db('alert_deliveries').insert({
    id: d.id, alert_id: d.alertId, user_id: d.owner.userId, team_id: d.owner.teamId, url: d.url,
    status: 'pending', attempts: 0, next_attempt_at: now, created_at: now, updated_at: now,
  });
}

/**
 * A pending alert delivery with its alert and its wallet's alert webhook URL as it is now (the
 * user's, or the team's for a team's alert), in one query (the delivery worker's).
 */
export async function findPendingAlertDelivery(db: Db, id: string): Promise<AlertDelivery | undefined> {
  const r = await db('alert_deliveries as d').join('alerts as a', 'a.id', 'd.alert_id')
    .leftJoin('users as u', 'u.id', 'd.user_id')
    .leftJoin('teams as t', 't.id', 'd.team_id')
    .select('d.id', 'd.url', 'd.status', 'd.attempts', 'd.next_attempt_at', 'd.user_id', 'd.team_id', 'a.id as alert_id', 'a.kind', 'a.api_key_id',
      'a.period', 'a.threshold', 'a.value', 'a.created_at', 'u.alert_webhook_url as user_url', 't.alert_webhook_url as team_url', 't.deleted_at as team_deleted_at')
    .where('d.id', id).andWhere('d.status', 'pending').first<Record<string, unknown> | undefined>();
  if (!r) return undefined;
  return {
    id: String(r.id), url: String(r.url), status: String(r.status) as DeliveryStatus, attempts: num(r.attempts), nextAttemptAt: num(r.next_attempt_at),
    owner: { userId: num(r.user_id), teamId: numOrNull(r.team_id ?? null) },
    alert: {
      id: num(r.alert_id), kind: String(r.kind) as AlertKind, apiKeyId: numOrNull(r.api_key_id ?? null), period: String(r.period),
      threshold: num(r.threshold), value: num(r.value), createdAt: num(r.created_at),
    },
    currentUrl: stringOrNull(r.team_id === null || r.team_id === undefined ? r.user_url : r.team_url),
    teamDeleted: r.team_deleted_at != null,
  };
}

const stringOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);
