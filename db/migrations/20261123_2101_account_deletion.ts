// Account deletion (README "Deleting an account"): a requested deletion waits out a grace period
// (`deletion_due_at`, found by the retention job through its index), during which the account
// can sign in and cancel and its API keys and OAuth clients are refused. The erased account keeps
// its row as an anonymised tombstone (`deleted_at`), so ledger rows, which are never deleted,
// still name a wallet.
import type { Knex } from 'knex';

const INDEX = 'users_deletion_due_at_index';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.bigInteger('deletion_requested_at').nullable();
    t.bigInteger('deletion_due_at').nullable();
    t.bigInteger('deleted_at').nullable();
    t.index(['deletion_due_at'], INDEX);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => {
    t.dropIndex(['deletion_due_at'], INDEX);
    t.dropColumn('deletion_requested_at');
    t.dropColumn('deletion_due_at');
    t.dropColumn('deleted_at');
  });
}
