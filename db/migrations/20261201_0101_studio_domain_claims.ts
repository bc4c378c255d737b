// Studio domains are verified before they serve (docs/partners/studios.md "Domains"): every
// hostname an owner sets on a studio is a claim, one row per studio and hostname, with the token
// its DNS TXT record must hold (a value meant to be published, not a secret) and what the last
// check found. `studio_domains` stays the index of the domains that serve (hostname unique across
// studios); a claim enters it only when its record is seen, and a later claim whose record is
// seen takes the hostname over (whoever controls the DNS now decides). Domains set before this
// migration served without a check: they are carried over as verified at migration time.
import type { Knex } from 'knex';
import crypto from 'node:crypto';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('studio_domain_claims', (t) => {
    t.integer('studio_id').unsigned().notNullable().references('id').inTable('studios');
    t.string('hostname', 253).notNullable();
    t.string('token', 64).notNullable();
    t.bigInteger('created_at').notNullable();
    // when this studio last proved control (null: never, or lost to another studio since)
    t.bigInteger('verified_at').nullable();
    t.bigInteger('checked_at').nullable();
    t.text('check_error').nullable();
    t.primary(['studio_id', 'hostname']);
    t.index(['hostname'], 'studio_domain_claims_hostname_index');
  });
  const now = Date.now();
  const serving = await knex('studio_domains').select('hostname', 'studio_id') as Array<{ hostname: string; studio_id: number }>;
  for (let i = 0; i < serving.length; i += 500) {
    await knex('studio_domain_claims').insert(serving.slice(i, i + 500).map((r) => ({
      studio_id: r.studio_id, hostname: r.hostname, token: crypto.randomBytes(16).toString('hex'), created_at: now, verified_at: now,
    })));
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('studio_domain_claims');
}
