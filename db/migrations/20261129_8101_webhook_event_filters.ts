// Webhook events besides the result (issue 38, docs/api/webhooks.md "Events while it runs"): a
// submit's `webhook_events_filter` that asks for start, progress or logs events. One row per such
// prediction; a prediction without one (every other) sends its result only, as before.
//
// The row is written before the prediction is accepted (so no worker can run it before its filter
// exists), hence no foreign key to predictions; the owner's key cascades with an account's deletion.
// It also holds what orders and throttles the events across processes: `lease_until` while one
// event is being sent, `closed` once the result's delivery is about to go out (no event after it),
// `last_update_at` for the progress/logs throttle, `start_sent` so a retried run starts once. The
// row is deleted once the result's first attempt may go: it is needed only while the prediction runs.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_event_filters', (t) => {
    t.string('prediction_id', 32).primary();
    t.integer('user_id').unsigned().notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.string('url', 2048).notNullable();
    // the events asked for, comma-separated, in a fixed order (lib/webhook-events.ts)
    t.string('events', 64).notNullable();
    t.boolean('closed').notNullable().defaultTo(false);
    t.boolean('start_sent').notNullable().defaultTo(false);
    t.bigInteger('lease_until').nullable();
    t.bigInteger('last_update_at').nullable();
    t.bigInteger('created_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_event_filters');
}
