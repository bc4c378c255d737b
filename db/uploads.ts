// Upload addresses (issue 10, migration 1801). A local upload is claimed by one conditional UPDATE
// (pending -> writing), so of two PUTs with the same token exactly one writes; a failed write
// hands the token back (writing -> pending) until it expires.
import type { Db } from './knex.ts';
import { affected, num, numOrNull } from './knex.ts';
import { ownerWhere } from './owner.ts';
import type { Owner } from './owner.ts';
import type { UploadMediaType } from '../lib/uploads.ts';

export interface UploadRecord {
  id: number;
  userId: number;
  teamId: number | null;
  storageKey: string;
  filename: string;
  mediaType: UploadMediaType;
  contentType: string;
  maxBytes: number;
  sizeBytes: number | null;
  state: 'pending' | 'writing' | 'done';
  expiresAt: number;
  completedAt: number | null;
}

type Row = Record<string, unknown>;

function record(r: Row): UploadRecord {
  return {
    id: num(r.id),
    userId: num(r.user_id),
    teamId: numOrNull(r.team_id),
    storageKey: String(r.storage_key),
    filename: String(r.filename),
    mediaType: String(r.media_type) as UploadMediaType,
    contentType: String(r.content_type),
    maxBytes: num(r.max_bytes),
    sizeBytes: numOrNull(r.size_bytes),
    state: String(r.state) as UploadRecord['state'],
    expiresAt: num(r.expires_at),
    completedAt: numOrNull(r.completed_at),
  };
}

export async function insertUpload(
  db: Db,
  owner: Owner,
  u: { tokenHash: string | null; storageKey: string; filename: string; mediaType: UploadMediaType; contentType: string; maxBytes: number; sizeBytes: number | null; expiresAt: number },
  now: number,
): Promise<void> {
  await db('uploads').insert({
    user_id: owner.userId,
    team_id: owner.teamId,
    token_hash: u.tokenHash,
    storage_key: u.storageKey,
    filename: u.filename.slice(0, 255),
    media_type: u.mediaType,
    content_type: u.contentType,
    max_bytes: u.maxBytes,
    size_bytes: u.sizeBytes,
    state: 'pending',
    created_at: now,
    expires_at: u.expiresAt,
  });
}

/**
 * Unscoped: the token is the credential of the upload route (it carries no other). An address a
 * team was given is unknown once the team is deleted: no file lands for a team that is gone.
 */
export async function findUploadByTokenHash(db: Db, tokenHash: string): Promise<UploadRecord | undefined> {
  const r = await db('uploads').select('uploads.*').leftJoin('teams', 'teams.id', 'uploads.team_id').where('uploads.token_hash', tokenHash)
    .andWhere((q) => { q.whereNull('uploads.team_id').orWhereNull('teams.deleted_at'); })
    .first();
  return r ? record(r) : undefined;
}

/** The owner's upload stored under `key`. */
export async function findUploadByKey(db: Db, owner: Owner, key: string): Promise<UploadRecord | undefined> {
  const r = await db('uploads').where({ storage_key: key }).where(ownerWhere(owner)).first();
  return r ? record(r) : undefined;
}

/** The upload stored under `key`, whoever owns it: its file URL is a capability URL (plugins/files.ts serves it to anyone holding it). */
export async function findUploadByStorageKey(db: Db, key: string): Promise<UploadRecord | undefined> {
  const r = await db('uploads').where({ storage_key: key }).first();
  return r ? record(r) : undefined;
}

/**
 * A presigned (S3) upload's size as the store answered it at `now`, on the upload and on the asset
 * it became, if any: a presigned address without a declared size may be used again, with another
 * file, until it expires.
 */
export async function recordStoredSize(db: Db, id: number, sizeBytes: number, now: number): Promise<void> {
  await db('uploads').where({ id }).update({ state: 'done', size_bytes: sizeBytes, completed_at: now });
  await db('media_assets').where({ upload_id: id }).update({ size_bytes: sizeBytes });
}

/** pending -> writing, only while unexpired; false when another PUT holds or completed it, or it expired meanwhile. */
export async function claimUpload(db: Db, id: number, now: number): Promise<boolean> {
  return affected(await db('uploads').where({ id, state: 'pending' }).where('expires_at', '>', now).update({ state: 'writing' })) === 1;
}

export async function releaseUpload(db: Db, id: number): Promise<void> {
  await db('uploads').where({ id, state: 'writing' }).update({ state: 'pending' });
}

export async function completeUpload(db: Db, id: number, sizeBytes: number, now: number): Promise<void> {
  await db('uploads').where({ id }).update({ state: 'done', size_bytes: sizeBytes, completed_at: now });
}
