// Studio domain verification on SQLite and MariaDB: two studios verifying one hostname at the
// same moment (both records published) end with exactly one serving it, the other pending and
// told why, and no answer is a 5xx; the whole flow works on the embedded default too.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { callOperation } from '../helpers/operation.ts';
import { uniqueName } from '../helpers/services.ts';
import { publishChallenges, startDns } from '../helpers/dns.ts';

type Studio = { id: number; slug: string; domain_verification: Array<{ hostname: string; status: string; problem: string | null; record: { name: string; value: string } }> };

for (const engine of ['sqlite', 'mysql'] as const) {
  test(`${engine}: concurrent verifications of one hostname leave one studio serving it`, async (t) => {
    const dns = await startDns();
    t.teardown(() => dns.close());
    const gw = await startGateway({ db: engine, queue: 'memory', env: { STUDIO_DNS_SERVERS: dns.server } });
    t.teardown(() => gw.stop());
    const host = `${uniqueName('race').toLowerCase().replace(/[^a-z0-9]/g, '')}.partner.test`;
    const owners = await Promise.all([newAccount(gw), newAccount(gw), newAccount(gw)]);
    const studios: Studio[] = [];
    for (const [i, o] of owners.entries()) {
      const slug = `${uniqueName(`r${i}`).toLowerCase().replace(/[^a-z0-9-]/g, '').slice(0, 30)}`;
      const res = await callOperation<Studio>(gw, 'createStudio', { as: o.session, body: { slug, name: `S${i}`, domains: [host], allowed_models: ['canvas-v1-fast-text-to-image'], payer_mode: 'owner_pays' } });
      t.is(res.status, 201);
      studios.push(res.body);
      publishChallenges(dns, res.body);
    }
    const answers = await Promise.all(studios.map((s, i) => callOperation<Studio>(gw, 'verifyStudioDomains', { as: owners[i]!.session, params: { studio_id: s.id } })));
    t.deepEqual(answers.map((a) => a.status), [200, 200, 200]);
    const serving = await gw.app.db('studio_domains').where({ hostname: host });
    t.is(serving.length, 1, 'one studio serves the hostname');
    const states = await Promise.all(studios.map(async (s, i) => (await callOperation<Studio>(gw, 'getStudio', { as: owners[i]!.session, params: { studio_id: s.id } })).body.domain_verification[0]!));
    t.is(states.filter((d) => d.status === 'verified').length, 1);
    const winner = studios.findIndex((s) => Number(serving[0].studio_id) === s.id);
    t.is(states[winner]!.status, 'verified');
    for (const [i, d] of states.entries()) if (i !== winner) t.is(d.status, 'pending');
    const models = await gw.server.inject({ method: 'GET', url: '/api/v1/models', headers: { host } });
    t.is(models.statusCode, 200);
    t.deepEqual((models.result as { models: Array<{ slug: string }> }).models.map((m) => m.slug), ['canvas-v1-fast-text-to-image']);
  });
}
