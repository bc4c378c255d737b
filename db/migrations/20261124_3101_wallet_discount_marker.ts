// Fewer round trips on a production submit (issue 15): a wallet row (users, teams) counts its
// model_discounts rows, kept in the transaction that upserts or deletes them (db/discounts.ts),
// so the price function can skip the discount lookup for a wallet with none. The API-key lookup
// reads it with the key's owner (db/api-keys.ts). A count that is too high is harmless (the lookup
// runs as before); it is never 0 while the wallet has a row. Backfilled here from the table.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => { t.integer('discounts').notNullable().defaultTo(0); });
  await knex.schema.alterTable('teams', (t) => { t.integer('discounts').notNullable().defaultTo(0); });
  const rows = await knex('model_discounts').select('owner_key').count({ n: '*' }).groupBy('owner_key') as Array<{ owner_key: string; n: number | string }>;
  for (const r of rows) {
    const id = Number(r.owner_key.slice(1));
    await knex(r.owner_key.startsWith('t') ? 'teams' : 'users').where('id', id).update({ discounts: Number(r.n) });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => { t.dropColumn('discounts'); });
  await knex.schema.alterTable('teams', (t) => { t.dropColumn('discounts'); });
}
