// Generation limits (README "Rate limits on generation"): a key may carry its own requests per
// minute and concurrent predictions (null: the gateway's defaults), and the concurrency check
// counts an owner's or a key's non-terminal predictions, so those counts get indexes that end
// in `status`.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.integer('rate_limit_per_minute').unsigned().nullable();
    t.integer('max_concurrent').unsigned().nullable();
  });
  await knex.schema.alterTable('predictions', (t) => {
    t.index(['api_key_id', 'status'], 'predictions_api_key_status_index');
    t.index(['user_id', 'team_id', 'status'], 'predictions_owner_status_index');
    t.index(['team_id', 'status'], 'predictions_team_status_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('predictions', (t) => {
    t.dropIndex(['api_key_id', 'status'], 'predictions_api_key_status_index');
    t.dropIndex(['user_id', 'team_id', 'status'], 'predictions_owner_status_index');
    t.dropIndex(['team_id', 'status'], 'predictions_team_status_index');
  });
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('rate_limit_per_minute');
    t.dropColumn('max_concurrent');
  });
}
