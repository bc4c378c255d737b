// The LoRA registry (README "LoRAs"): public entries (user_id null; seeded by migration 2001)
// and entries a user or a team registered, visible and usable by that owner only (ownerWhere).
import type { Knex } from 'knex';
import type { Db } from './knex.ts';
import type { Owner } from './owner.ts';
import { ownerWhere } from './owner.ts';
import { DuplicateError, isDuplicateKey } from './errors.ts';
import { iso, jsonOr, num, numOrNull } from './knex.ts';

export interface Lora extends NewLora {
  id: number;
  /** null: a public entry */
  userId: number | null;
  teamId: number | null;
  createdAt: string;
}

export interface LoraRow {
  id: number | string;
  user_id: number | string | null;
  team_id: number | string | null;
  scope_key: string;
  name: string;
  lora_type: string;
  title: string;
  description: string;
  base_model: string;
  trigger_words: string;
  preview_url: string | null;
  weights_url: string;
  created_at: number | string;
}

export function loraFromRow(r: LoraRow): Lora {
  return {
    id: num(r.id), name: r.name, loraType: r.lora_type, title: r.title, description: r.description, baseModel: r.base_model,
    triggerWords: jsonOr<string[]>(r.trigger_words, []), previewUrl: r.preview_url, weightsUrl: r.weights_url,
    userId: numOrNull(r.user_id), teamId: numOrNull(r.team_id), createdAt: iso(r.created_at),
  };
}

export const LORA_PAGE_SIZE = 20;

/** `q` as a LIKE pattern (substring; % and _ taken literally). Case-insensitive on both engines: MariaDB's collation, SQLite's ASCII LIKE. */
function likePattern(q: string): string {
  return `%${q.replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

function search(qb: Knex.QueryBuilder, q: string): void {
  if (q === '') return;
  const pattern = likePattern(q);
  qb.where((w) => {
    // '!' escapes: a backslash would need writing differently on MariaDB and SQLite
    w.whereRaw("name LIKE ? ESCAPE '!'", [pattern]).orWhereRaw("title LIKE ? ESCAPE '!'", [pattern]).orWhereRaw("trigger_words LIKE ? ESCAPE '!'", [pattern]);
  });
}

export interface LoraPage {
  items: Lora[];
  total: number;
}

async function page(db: Db, scope: (qb: Knex.QueryBuilder) => void, pageNo: number): Promise<LoraPage> {
  const offset = (pageNo - 1) * LORA_PAGE_SIZE;
  const counted = await db('loras').where(scope).count<{ n: number | string }[]>({ n: '*' }).first();
  const total = num(counted?.n ?? 0);
  if (offset >= total) return { items: [], total };
  const rows = await db<LoraRow>('loras').where(scope).orderBy([{ column: 'name' }, { column: 'id' }]).limit(LORA_PAGE_SIZE).offset(offset);
  return { items: rows.map(loraFromRow), total };
}

/** Public LoRAs of one type, by name. */
export function listPublicLoras(db: Db, loraType: string, q: string, pageNo: number): Promise<LoraPage> {
  return page(db, (qb) => {
    qb.where('scope_key', 'public').andWhere('lora_type', loraType);
    search(qb, q);
  }, pageNo);
}

/** The owner's own LoRAs (never the public ones), optionally of one type. */
export function listOwnedLoras(db: Db, owner: Owner, loraType: string | undefined, q: string, pageNo: number): Promise<LoraPage> {
  return page(db, (qb) => {
    qb.where(ownerWhere(owner));
    if (loraType !== undefined) qb.andWhere('lora_type', loraType);
    search(qb, q);
  }, pageNo);
}

export async function findPublicLora(db: Db, name: string, loraType: string): Promise<Lora | undefined> {
  const row = await db<LoraRow>('loras').where({ scope_key: 'public', name, lora_type: loraType }).first();
  return row ? loraFromRow(row) : undefined;
}

/** The LoRAs these names denote for this owner: the owner's own entry first, else the public one; with no owner, the public ones only. */
export async function resolveLoraNames(db: Db, owner: Owner | null, names: readonly string[]): Promise<Map<string, Lora>> {
  const found = new Map<string, Lora>();
  if (names.length === 0) return found;
  const rows = await db<LoraRow>('loras').whereIn('name', [...new Set(names)]).andWhere((qb) => {
    qb.where('scope_key', 'public');
    if (owner !== null) qb.orWhere(ownerWhere(owner));
  });
  for (const r of rows.map(loraFromRow)) {
    const held = found.get(r.name);
    if (!held || held.userId === null) found.set(r.name, r);
  }
  return found;
}

export interface NewLora {
  name: string;
  loraType: string;
  title: string;
  description: string;
  baseModel: string;
  triggerWords: string[];
  previewUrl: string | null;
  weightsUrl: string;
}

/** Registers an owner's LoRA; DuplicateError when the owner already has one of that name. */
export async function insertLora(db: Db, owner: Owner, l: NewLora, now: number): Promise<Lora> {
  const scopeKey = owner.teamId === null ? `u${owner.userId}` : `t${owner.teamId}`;
  try {
    const [id] = await db('loras').insert({
      user_id: owner.userId, team_id: owner.teamId, scope_key: scopeKey, name: l.name, lora_type: l.loraType, title: l.title, description: l.description,
      base_model: l.baseModel, trigger_words: JSON.stringify(l.triggerWords), preview_url: l.previewUrl, weights_url: l.weightsUrl, created_at: now,
    });
    const row = await db<LoraRow>('loras').where({ id }).first();
    return loraFromRow(row!);
  } catch (err) {
    if (isDuplicateKey(err)) throw new DuplicateError(`you already have a LoRA named ${l.name}`);
    throw err;
  }
}
