// Issue 16 item 16: mails can arrive out of order, so an account keeps its last two unexpired
// codes per purpose (db/otp.ts); using either consumes both. The one-row-per-(account,
// purpose) unique index goes; a plain index (created first: MariaDB's foreign key on user_id
// needs an index that starts with it) serves the lookups.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('otp_codes', (t) => {
    t.index(['user_id', 'purpose']);
  });
  await knex.schema.alterTable('otp_codes', (t) => {
    t.dropUnique(['user_id', 'purpose']);
  });
}

export async function down(knex: Knex): Promise<void> {
  // Back to one row per (account, purpose): keep the newest.
  const rows = await knex('otp_codes').select('user_id', 'purpose').max({ keep: 'id' }).groupBy('user_id', 'purpose');
  for (const r of rows as Array<{ user_id: number; purpose: string; keep: number }>) {
    await knex('otp_codes').where({ user_id: r.user_id, purpose: r.purpose }).andWhere('id', '<>', r.keep).delete();
  }
  await knex.schema.alterTable('otp_codes', (t) => {
    t.unique(['user_id', 'purpose']);
  });
  await knex.schema.alterTable('otp_codes', (t) => {
    t.dropIndex(['user_id', 'purpose']);
  });
}
