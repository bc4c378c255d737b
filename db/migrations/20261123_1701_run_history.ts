// Run history (README "Run history, gallery and review"): where a prediction came from
// (`source`), who set its review status and when, and a soft delete (`deleted_at`: bulk_delete
// hides the row from history and gallery and removes its files; the row and its ledger rows stay).
// The two history indexes serve keyset pagination newest first per owner: personal rows are
// `user_id = ? AND team_id IS NULL`, team rows `team_id = ?`; `deleted_at IS NULL` is an equality
// on the index too, so hidden rows are never scanned, and `id` is in the index explicitly (SQLite
// does not append a non-integer primary key to its indexes; InnoDB does, harmlessly twice).
// The ledger gets the same shape for the personal branch (the team branch has (team_id, id)).
import type { Knex } from 'knex';

const PERSONAL = 'predictions_history_personal_index';
const TEAM = 'predictions_history_team_index';
const LEDGER = 'credit_transactions_personal_index';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('predictions', (t) => {
    // api, dashboard, embed, agent_embed, studio
    t.string('source', 16).notNullable().defaultTo('api');
    t.integer('reviewed_by').unsigned().nullable();
    t.bigInteger('reviewed_at').nullable();
    t.bigInteger('deleted_at').nullable();
    t.index(['user_id', 'team_id', 'deleted_at', 'created_at', 'id'], PERSONAL);
    t.index(['team_id', 'deleted_at', 'created_at', 'id'], TEAM);
  });
  await knex.schema.alterTable('credit_transactions', (t) => {
    t.index(['user_id', 'team_id', 'id'], LEDGER);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('credit_transactions', (t) => {
    t.dropIndex(['user_id', 'team_id', 'id'], LEDGER);
  });
  await knex.schema.alterTable('predictions', (t) => {
    t.dropIndex(['team_id', 'deleted_at', 'created_at', 'id'], TEAM);
    t.dropIndex(['user_id', 'team_id', 'deleted_at', 'created_at', 'id'], PERSONAL);
    t.dropColumn('deleted_at');
    t.dropColumn('reviewed_at');
    t.dropColumn('reviewed_by');
    t.dropColumn('source');
  });
}
