// The reads of the account export (GET /app/account/export, README "Exporting an account"): the
// caller's personal rows in keyset pages, so a large account is streamed in bounded memory. Each
// function returns the page after `after` (null: the first) in a stable order, and the caller
// passes the last row's key back in. Personal only: rows with team_id set belong to the team.
import type { Db } from './knex.ts';
import { num, numOrNull } from './knex.ts';
import { predictionFromRow } from './predictions/record.ts';
import type { Prediction } from './predictions/record.ts';
import { listLedgerEntries } from './ledger.ts';
import type { LedgerEntry } from './ledger.ts';
import type { TeamRole } from '../lib/caller.ts';
import { alertFromRow } from './alerts.ts';
import { loraFromRow } from './loras.ts';
import type { Lora, LoraRow } from './loras.ts';
import type { AlertRecord } from './alerts.ts';

export type PredictionCursor = { hidden: boolean; createdAt: number; id: string };

/** The most bytes of prediction rows (input, outputs, logs) one export page holds, by default. */
export const EXPORT_PAGE_BYTES = 8 * 1024 * 1024;

/**
 * The user's personal predictions, oldest first: first the visible ones, by (created_at, id)
 * along the history index (migration 1701: user_id, team_id, deleted_at, created_at, id), then
 * those bulk_delete hid (deleted_at set: the rows are still held, without their files), by the
 * same key. `sandboxOnly`: is_test rows only (a sandbox key's export).
 *
 * At most `limit` rows and `maxBytes` of their large columns (at least one row): an input may be as
 * large as a request body (MAX_BODY_BYTES), so a page of `limit` whole rows could hold hundreds of
 * MiB. The page's keys and sizes are read first, then the whole rows of the prefix that fits.
 */
export async function exportPredictions(
  db: Db, userId: number, after: PredictionCursor | null, limit: number, sandboxOnly: boolean, maxBytes = EXPORT_PAGE_BYTES,
): Promise<{ rows: Prediction[]; next: PredictionCursor | null }> {
  const hidden = after?.hidden ?? false;
  const q = db('predictions').where({ user_id: userId }).whereNull('team_id');
  if (hidden) q.whereNotNull('deleted_at'); else q.whereNull('deleted_at');
  if (sandboxOnly) q.where('is_test', true);
  if (after) q.where('created_at', '>=', after.createdAt).where((w) => w.where('created_at', '>', after.createdAt).orWhere('id', '>', after.id));
  const keys = await q.select('id', 'created_at', db.raw('length(input) + coalesce(length(outputs), 0) + coalesce(length(logs), 0) as size'))
    .orderBy([{ column: 'created_at', order: 'asc' }, { column: 'id', order: 'asc' }]).limit(limit) as Array<{ id: string; created_at: number | string; size: number | string | null }>;
  let take = 0;
  for (let bytes = 0; take < keys.length; take++) {
    bytes += num(keys[take]!.size ?? 0);
    if (take > 0 && bytes > maxBytes) break;
  }
  const taken = keys.slice(0, take);
  const byId = new Map<string, Record<string, unknown>>();
  if (taken.length) {
    for (const r of await db('predictions').select('*').whereIn('id', taken.map((k) => k.id)) as Array<Record<string, unknown>>) byId.set(String(r.id), r);
  }
  // a row deleted between the two reads (an erasure, a purge) is simply not listed
  const rows = taken.flatMap((k) => (byId.has(String(k.id)) ? [predictionFromRow(byId.get(String(k.id))!)] : []));
  const last = taken.at(-1);
  if ((take < keys.length || keys.length === limit) && last) return { rows, next: { hidden, createdAt: num(last.created_at), id: String(last.id) } };
  // this pass is done: the visible pass continues with the hidden one from its start
  const next = hidden ? null : { hidden: true, createdAt: Number.MIN_SAFE_INTEGER, id: '' };
  return { rows, next };
}

/** The user's personal ledger rows with id > `afterId`, oldest first (the (user_id, team_id, id) index). */
export async function exportLedger(db: Db, userId: number, afterId: number, limit: number): Promise<LedgerEntry[]> {
  return listLedgerEntries(db, { userId, teamId: null }, afterId, limit);
}

export interface ExportedAsset {
  id: number;
  name: string;
  url: string;
  storageKey: string | null;
  mediaType: string;
  contentType: string | null;
  sizeBytes: number | null;
  requestId: string | null;
  createdAt: number;
}

/** The user's personal media assets with id > `afterId`, oldest first. */
export async function exportMediaAssets(db: Db, userId: number, afterId: number, limit: number): Promise<ExportedAsset[]> {
  const rows = await db('media_assets').where({ user_id: userId }).whereNull('team_id').where('id', '>', afterId).orderBy('id', 'asc').limit(limit) as Array<Record<string, unknown>>;
  return rows.map((r) => ({
    id: num(r.id),
    name: String(r.name),
    url: String(r.url),
    storageKey: r.storage_key == null ? null : String(r.storage_key),
    mediaType: String(r.media_type),
    contentType: r.content_type == null ? null : String(r.content_type),
    sizeBytes: numOrNull(r.size_bytes),
    requestId: r.request_id == null ? null : String(r.request_id),
    createdAt: num(r.created_at),
  }));
}

/** The teams the user is a member of (not deleted ones), with the role and when they joined. */
export async function exportMemberships(db: Db, userId: number): Promise<Array<{ teamId: number; name: string; role: TeamRole; joinedAt: number }>> {
  const rows = await db('team_members').join('teams', 'teams.id', 'team_members.team_id')
    .select('teams.id', 'teams.name', 'team_members.role', 'team_members.created_at')
    .where('team_members.user_id', userId).whereNull('teams.deleted_at').orderBy('teams.id', 'asc') as Array<Record<string, unknown>>;
  return rows.map((r) => ({ teamId: num(r.id), name: String(r.name), role: String(r.role) as TeamRole, joinedAt: num(r.created_at) }));
}

/** The alerts of the user's own wallet and keys with id > `afterId`, oldest first (the (user_id, team_id, id) index). */
export async function exportAlerts(db: Db, userId: number, afterId: number, limit: number): Promise<AlertRecord[]> {
  const rows = await db('alerts').where({ user_id: userId }).whereNull('team_id').where('id', '>', afterId).orderBy('id', 'asc').limit(limit) as Array<Record<string, unknown>>;
  return rows.map(alertFromRow);
}

/** The user's personal LoRAs (not a team's) with id > `afterId`, oldest first. */
export async function exportLoras(db: Db, userId: number, afterId: number, limit: number): Promise<Lora[]> {
  const rows = await db<LoraRow>('loras').where({ user_id: userId }).whereNull('team_id').where('id', '>', afterId).orderBy('id', 'asc').limit(limit);
  return rows.map(loraFromRow);
}
