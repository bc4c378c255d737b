// The media library (issue 10, migration 1801): owner-scoped assets, newest first.
import type { Db } from './knex.ts';
import { affected, num, numOrNull } from './knex.ts';
import { isDuplicateKey, isMissingReference, DuplicateError, NotFoundError } from './errors.ts';
import { ownerWhere } from './owner.ts';
import type { Owner } from './owner.ts';
import type { UploadMediaType } from '../lib/uploads.ts';

export interface MediaAsset {
  id: number;
  teamId: number | null;
  name: string;
  url: string;
  mediaType: UploadMediaType;
  contentType: string | null;
  sizeBytes: number | null;
  requestId: string | null;
  /** set when the asset is an upload of this gateway (the asset owns that file) */
  storageKey: string | null;
  createdAt: number;
}

type Row = Record<string, unknown>;

function asset(r: Row): MediaAsset {
  return {
    id: num(r.id),
    teamId: numOrNull(r.team_id),
    name: String(r.name),
    url: String(r.url),
    mediaType: String(r.media_type) as UploadMediaType,
    contentType: r.content_type === null || r.content_type === undefined ? null : String(r.content_type),
    sizeBytes: numOrNull(r.size_bytes),
    requestId: r.request_id === null || r.request_id === undefined ? null : String(r.request_id),
    storageKey: r.storage_key === null || r.storage_key === undefined ? null : String(r.storage_key),
    createdAt: num(r.created_at),
  };
}

/** Throws DuplicateError when the upload is already an asset (one asset per upload). */
export async function insertMediaAsset(
  db: Db,
  owner: Owner,
  a: Omit<MediaAsset, 'id' | 'teamId' | 'createdAt'> & { uploadId: number | null },
  now: number,
): Promise<MediaAsset> {
  try {
    const [id] = await db('media_assets').insert({
      user_id: owner.userId,
      team_id: owner.teamId,
      name: a.name,
      url: a.url,
      media_type: a.mediaType,
      content_type: a.contentType,
      size_bytes: a.sizeBytes,
      request_id: a.requestId,
      upload_id: a.uploadId,
      storage_key: a.storageKey,
      created_at: now,
    });
    return { ...a, id: num(id), teamId: owner.teamId, createdAt: now };
  } catch (err) {
    if (isDuplicateKey(err)) throw new DuplicateError('this upload is already in the media library');
    // the retention job removed the upload between its lookup and this insert (README "Retention")
    if (isMissingReference(err)) throw new NotFoundError('upload not found');
    throw err;
  }
}

/**
 * `%`, `_` and the escape character match themselves in a LIKE search term. The escape is `!`,
 * not a backslash, which MariaDB and SQLite read differently inside a string literal.
 */
const likeTerm = (s: string) => `%${s.replace(/[!%_]/g, (c) => `!${c}`)}%`;

export async function listMediaAssets(
  db: Db,
  owner: Owner,
  f: { mediaType: UploadMediaType | null; search: string | null; page: number; pageSize: number },
): Promise<{ items: MediaAsset[]; total: number }> {
  const base = db('media_assets').where(ownerWhere(owner));
  if (f.mediaType) base.where({ media_type: f.mediaType });
  if (f.search) {
    const term = likeTerm(f.search.toLowerCase());
    // LOWER() on both sides: MariaDB's collation ignores case already, SQLite's LIKE only for ASCII
    base.where((qb) => qb.whereRaw("LOWER(name) LIKE ? ESCAPE '!'", [term]).orWhereRaw("LOWER(url) LIKE ? ESCAPE '!'", [term]));
  }
  const [rows, count] = await Promise.all([
    base.clone().orderBy('id', 'desc').limit(f.pageSize).offset((f.page - 1) * f.pageSize),
    base.clone().count({ n: '*' }).first(),
  ]);
  return { items: (rows as Row[]).map(asset), total: num((count as Row | undefined)?.n ?? 0) };
}

export async function findMediaAsset(db: Db, owner: Owner, id: number): Promise<MediaAsset | undefined> {
  const r = await db('media_assets').where({ id }).where(ownerWhere(owner)).first();
  return r ? asset(r) : undefined;
}

export async function deleteMediaAsset(db: Db, owner: Owner, id: number): Promise<boolean> {
  return affected(await db('media_assets').where({ id }).where(ownerWhere(owner)).delete()) === 1;
}
