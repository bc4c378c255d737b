// The audit log of administrative calls (table admin_audit, migration 1601): one row per call of
// an operation with `x-required-role`, written by the route bridge (plugins/admin-audit.ts).
// Rows are only ever inserted: nothing here updates or deletes one.
import type { Db } from './knex.ts';
import { iso, num, numOrNull } from './knex.ts';

export interface AdminAuditEntry {
  actorUserId: number | null;
  actorRole: string;
  /** api-key, session, oauth */
  credential: string;
  /** the operationId */
  action: string;
  targetUserId: number | null;
  targetTeamId: number | null;
  /** query and body, secrets already redacted */
  params: Record<string, unknown>;
  reason: string | null;
  status: number;
  clientAddress: string | null;
  requestId: string | null;
  now: number;
}

export async function insertAdminAudit(db: Db, e: AdminAuditEntry): Promise<void> {
  await db('admin_audit').insert({
    actor_user_id: e.actorUserId, actor_role: e.actorRole.slice(0, 16), credential: e.credential.slice(0, 16), action: e.action.slice(0, 64),
    target_user_id: e.targetUserId, target_team_id: e.targetTeamId, params: JSON.stringify(e.params), reason: e.reason?.slice(0, 500) ?? null,
    status: e.status, client_address: e.clientAddress?.slice(0, 64) ?? null, request_id: e.requestId?.slice(0, 200) ?? null, created_at: e.now,
  });
}

export interface AdminAuditFilter {
  actorUserId?: number;
  targetUserId?: number;
  action?: string;
  /** epoch ms, inclusive */
  since?: number;
  /** epoch ms, exclusive */
  until?: number;
  page: number;
  pageSize: number;
}

export interface AdminAuditRecord {
  id: number;
  actor_user_id: number | null;
  actor_role: string;
  credential: string;
  action: string;
  target_user_id: number | null;
  target_team_id: number | null;
  params: Record<string, unknown>;
  reason: string | null;
  status: number;
  client_address: string | null;
  request_id: string | null;
  created_at: string;
}

/** One page of the log, newest first, with the total matching. */
export async function listAdminAudit(db: Db, f: AdminAuditFilter): Promise<{ items: AdminAuditRecord[]; total: number }> {
  const q = db('admin_audit');
  if (f.actorUserId !== undefined) q.where('actor_user_id', f.actorUserId);
  if (f.targetUserId !== undefined) q.where('target_user_id', f.targetUserId);
  if (f.action !== undefined) q.where('action', f.action);
  if (f.since !== undefined) q.where('created_at', '>=', f.since);
  if (f.until !== undefined) q.where('created_at', '<', f.until);
  const total = await q.clone().count<{ n: number | string }[]>({ n: '*' }).first();
  const rows = await q.orderBy('id', 'desc').limit(f.pageSize).offset((f.page - 1) * f.pageSize) as Array<Record<string, unknown>>;
  return {
    total: num(total?.n ?? 0),
    items: rows.map((r) => ({
      id: num(r.id), actor_user_id: numOrNull(r.actor_user_id), actor_role: String(r.actor_role), credential: String(r.credential), action: String(r.action),
      target_user_id: numOrNull(r.target_user_id), target_team_id: numOrNull(r.target_team_id), params: JSON.parse(String(r.params)) as Record<string, unknown>,
      reason: r.reason === null || r.reason === undefined ? null : String(r.reason), status: num(r.status),
      client_address: r.client_address === null || r.client_address === undefined ? null : String(r.client_address),
      request_id: r.request_id === null || r.request_id === undefined ? null : String(r.request_id), created_at: iso(r.created_at),
    })),
  };
}
