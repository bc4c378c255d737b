// The Stripe subscription that started a wallet's plan, on the plan's row: `stripe_subscription_id`
// is set when a paid subscription checkout starts the plan and null when an admin activates it. A
// plan with one is granted each period when Stripe reports that period's invoice paid (never by the
// renewal job's clock), and only that Stripe subscription's events change it, so a late event of an
// earlier one leaves a plan an admin activated since alone. `stripe_event_at`: the `created` time
// (epoch seconds) of the newest Stripe event applied to the plan, so an older one delivered after
// it changes nothing. Rows of plans started before this migration are linked to the checkout that
// started their current activation: the one recorded at the very time of the activation's first
// grant (an admin's activation after it leaves the row unlinked, as it should be).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('subscriptions', (t) => {
    t.string('stripe_subscription_id', 255).nullable();
    t.bigInteger('stripe_event_at').nullable();
    t.index(['stripe_subscription_id']);
  });
  const rows = await knex('subscriptions').whereIn('status', ['active', 'held']).select('id', 'user_id', 'team_id') as Array<{ id: number; user_id: number; team_id: number | null }>;
  for (const r of rows) {
    const q = knex('stripe_subscription_checkouts').where('outcome', 'started').whereNotNull('stripe_subscription_id').orderBy('id', 'desc');
    if (r.team_id === null) q.where('user_id', r.user_id).whereNull('team_id');
    else q.where('team_id', r.team_id);
    const checkout = await q.first<{ stripe_subscription_id: string; created_at: number | string } | undefined>('stripe_subscription_id', 'created_at');
    if (!checkout) continue;
    // the activation grants its first period at once: period_start = created_at = the activation's time
    const activation = await knex('credit_grants').where('subscription_id', r.id).whereRaw('period_start = created_at')
      .max({ at: 'period_start' }).first<{ at: number | string | null }>();
    if (activation?.at === null || activation?.at === undefined || Number(activation.at) !== Number(checkout.created_at)) continue;
    const ended = await knex('stripe_subscription_checkouts').where({ stripe_subscription_id: checkout.stripe_subscription_id, outcome: 'ended' }).first('id');
    if (ended) continue;
    await knex('subscriptions').where('id', r.id).update({ stripe_subscription_id: checkout.stripe_subscription_id });
  }
}

export async function down(knex: Knex): Promise<void> {
  // ALTER TABLE ... DROP COLUMN, not knex's dropColumn: on SQLite knex rebuilds the table, and
  // dropping the old one with foreign keys on deletes every row that references it (ON DELETE CASCADE).
  if (knex.client.config.client === 'mysql2') await knex.raw('ALTER TABLE subscriptions DROP INDEX subscriptions_stripe_subscription_id_index');
  else await knex.raw('DROP INDEX IF EXISTS subscriptions_stripe_subscription_id_index');
  await knex.raw('ALTER TABLE subscriptions DROP COLUMN stripe_event_at');
  await knex.raw('ALTER TABLE subscriptions DROP COLUMN stripe_subscription_id');
}
