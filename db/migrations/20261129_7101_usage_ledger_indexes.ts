// Usage (GET /app/usage, db/usage.ts) sums an owner's ledger rows of a range of days: the ledger
// gets (owner, created_at) indexes, the personal branch (user_id, team_id, created_at) and the
// team branch (team_id, created_at), so the read is a range scan of the owner's rows in the range
// at any ledger size.
import type { Knex } from 'knex';

const PERSONAL = 'credit_transactions_owner_created_index';
const TEAM = 'credit_transactions_team_created_index';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('credit_transactions', (t) => {
    t.index(['user_id', 'team_id', 'created_at'], PERSONAL);
    t.index(['team_id', 'created_at'], TEAM);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('credit_transactions', (t) => {
    t.dropIndex(['team_id', 'created_at'], TEAM);
    t.dropIndex(['user_id', 'team_id', 'created_at'], PERSONAL);
  });
}
