// Fewer index writes per status transition on MariaDB/MySQL (issue 15). The sweeper and the
// queue-age metric read two indexes that every transition (queued -> pending -> processing ->
// completed) rewrote: (status, created_at) (migration 0002: requests still `queued` past
// DISPATCH_GRACE_MS; the oldest queued or pending one) and (status, updated_at) (0301: `pending`
// too long; a `processing` upstream job not polled). They become one, (status, waiting_since,
// updated_at), where `waiting_since` is a virtual column: created_at while queued or pending,
// updated_at while processing, NULL once finished. One entry per row instead of two, written at
// insert and rewritten once per transition. The metric's oldest queued and oldest pending row are
// each the first entry of their status; the stale-pending sweep reads the pending rows created
// before its cut-off (a row pending since before it was necessarily created before it) and keeps
// those whose updated_at, in the entry itself, is older too.
// SQLite (the embedded default, one process) keeps both indexes, as it keeps its status indexes
// (20261126_0101): knex alters a SQLite table by copying it, which a generated column breaks.
import type { Knex } from 'knex';

const CREATED = 'predictions_status_created_at_index';
const UPDATED = 'predictions_status_updated_at_index';
const NEW = 'predictions_status_waiting_since_index';

const mysql = (knex: Knex) => knex.client.config.client === 'mysql2';

export async function up(knex: Knex): Promise<void> {
  if (!mysql(knex)) return;
  await knex.raw("ALTER TABLE predictions ADD COLUMN waiting_since BIGINT GENERATED ALWAYS AS (CASE WHEN status IN ('queued', 'pending') THEN created_at WHEN status = 'processing' THEN updated_at END) VIRTUAL");
  await knex.raw(`ALTER TABLE predictions DROP INDEX ${CREATED}, DROP INDEX ${UPDATED}, ADD INDEX ${NEW} (status, waiting_since, updated_at)`);
}

export async function down(knex: Knex): Promise<void> {
  if (!mysql(knex)) return;
  await knex.raw(`ALTER TABLE predictions DROP INDEX ${NEW}, ADD INDEX ${CREATED} (status, created_at), ADD INDEX ${UPDATED} (status, updated_at)`);
  await knex.raw('ALTER TABLE predictions DROP COLUMN waiting_since');
}
