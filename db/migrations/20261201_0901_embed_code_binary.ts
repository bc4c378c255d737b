// Embed codes compare as written (README "Embeds"): `embed_codes.code` took the table's default
// collation on MariaDB, utf8mb4_general_ci, so a code with the case of its letters changed was
// the same code, found by every lookup. Base64url codes tell case apart, as SQLite's binary
// comparison already does: the column becomes utf8mb4_bin, its length, NOT NULL and unique
// index unchanged. No existing codes can collide: unique under the case-insensitive collation,
// they are unique under the binary one. SQLite has nothing to change.
import type { Knex } from 'knex';

const mysql = (knex: Knex) => knex.client.config.client === 'mysql2';

export async function up(knex: Knex): Promise<void> {
  if (!mysql(knex)) return;
  await knex.raw('ALTER TABLE embed_codes MODIFY code VARCHAR(80) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  if (!mysql(knex)) return;
  // without a character set the column takes the table's default again, as the table's creation gave it;
  // two codes that differ only in case (192 random bits each: never in practice) would stop this at the unique index
  await knex.raw('ALTER TABLE embed_codes MODIFY code VARCHAR(80) NOT NULL');
}
