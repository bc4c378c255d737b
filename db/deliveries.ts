// Creating webhook deliveries. Apart from db/webhooks.ts because the transitions that finish
// a prediction (db/predictions.ts) create them, while db/webhooks.ts reads predictions back.
import crypto from 'node:crypto';
import type { Knex } from 'knex';

/** The Standard Webhooks message id: `msg_` + 144 random bits. */
export function newDeliveryId(): string {
  return `msg_${crypto.randomBytes(18).toString('base64url')}`;
}

/** Called in the transaction that finishes the prediction, so a finished prediction never lacks its delivery. */
export async function insertDelivery(trx: Knex, d: { id: string; predictionId: string; userId: number; url: string }, now: number): Promise<void> {
  await trx('webhook_deliveries').insert({
    id: d.id, prediction_id: d.predictionId, user_id: d.userId, url: d.url, status: 'pending', attempts: 0,
    next_attempt_at: now, created_at: now, updated_at: now,
  });
}
