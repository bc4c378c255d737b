// The allowed origins of embed codes, one row per entry, indexed by host (README "Embeds"): a CORS
// preflight carries no code, so it asks which active code of a kind allows the origin. Reading
// every active code's list for that grew with the number of codes; the index answers from the
// entries whose host could match (the origin's host, its parent domains as `*.` entries, and `*`
// for codes without a list). `embed_codes.allowed_origins` stays the list as the owner wrote it.
import type { Knex } from 'knex';

/** The key an entry is found by: its host, `*.` + the domain for a wildcard, `*` for "every origin". */
function hostKey(entry: string): string {
  const m = /^(?:https?:\/\/)?(\*\.)?([^:/]+)/.exec(entry);
  return m ? `${m[1] ?? ''}${m[2]}` : entry;
}

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('embed_code_origins', (t) => {
    t.increments('id').primary();
    t.integer('code_id').unsigned().notNullable().references('id').inTable('embed_codes').onDelete('CASCADE');
    t.string('kind', 16).notNullable();
    t.string('host_key', 255).notNullable();
    t.string('pattern', 300).notNullable();
    t.index(['kind', 'host_key']);
    t.index(['code_id']);
  });
  const codes = await knex('embed_codes').select('id', 'kind', 'allowed_origins') as Array<{ id: number; kind: string; allowed_origins: string | null }>;
  for (const c of codes) {
    let list: string[] = [];
    try { list = JSON.parse(c.allowed_origins ?? '[]') as string[]; } catch { list = []; }
    const rows = list.length === 0 ? [{ code_id: c.id, kind: c.kind, host_key: '*', pattern: '*' }] : list.map((p) => ({ code_id: c.id, kind: c.kind, host_key: hostKey(p), pattern: p }));
    await knex('embed_code_origins').insert(rows);
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('embed_code_origins');
}
