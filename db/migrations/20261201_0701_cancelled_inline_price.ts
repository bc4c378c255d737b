// A chat call (POST /v1/chat/completions) cancelled while it ran, and then charged nothing (its
// process stopped and the sweeper released its hold, or an older version's cancel released it),
// kept the hold as its price. Key spend limits, monthly budgets, embed caps and studio usage now
// count a cancelled chat call by its price (it was charged the answer it relayed), so such a
// row's price becomes what it cost: 0. Found by its settled usage row and the absence of a charge
// in the ledger; one statement. Nothing to undo: the old price was a hold that went back.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex('predictions')
    .where('status', 'cancelled').andWhere('price', '>', 0)
    .whereIn('id', knex('prediction_usage').whereNotNull('settled_at').select('prediction_id'))
    .whereNotExists((q) => q.select(1).from('credit_transactions').whereRaw('credit_transactions.prediction_id = predictions.id').andWhere('credit_transactions.kind', 'prediction'))
    .update({ price: 0, list_price: knex.raw('CASE WHEN list_price IS NULL THEN NULL ELSE 0 END') });
}

export async function down(): Promise<void> {
  // the hold each row showed went back to its wallet: there is nothing to restore
}
