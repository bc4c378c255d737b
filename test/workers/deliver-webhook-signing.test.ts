// Standard Webhooks signing (workers/deliver-webhook.ts, part 4), checked against the package
// receivers use; the signing secrets' cache (part 3) kept apart per database.
import test from 'ava';
import { Webhook } from 'standardwebhooks';
import { forgetSecrets, signatureFor, signingSecrets, webhookHeaders } from '../../workers/deliver-webhook.ts';
import { activeSecrets, rotateSecret } from '../../db/webhooks.ts';
import { newAccount, startGateway } from '../helpers/gateway.ts';

test('signatures verify with the standardwebhooks package, with either secret during a rotation', (t) => {
  const oldSecret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
  const newSecret = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
  const body = JSON.stringify({ id: 'abc', status: 'completed' });
  const ts = Math.floor(Date.now() / 1000);
  const headers = webhookHeaders([newSecret, oldSecret], 'msg_1', ts, body);
  t.is(headers['webhook-signature']!.split(' ').length, 2);
  t.deepEqual(new Webhook(newSecret).verify(body, headers), JSON.parse(body));
  t.deepEqual(new Webhook(oldSecret).verify(body, headers), JSON.parse(body));
  t.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 3).toString('base64')}`).verify(body, headers));
  t.regex(signatureFor(newSecret, 'msg_1', ts, body), /^v1,[A-Za-z0-9+/]+=*$/);
});

test('two gateways in one process sign for their own user 1: the secrets\' cache is per database', async (t) => {
  const a = await startGateway({ db: 'sqlite', queue: 'memory' });
  const b = await startGateway({ db: 'sqlite', queue: 'memory' });
  t.teardown(() => Promise.all([a.stop(), b.stop()]));
  const [ua, ub] = [await newAccount(a, 0), await newAccount(b, 0)];
  t.is(ua.userId, ub.userId);
  const owner = { userId: ua.userId, teamId: null };
  const now = Date.now();
  const own = async (g: typeof a) => (await activeSecrets(g.app.db, owner, g.app.encryptionKey, now)).map((s) => s.secret);
  t.notDeepEqual(await own(a), await own(b));
  t.deepEqual(await signingSecrets(a.app.db, owner, a.app.encryptionKey, now), await own(a));
  t.deepEqual(await signingSecrets(b.app.db, owner, b.app.encryptionKey, now), await own(b));
  // a rotation forgets that database's entry only
  await rotateSecret(a.app.db, owner, a.app.encryptionKey, now);
  forgetSecrets(a.app.db, owner);
  t.deepEqual(await signingSecrets(a.app.db, owner, a.app.encryptionKey, now), await own(a));
  t.is((await own(a)).length, 2);
  t.deepEqual(await signingSecrets(b.app.db, owner, b.app.encryptionKey, now), await own(b));
});
