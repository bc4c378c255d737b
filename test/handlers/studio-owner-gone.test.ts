// A whitelabel studio whose owner is gone, on SQLite and MariaDB: a personal studio whose owner's
// account is erased is a disabled studio. Its end users' accounts live only inside it, so by the
// slug they still sign in, read the site (which says the studio is disabled), export their account
// and ask for its deletion; everything else there is 403 studio_disabled.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { uniqueName } from '../helpers/services.ts';
import { eraseAccountAndFiles } from '../../workers/retention.ts';

const MODEL = 'canvas-v1-fast-text-to-image';
const PASSWORD = 'correct horse battery';

type Studio = { id: number; slug: string };

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
}
