// MariaDB's ticket (db/store/types.ts Ticket): a snapshot of the row a submit inserted, carried
// in the prediction's queue message, and the digest a first claim compares with the row's
// generated `claim_digest` (migration 20261128_0401) instead of reading the row. Built and read by
// the MariaDB engine alone.
import crypto from 'node:crypto';

/**
 * The columns of a submitted row that a worker needs, carried in the prediction's queue message
 * so that the first claim need not read the row back (MariadbEngine.claimAlone with a ticket). Nothing in it is
 * trusted: that claim's UPDATE matches only the row that has every one of these values (strings
 * compared byte for byte, through the row's generated `claim_digest`: claimDigest), so a message
 * can claim no more than its id alone could. The order of the keys is the digest's: changing it, or
 * the set of columns, needs a migration of `claim_digest` too.
 */
const SNAPSHOT_TYPES = {
  user_id: 'number', team_id: 'number', api_key_id: 'number', model: 'string', is_test: 'boolean', input: 'string', price: 'number',
  webhook_url: 'string', http_request_id: 'string', created_at: 'number', source: 'string', embed_code_id: 'number', embed_visitor: 'string',
  studio_id: 'number', studio_markup: 'number', payer_user_id: 'number', payer_team_id: 'number', list_price: 'number', discount_percent: 'number',
} as const;
const SNAPSHOT_COLUMNS = Object.keys(SNAPSHOT_TYPES) as Array<keyof typeof SNAPSHOT_TYPES>;
export type ClaimSnapshot = Record<keyof typeof SNAPSHOT_TYPES, string | number | boolean | null>;

/** A larger input is not carried: the message would weigh on the broker more than the read it saves. */
const SNAPSHOT_MAX_INPUT = 64 * 1024;

/** The columns' values as the submit's INSERT wrote them (a column it left out has its default); undefined for a large input. */
export function snapshotOfRow(row: Record<string, unknown>): ClaimSnapshot | undefined {
  if (typeof row.input === 'string' && row.input.length > SNAPSHOT_MAX_INPUT) return undefined;
  const defaults: Record<string, string | number | boolean> = { is_test: false, studio_markup: 0, source: 'api' };
  return Object.fromEntries(SNAPSHOT_COLUMNS.map((c) => [c, (row[c] ?? defaults[c] ?? null) as string | number | boolean | null])) as ClaimSnapshot;
}

/** A ticket from a queue message (unknown input) as a snapshot: every column there, each null or of its column's type (numbers: safe integers); else undefined. */
export function parseTicket(v: unknown): ClaimSnapshot | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (Object.keys(o).length !== SNAPSHOT_COLUMNS.length) return undefined;
  for (const c of SNAPSHOT_COLUMNS) {
    const x = o[c];
    if (x !== null && (typeof x !== SNAPSHOT_TYPES[c] || (typeof x === 'number' && !Number.isSafeInteger(x)))) return undefined;
  }
  return o as ClaimSnapshot;
}

/**
 * The digest MariaDB's `claim_digest` holds for a row with this id and these values (migration
 * 20261128_0401): SHA-256 of the id and the carried columns in SNAPSHOT_TYPES order, each as its
 * length in UTF-8 bytes, ':' and its text (a boolean as 1 or 0, a number in decimal), NULL as '-'.
 * A length prefix never starts with '-' and says where its value ends, so the text names the values
 * unambiguously. (The values sit between length prefixes, so no surrogate pair is split.)
 */
export function claimDigest(id: string, s: ClaimSnapshot): Buffer {
  let text = `${Buffer.byteLength(id)}:${id}`;
  for (const c of SNAPSHOT_COLUMNS) {
    const v = s[c];
    if (v === null) text += '-';
    else if (typeof v === 'boolean') text += v ? '1:1' : '1:0';
    else if (typeof v === 'number') { const d = String(v); text += `${d.length}:${d}`; } else text += `${Buffer.byteLength(v)}:${v}`;
  }
  return crypto.createHash('sha256').update(text).digest();
}

