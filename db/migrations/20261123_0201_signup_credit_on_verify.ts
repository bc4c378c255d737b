// Issue 16 item 4: the sign-up credit is granted when the email is verified, once per account.
// `signup_credit_granted` is flipped by a conditional UPDATE in the transaction that verifies
// the address, together with the credit itself.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Left in place by a rollback on SQLite (see down).
  if (await knex.schema.hasColumn('users', 'signup_credit_granted')) return;
  await knex.schema.alterTable('users', (t) => {
    t.boolean('signup_credit_granted').notNullable().defaultTo(false);
  });
  // Accounts created before this migration got their credit when they were created.
  await knex('users').update({ signup_credit_granted: true });
}

export async function down(knex: Knex): Promise<void> {
  // SQLite cannot drop a column in place: knex rebuilds the table, and the rebuild's DROP TABLE
  // cascades to every row that references users (keys, predictions, codes). There the column
  // stays; nothing reads it after a rollback.
  if (knex.client.config.client !== 'mysql2') return;
  await knex.schema.alterTable('users', (t) => {
    t.dropColumn('signup_credit_granted');
  });
}
