// A wallet's submit sequence (README "No request lost, none charged twice", the hold-first batch
// path): `submit_seq` on users and teams, raised by every transaction that records a submit which
// the generation limits count (a hold, or the no-op lock of a free counted submit), in the same
// statement that locks the wallet row. A submit batch may then count the unfinished predictions
// before it takes the lock, in one read with the sequence, and take the lock with an UPDATE that
// matches only while the sequence is still the one it read: no submit of that wallet committed in
// between, so the counts are still exact (predictions finishing meanwhile only lower them).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  for (const table of ['users', 'teams']) {
    await knex.schema.alterTable(table, (t) => {
      t.bigInteger('submit_seq').unsigned().notNullable().defaultTo(0);
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['users', 'teams']) {
    await knex.schema.alterTable(table, (t) => {
      t.dropColumn('submit_seq');
    });
  }
}
