// One owner key (issue 40, lib/caller.ts ownerKey): the model discounts were keyed `u<user id>` /
// `t<team id>`; they take the form every other owner key has, `user:<id>` / `team:<id>`.
import type { Knex } from 'knex';

const mysql = (knex: Knex) => knex.client.config.client === 'mysql2';
/** `prefix` followed by owner_key from its `from`-th character (1-based), in either engine's SQL. */
const rekey = (knex: Knex, prefix: string, from: number) => (mysql(knex) ? `CONCAT('${prefix}', SUBSTRING(owner_key, ${from}))` : `'${prefix}' || SUBSTR(owner_key, ${from})`);

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE model_discounts SET owner_key = ${rekey(knex, 'user:', 2)} WHERE owner_key LIKE 'u%' AND owner_key NOT LIKE 'user:%'`);
  await knex.raw(`UPDATE model_discounts SET owner_key = ${rekey(knex, 'team:', 2)} WHERE owner_key LIKE 't%' AND owner_key NOT LIKE 'team:%'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE model_discounts SET owner_key = ${rekey(knex, 'u', 6)} WHERE owner_key LIKE 'user:%'`);
  await knex.raw(`UPDATE model_discounts SET owner_key = ${rekey(knex, 't', 6)} WHERE owner_key LIKE 'team:%'`);
}
