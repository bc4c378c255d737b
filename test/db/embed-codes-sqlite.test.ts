// Embed codes on the embedded default (SQLite, in-process queue): the migration, the code lookup
// (with its team and user joins: a studio user's code is refused), the spend sums and the visitor's poll behave as on MariaDB.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { waitFor } from '../helpers/services.ts';

test('an embed code submits, caps its daily spend and lets its visitor poll, on SQLite', async (t) => {
  const gw = await startGateway({ db: 'sqlite', queue: 'memory', worker: true });
  try {
    const owner = await newAccount(gw, 1000);
    const created = await gw.server.inject({
      method: 'POST', url: '/app/embed-codes', headers: { authorization: `Bearer ${owner.session}` },
      payload: { kind: 'embed', name: 'sqlite', models: ['canvas-v1-fast-text-to-image'], allowed_origins: ['*.example.com'], daily_cap: 10 },
    });
    t.is(created.statusCode, 201, created.payload);
    const { code } = JSON.parse(created.payload) as { code: string };
    const submit = (visitor?: string) => gw.server.inject({
      method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image',
      headers: { 'x-embed-code': code, origin: 'https://www.example.com', ...(visitor ? { 'x-embed-visitor': visitor } : {}) }, payload: { prompt: 'x' },
    });
    const first = await submit();
    t.is(first.statusCode, 200, first.payload);
    const visitor = String(first.headers['x-embed-visitor']);
    t.is((await submit(visitor)).statusCode, 200);
    const third = await submit(visitor);
    t.is(third.statusCode, 402);
    t.is((JSON.parse(third.payload) as { code: string }).code, 'embed_daily_cap_reached');
    const id = (JSON.parse(first.payload) as { request_id: string }).request_id;
    const done = await waitFor(async () => {
      const r = await gw.server.inject({ method: 'GET', url: `/api/v1/predictions/${id}/result`, headers: { 'x-embed-code': code, origin: 'https://www.example.com', 'x-embed-visitor': visitor } });
      return r.statusCode === 200 && (JSON.parse(r.payload) as { status: string }).status === 'completed';
    }, { what: 'the prediction to complete' });
    t.true(done);
    // charged to the owner: every completed run's price left the wallet, the rest is held
    const completed = Number((await gw.app.db('predictions').where({ status: 'completed' }).count({ n: '*' }).first())!.n);
    const user = await gw.app.db('users').where({ id: owner.userId }).first();
    t.is(Number(user.balance) + Number(user.held), 1000 - 5 * completed);
  } finally {
    await gw.stop();
  }
});

test('a studio user\'s code is read with their studio and refused (studio_required), and none is created for them, on SQLite', async (t) => {
  const gw = await startGateway({ db: 'sqlite', queue: 'memory' });
  try {
    const owner = await newAccount(gw, 1000);
    const auth = { authorization: `Bearer ${owner.session}` };
    const studio = await gw.server.inject({ method: 'POST', url: '/app/studios', headers: auth, payload: { slug: 'sqlite-shop', name: 'Shop', allowed_models: ['canvas-v1-budget-text-to-image'], payer_mode: 'end_user_pays', markup_percent: 100 } });
    t.is(studio.statusCode, 201, studio.payload);
    const inStudio = { 'x-whitelabel-studio': 'sqlite-shop' };
    const reg = await gw.server.inject({ method: 'POST', url: '/auth/register', headers: inStudio, payload: { email: 'end-user@example.com', password: 'correct horse battery' } });
    const userId = (JSON.parse(reg.payload) as { id: number }).id;
    const login = await gw.server.inject({ method: 'POST', url: '/auth/login', headers: inStudio, payload: { email: 'end-user@example.com', password: 'correct horse battery' } });
    const session = (JSON.parse(login.payload) as { access_token: string }).access_token;
    const refused = await gw.server.inject({ method: 'POST', url: '/app/embed-codes', headers: { authorization: `Bearer ${session}`, ...inStudio }, payload: { kind: 'embed', name: 'x', models: ['canvas-v1-fast-text-to-image'] } });
    t.is(refused.statusCode, 403, refused.payload);
    // one made before the rule
    const { createEmbedCode } = await import('../../db/embed-codes.ts');
    const old = await createEmbedCode(gw.app.db, { userId, teamId: null }, 'embed', {
      name: 'old', models: ['canvas-v1-fast-text-to-image'], preset: null, lockedInputs: {}, allowedFields: null, allowedOrigins: [], maxCostPerRun: null,
      dailyCap: null, monthlyCap: null, rateLimitPerMinute: null, maxConcurrent: null,
    }, gw.app.clock());
    const run = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-embed-code': old.code }, payload: { prompt: 'x' } });
    t.is(run.statusCode, 403, run.payload);
    t.is((JSON.parse(run.payload) as { code: string }).code, 'studio_required');
    // the owner's code runs
    const mine = await gw.server.inject({ method: 'POST', url: '/app/embed-codes', headers: auth, payload: { kind: 'embed', name: 'mine', models: ['canvas-v1-fast-text-to-image'] } });
    const ok = await gw.server.inject({ method: 'POST', url: '/api/v1/canvas-v1-fast-text-to-image', headers: { 'x-embed-code': (JSON.parse(mine.payload) as { code: string }).code }, payload: { prompt: 'x' } });
    t.is(ok.statusCode, 200, ok.payload);
  } finally {
    await gw.stop();
  }
});
