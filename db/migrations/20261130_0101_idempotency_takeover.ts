// Idempotency-Key takeover (db/idempotency.ts): a key whose request never finished (the process
// died) is taken over by its next retry once the record is older than the bound, instead of
// answering 409 for 24 hours. Two columns make that safe:
// - `claim`: a random token naming the run that holds the key; the takeover replaces it, and a
//   run only stores its answer or frees the key under its own token, so a run that was taken
//   over (were it still alive) can no longer touch the record;
// - `ref`: the id the key's work is to have (a model submit: its prediction id), written when the
//   key is first claimed, before any work. A retry that takes the key over finds it there: it
//   answers with that prediction when it exists, or creates it under that same id when it does
//   not, so one key never gets two.
// Both are null on records written before this migration (a takeover gives such a record a ref).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.string('claim', 32).nullable();
    t.string('ref', 64).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.dropColumn('ref');
    t.dropColumn('claim');
  });
}
