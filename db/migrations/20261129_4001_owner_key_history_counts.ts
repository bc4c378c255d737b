// One owner key (issue 40, lib/caller.ts ownerKey): the run history's counters were keyed
// `u:<user id>` / `t:<team id>`, the wallet's subscriptions and grants `user:<id>` / `team:<id>`,
// the model discounts `u<id>` / `t<id>`. The counters take the wallet's form.
import type { Knex } from 'knex';

const mysql = (knex: Knex) => knex.client.config.client === 'mysql2';
/** `prefix` followed by owner_key from its `from`-th character (1-based), in either engine's SQL. */
const rekey = (knex: Knex, prefix: string, from: number) => (mysql(knex) ? `CONCAT('${prefix}', SUBSTRING(owner_key, ${from}))` : `'${prefix}' || SUBSTR(owner_key, ${from})`);

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE prediction_history_counts SET owner_key = ${rekey(knex, 'user:', 3)} WHERE owner_key LIKE 'u:%'`);
  await knex.raw(`UPDATE prediction_history_counts SET owner_key = ${rekey(knex, 'team:', 3)} WHERE owner_key LIKE 't:%'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`UPDATE prediction_history_counts SET owner_key = ${rekey(knex, 'u:', 6)} WHERE owner_key LIKE 'user:%'`);
  await knex.raw(`UPDATE prediction_history_counts SET owner_key = ${rekey(knex, 't:', 6)} WHERE owner_key LIKE 'team:%'`);
}
