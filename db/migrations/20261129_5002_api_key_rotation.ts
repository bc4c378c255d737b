// Rotating an API key (rotateApiKey, docs/api/dashboard.md "API keys"): the key gets a new secret
// in place (same id, name, limits, spend and history), and the secret it replaces keeps working
// until `previous_valid_until`, so a deployment can switch over without downtime. Only the
// SHA-256 digest of the old secret is kept, indexed for the credential lookup's fallback.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.string('previous_key_hash', 64).nullable();
    t.bigInteger('previous_valid_until').nullable();
    t.bigInteger('rotated_at').nullable();
    t.index(['previous_key_hash'], 'api_keys_previous_key_hash_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  // ALTER TABLE ... DROP COLUMN, not knex's dropColumn: on SQLite knex rebuilds the table, and
  // dropping the old one with foreign keys on deletes every row that references it (ON DELETE CASCADE).
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropIndex(['previous_key_hash'], 'api_keys_previous_key_hash_idx');
  });
  for (const column of ['previous_key_hash', 'previous_valid_until', 'rotated_at']) await knex.raw(`ALTER TABLE api_keys DROP COLUMN ${column}`);
}
