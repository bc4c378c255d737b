// Migration 20261201_0101 (studio domain claims) on MariaDB and SQLite: a domain that served a
// studio before it is carried over as a verified claim with its own token, so no partner's
// storefront stops at the upgrade; down removes the claims and keeps the domains.
import test from 'ava';
import { migrate } from '../../db/knex.ts';
import { migrationSource } from '../../db/migrations/index.ts';
import { findActiveStudio, findStudio } from '../../db/studios.ts';
import { databaseBefore, migrationsFrom } from '../helpers/migrations.ts';

const OURS = '20261201_0101_studio_domain_claims';

for (const engine of ['mysql', 'sqlite'] as const) {
  test(`${engine}: a domain set before verification existed keeps serving, verified, with its own token`, async (t) => {
    const db = await databaseBefore(t, engine, OURS);
    const later = await migrationsFrom(OURS);
    t.false(await db.schema.hasTable('studio_domain_claims'));

    const now = Date.now();
    const [userId] = await db('users').insert({ email: 'owner@example.com', created_at: now });
    const studio = { user_id: userId, name: 'S', branding: '{}', allowed_models: '[]', model_prices: '{}', payer_mode: 'owner_pays', created_at: now, updated_at: now };
    const [a] = await db('studios').insert({ ...studio, slug: 'studio-a' });
    const [b] = await db('studios').insert({ ...studio, slug: 'studio-b' });
    await db('studio_domains').insert([{ hostname: 'a.example.com', studio_id: a }, { hostname: 'a2.example.com', studio_id: a }, { hostname: 'b.example.com', studio_id: b }]);

    t.deepEqual((await migrate(db)).slice(0, 1), [OURS]);
    const owner = { userId: Number(userId), teamId: null };
    const after = (await findStudio(db, owner, Number(a)))!;
    t.deepEqual(after.domains, ['a.example.com', 'a2.example.com']);
    t.deepEqual(after.servingDomains, ['a.example.com', 'a2.example.com']);
    t.true(after.domainClaims.every((c) => c.serving && c.verifiedAt !== null && /^[0-9a-f]{32}$/.test(c.token)));
    t.not(after.domainClaims[0]!.token, after.domainClaims[1]!.token);
    t.is((await findActiveStudio(db, { hostname: 'b.example.com' }))?.slug, 'studio-b');

    for (let i = 0; i < later.length; i++) await db.migrate.down({ migrationSource });
    t.false(await db.schema.hasTable('studio_domain_claims'));
    t.is((await db('studio_domains')).length, 3);
  });
}
