// A cheaper check for a first claim that takes the row its queue message carried (issue 15;
// db/store/mariadb/claim-batch.ts carriedClaimSql). That claim must match only a row holding every carried
// value; it compared the 19 carried columns one by one (about 28 µs of MariaDB CPU per claim).
// `claim_digest` is SHA-256 of the row's id and those columns, each as its length in bytes, ':'
// and its bytes as stored (NULL as '-'), so two rows that differ in any of them differ in it; the
// worker computes the same digest from the message (db/store/mariadb/ticket.ts claimDigest) and the claim
// compares one value. The column is generated, so MariaDB keeps it true under every UPDATE, by
// this code or by hand: a row changed after its message was sent no longer matches, and its claim
// falls back to reading the row. VIRTUAL: computed only where a statement names it (the claim's
// WHERE), nothing stored and no cost at insert; INVISIBLE: `SELECT *` neither lists nor computes
// it. Strings are hashed as their bytes (CAST AS BINARY), never through a character-set
// conversion that could map two values to one. SQLite (the embedded default, one process) claims
// with UPDATE ... RETURNING and needs no such column; it has no SHA-256 function either.
import type { Knex } from 'knex';

/** The carried columns in digest order (db/store/mariadb/ticket.ts SNAPSHOT_TYPES), after the id. */
const STRINGS = new Set(['id', 'model', 'input', 'webhook_url', 'http_request_id', 'source', 'embed_visitor']);
const COLUMNS = [
  'id', 'user_id', 'team_id', 'api_key_id', 'model', 'is_test', 'input', 'price', 'webhook_url', 'http_request_id', 'created_at', 'source',
  'embed_code_id', 'embed_visitor', 'studio_id', 'studio_markup', 'payer_user_id', 'payer_team_id', 'list_price', 'discount_percent',
];
const part = (c: string) => `IFNULL(CONCAT(OCTET_LENGTH(${c}), ':', ${STRINGS.has(c) ? `CAST(${c} AS BINARY)` : c}), '-')`;

const mysql = (knex: Knex) => knex.client.config.client === 'mysql2';

export async function up(knex: Knex): Promise<void> {
  if (!mysql(knex)) return;
  await knex.raw(`ALTER TABLE predictions ADD COLUMN claim_digest BINARY(32) GENERATED ALWAYS AS (UNHEX(SHA2(CONCAT(${COLUMNS.map(part).join(', ')}), 256))) VIRTUAL INVISIBLE`);
}

export async function down(knex: Knex): Promise<void> {
  if (!mysql(knex)) return;
  await knex.raw('ALTER TABLE predictions DROP COLUMN claim_digest');
}
