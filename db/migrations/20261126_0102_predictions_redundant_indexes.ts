// Two indexes of `predictions` that no query needs, dropped on MariaDB/MySQL (issue 15: each costs
// an entry on every insert): (user_id, created_at) from the first migration and (team_id,
// created_at) from teams (0701). Every query on a user's predictions names the owner (user_id and
// team_id IS NULL) and is served by the history index (user_id, team_id, deleted_at, created_at,
// id; migration 1701) or (user_id, team_id, unfinished); the user_id foreign key uses the history
// index once this one is gone. Team queries are served by (team_id, deleted_at, created_at, id)
// and (team_id, unfinished). SQLite (the embedded default, one process) keeps them, as it keeps
// its status indexes (20261126_0101).
import type { Knex } from 'knex';

const USER = 'predictions_user_id_created_at_index';
const TEAM = 'predictions_team_id_created_at_index';

const mysql = (knex: Knex) => knex.client.config.client === 'mysql2';

export async function up(knex: Knex): Promise<void> {
  if (!mysql(knex)) return;
  await knex.raw(`ALTER TABLE predictions DROP INDEX ${USER}, DROP INDEX ${TEAM}`);
}

export async function down(knex: Knex): Promise<void> {
  if (!mysql(knex)) return;
  await knex.raw(`ALTER TABLE predictions ADD INDEX ${USER} (user_id, created_at), ADD INDEX ${TEAM} (team_id, created_at)`);
}
