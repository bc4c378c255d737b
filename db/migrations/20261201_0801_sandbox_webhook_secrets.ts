// Sandbox webhook signing secrets: each owner (an account, a team) gets a second set of secrets,
// rows with is_test true, that sign its sandbox predictions' deliveries only; production
// predictions' and alerts' deliveries keep the production set. A sandbox key reads and rotates the
// sandbox set only, so a leaked sandbox key (which cannot spend) can no longer forge production
// deliveries nor rotate the production secret away.
//
// So that receivers of sandbox deliveries keep verifying, up copies each owner's live production
// secrets (not expired) as its first sandbox ones: same sealed secret, created_at and expires_at.
// The two sets then start equal, and every sandbox key could read that secret before: an owner
// should rotate the production secret once (POST /app/webhook_secret/rotate with a production key
// or a session) to end what a sandbox key may have read; the sandbox copy is not rotated with it.
//
// The owner's index becomes (owner, is_test, id): the secrets' queries and replaceSecret's DELETE
// (db/webhooks.ts), which forces it by name on MariaDB, read one owner's one mode as a range. The
// new index is made before the old one goes: on MariaDB the owner's foreign key needs one of them.
// down removes the sandbox rows and the column, and restores the old index.
import type { Knex } from 'knex';

const STORES = [
  { table: 'webhook_secrets', column: 'user_id' },
  { table: 'team_webhook_secrets', column: 'team_id' },
] as const;

export async function up(knex: Knex): Promise<void> {
  const now = Date.now();
  for (const { table, column } of STORES) {
    await knex.schema.alterTable(table, (t) => {
      t.boolean('is_test').notNullable().defaultTo(false);
    });
    await knex.schema.alterTable(table, (t) => {
      t.index([column, 'is_test', 'id']);
    });
    await knex.schema.alterTable(table, (t) => {
      t.dropIndex([column, 'id']);
    });
    // in id order, so the copies keep their order (the newest secret is the current one)
    await knex.raw(
      `insert into ${table} (${column}, is_test, secret_enc, created_at, expires_at)
       select ${column}, ?, secret_enc, created_at, expires_at from ${table}
       where is_test = ? and (expires_at is null or expires_at > ?) order by id`,
      [true, false, now],
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const { table, column } of STORES) {
    await knex(table).where('is_test', true).delete();
    await knex.schema.alterTable(table, (t) => {
      t.index([column, 'id']);
    });
    await knex.schema.alterTable(table, (t) => {
      t.dropIndex([column, 'is_test', 'id']);
    });
    // raw: knex's dropColumn rebuilds the table on SQLite
    await knex.raw(`ALTER TABLE ${table} DROP COLUMN is_test`);
  }
}
