// A whitelabel studio whose owner is gone, on SQLite and MariaDB: a personal studio whose owner's
// account is erased, and a team's studio whose team is deleted, are disabled studios. Their end
// users' accounts live only inside them, so by the slug they still sign in, read the site (which
// says the studio is disabled), export their account and ask for its deletion; everything else
// there is 403 studio_disabled. A deleted team's studio frees its domains, as an erased owner's
// does, so another owner can claim and serve them.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { uniqueName } from '../helpers/services.ts';
import { publishChallenges, startDns } from '../helpers/dns.ts';
import { eraseAccountAndFiles } from '../../workers/retention.ts';

const MODEL = 'canvas-v1-fast-text-to-image';
const PASSWORD = 'correct horse battery';

type Studio = { id: number; slug: string; domains: string[]; domain_verification: Array<{ hostname: string; status: string; record: { name: string; value: string } }> };

const slugOf = (prefix: string) => uniqueName(prefix).toLowerCase().replace(/[^a-z0-9-]/g, '').slice(0, 30);
const inStudio = (slug: string) => ({ 'x-whitelabel-studio': slug });

/** An end user of the studio with a password, registered in its context. */
async function endUser(gw: TestGateway, slug: string): Promise<string> {
  const email = `${uniqueName('enduser')}@example.com`;
  const reg = await gw.server.inject({ method: 'POST', url: '/auth/register', headers: inStudio(slug), payload: { email, password: PASSWORD } });
  if (reg.statusCode !== 201) throw new Error(`register: ${reg.payload}`);
  return email;
}

/** What the studio's end user can still do by its slug once its owner is gone, and what not. */
async function stillLeaves(t: ExecutionContext, gw: TestGateway, slug: string, email: string): Promise<void> {
  const ctx = inStudio(slug);
  const site = await callOperation<{ disabled: boolean; registration: string }>(gw, 'getSiteInfo', { headers: ctx });
  t.is(site.status, 200, JSON.stringify(site.body));
  t.true(site.body.disabled);
  t.is(site.body.registration, 'closed');
  const login = await callOperation<{ access_token: string }>(gw, 'login', { headers: ctx, body: { email, password: PASSWORD } });
  t.is(login.status, 200, JSON.stringify(login.body));
  const session = login.body.access_token;
  const exported = await callOperation<{ user: { email: string } }>(gw, 'exportAccount', { as: session, headers: ctx });
  t.is(exported.status, 200, JSON.stringify(exported.body));
  t.is(exported.body.user.email, email);
  const run = await gw.server.inject({
    method: 'POST', url: `/api/v1/${MODEL}`, headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json', ...ctx }, payload: { prompt: 'a lighthouse' },
  });
  t.is(run.statusCode, 403, run.payload);
  t.is((JSON.parse(run.payload) as { code: string }).code, 'studio_disabled');
  const registration = await gw.server.inject({ method: 'POST', url: '/auth/register', headers: ctx, payload: { email: `${uniqueName('late')}@example.com`, password: PASSWORD } });
  t.is((JSON.parse(registration.payload) as { code: string }).code, 'studio_disabled');
  const deletion = await callOperation<{ scheduled_deletion_at: string | null }>(gw, 'requestAccountDeletion', { as: session, headers: ctx });
  t.is(deletion.status, 200, JSON.stringify(deletion.body));
  t.truthy(deletion.body.scheduled_deletion_at);
}

