// Fewer round trips per charge (issue 15): a wallet row (users, teams) counts its credit_grants
// rows with credit left (remaining > 0, expired or not: a charge spends an unswept expired grant
// first), so a charge or deduction of a wallet with none skips consumeGrants' SELECT. Kept under
// the wallet row's lock by db/credit-grants.ts: +1 where a grant is created, a locking recount
// where one is used up or expires. A count that is too high only costs the SELECT; it is never 0
// while the wallet has such a grant. Backfilled here from the table.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => { t.integer('grants').notNullable().defaultTo(0); });
  await knex.schema.alterTable('teams', (t) => { t.integer('grants').notNullable().defaultTo(0); });
  const rows = await knex('credit_grants').where('remaining', '>', 0).select('user_id', 'team_id').count({ n: '*' }).groupBy('user_id', 'team_id') as Array<{ user_id: number | string; team_id: number | string | null; n: number | string }>;
  const byWallet = new Map<string, { table: 'users' | 'teams'; id: number; n: number }>();
  for (const r of rows) {
    const w = r.team_id === null ? { table: 'users' as const, id: Number(r.user_id) } : { table: 'teams' as const, id: Number(r.team_id) };
    const k = `${w.table}:${w.id}`;
    byWallet.set(k, { ...w, n: (byWallet.get(k)?.n ?? 0) + Number(r.n) });
  }
  for (const w of byWallet.values()) await knex(w.table).where('id', w.id).update({ grants: w.n });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => { t.dropColumn('grants'); });
  await knex.schema.alterTable('teams', (t) => { t.dropColumn('grants'); });
}
