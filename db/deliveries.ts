// Creating webhook deliveries. Apart from db/webhooks.ts because the transitions that finish
// a prediction (the store, db/store/) create them, while db/webhooks.ts reads predictions back.
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { insertHead, rowsInsert } from './sql.ts';

/** The Standard Webhooks message id: `msg_` + 144 random bits. */
export function newDeliveryId(): string {
  return `msg_${crypto.randomBytes(18).toString('base64url')}`;
}

/** A delivery row to create: the prediction it reports and where it goes. */
export interface NewDelivery {
  id: string;
  predictionId: string;
  userId: number;
  url: string;
}

const DELIVERY_COLUMNS = ['id', 'prediction_id', 'user_id', 'url', 'status', 'attempts', 'next_attempt_at', 'created_at', 'updated_at'] as const;
const insertRows = rowsInsert('webhook_deliveries', DELIVERY_COLUMNS);
const deliveryRow = (d: NewDelivery & { now: number }): Knex.RawBinding[] => [d.id, d.predictionId, d.userId, d.url, 'pending', 0, d.now, d.now, d.now];

/** Called in the transaction that finishes the prediction, so a finished prediction never lacks its delivery. */
export async function insertDelivery(trx: Knex, d: NewDelivery, now: number): Promise<void> {
  await insertDeliveries(trx, [{ ...d, now }]);
}

/** insertDelivery for several finished predictions (a worker's completion group), each at its own time, in one fixed INSERT (db/sql.ts rowsInsert). */
export async function insertDeliveries(trx: Knex, ds: ReadonlyArray<NewDelivery & { now: number }>): Promise<void> {
  if (ds.length === 0) return;
  await insertRows(trx, ds.map(deliveryRow));
}

const NESTED_INSERT = `${insertHead('webhook_deliveries', DELIVERY_COLUMNS)}?`;

/** MariaDB/MySQL: insertDeliveries as SQL text and its one binding (the rows, nested), for a statement that holds more (db/store/mariadb/complete-group.ts). */
export function deliveriesInsertSql(ds: ReadonlyArray<NewDelivery & { now: number }>): { sql: string; binding: Knex.RawBinding } {
  // knex types no array of arrays as a binding; mysql2 writes it as the rows' value lists
  return { sql: NESTED_INSERT, binding: ds.map(deliveryRow) as unknown as Knex.RawBinding };
}