for (const engine of ['sqlite', 'mysql'] as const) {
  test(`${engine}: a personal studio whose owner's account is erased still lets its users sign in, take their data and leave`, async (t) => {
    const gw = await startGateway({ db: engine, queue: 'memory' });
    t.teardown(() => gw.stop());
    const owner = await newAccount(gw);
    const studio = await callOperation<Studio>(gw, 'createStudio', { as: owner.session, body: { slug: slugOf('erased'), name: 'Orphan Shop', allowed_models: [MODEL], payer_mode: 'end_user_pays' } });
    t.is(studio.status, 201);
    const email = await endUser(gw, studio.body.slug);

    t.like(await eraseAccountAndFiles(gw.app, owner.userId, gw.app.clock(), { immediate: true }), { kind: 'erased' });
    await stillLeaves(t, gw, studio.body.slug, email);
  });

  test(`${engine}: a deleted team's studio is disabled: its users still sign in, take their data and leave, and its domains are free for another owner`, async (t) => {
    const dns = await startDns();
    t.teardown(() => dns.close());
    const gw = await startGateway({ db: engine, queue: 'memory', env: { STUDIO_DNS_SERVERS: dns.server } });
    t.teardown(() => gw.stop());
    const lead = await newAccount(gw);
    const team = await callOperation<{ id: number }>(gw, 'createTeam', { as: lead.session, body: { name: 'Closing team' } });
    t.is(team.status, 201);
    const teamId = team.body.id;
    const host = `${slugOf('teamgone').replace(/-/g, '')}.partner.test`;
    const created = await callOperation<Studio>(gw, 'createStudio', {
      as: lead.session, query: { team_id: teamId }, body: { slug: slugOf('teamgone'), name: 'Team Shop', domains: [host], allowed_models: [MODEL], payer_mode: 'end_user_pays' },
    });
    t.is(created.status, 201);
    publishChallenges(dns, created.body);
    const verified = await callOperation<Studio>(gw, 'verifyStudioDomains', { as: lead.session, query: { team_id: teamId }, params: { studio_id: created.body.id } });
    t.is(verified.body.domain_verification[0]!.status, 'verified');
    const email = await endUser(gw, created.body.slug);

    t.is((await callOperation(gw, 'deleteTeam', { as: lead.session, params: { team_id: teamId } })).status, 200);
    // one rule: the studio is disabled, and its domains (served and claimed) are released with it
    const row = await gw.app.db('studios').where('id', created.body.id).first<{ disabled_at: number | string | null }>('disabled_at');
    t.not(row.disabled_at, null);
    t.deepEqual(await gw.app.db('studio_domains').where('studio_id', created.body.id), []);
    t.deepEqual(await gw.app.db('studio_domain_claims').where('studio_id', created.body.id), []);
    await stillLeaves(t, gw, created.body.slug, email);

    // its former domain is the gateway's own again, and another owner claims and serves it
    t.is((await gw.server.inject({ method: 'POST', url: '/auth/login', headers: { host }, payload: { email, password: PASSWORD } })).statusCode, 401);
    const other = await newAccount(gw);
    const next = await callOperation<Studio>(gw, 'createStudio', { as: other.session, body: { slug: slugOf('next'), name: 'Next Shop', domains: [host], allowed_models: [MODEL], payer_mode: 'end_user_pays' } });
    t.is(next.status, 201);
    publishChallenges(dns, next.body);
    const taken = await callOperation<Studio>(gw, 'verifyStudioDomains', { as: other.session, params: { studio_id: next.body.id } });
    t.is(taken.body.domain_verification[0]!.status, 'verified');
    const site = await callOperation<{ disabled: boolean; studio: { slug: string } | null }>(gw, 'getSiteInfo', { headers: { host } });
    t.is(site.body.studio?.slug, next.body.slug);
    t.false(site.body.disabled);
  });

  test(`${engine}: a studio of a team deleted before team deletion disabled its studios is served as a disabled one by its slug; its old domain selects nothing`, async (t) => {
    const dns = await startDns();
    t.teardown(() => dns.close());
    const gw = await startGateway({ db: engine, queue: 'memory', env: { STUDIO_DNS_SERVERS: dns.server } });
    t.teardown(() => gw.stop());
    const lead = await newAccount(gw);
    const team = await callOperation<{ id: number }>(gw, 'createTeam', { as: lead.session, body: { name: 'Old team' } });
    const host = `${slugOf('oldteam').replace(/-/g, '')}.partner.test`;
    const created = await callOperation<Studio>(gw, 'createStudio', {
      as: lead.session, query: { team_id: team.body.id }, body: { slug: slugOf('oldteam'), name: 'Old Shop', domains: [host], allowed_models: [MODEL], payer_mode: 'end_user_pays' },
    });
    publishChallenges(dns, created.body);
    t.is((await callOperation<Studio>(gw, 'verifyStudioDomains', { as: lead.session, query: { team_id: team.body.id }, params: { studio_id: created.body.id } })).body.domain_verification[0]!.status, 'verified');
    const email = await endUser(gw, created.body.slug);
    // what deleting a team did before: the team row only, its studio left enabled with its domain
    await gw.app.db('teams').where('id', team.body.id).update({ deleted_at: gw.app.clock() });

    await stillLeaves(t, gw, created.body.slug, email);
    // its domain, still attached, selects nothing, and the header there names the studio by its slug
    t.is((await gw.server.inject({ method: 'POST', url: '/auth/login', headers: { host }, payload: { email, password: PASSWORD } })).statusCode, 401);
    const there = await callOperation<{ disabled: boolean }>(gw, 'getSiteInfo', { headers: { host, ...inStudio(created.body.slug) } });
    t.is(there.status, 200, JSON.stringify(there.body));
    t.true(there.body.disabled);
  });
}
