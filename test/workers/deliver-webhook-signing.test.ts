// Standard Webhooks signing (workers/deliver-webhook.ts, part 4), checked against the package
// receivers use; the signing secrets' cache (part 3) kept apart per database.
import test from 'ava';
import { Webhook } from 'standardwebhooks';
import { forgetSecrets, signatureFor, signingSecrets, webhookHeaders } from '../../workers/deliver-webhook.ts';
import { activeSecrets, rotateSecret } from '../../db/webhooks.ts';
import { newAccount, startGateway } from '../helpers/gateway.ts';

const PRODUCTION = { sandbox: false };
const SANDBOX = { sandbox: true };

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
  const own = async (g: typeof a) => (await activeSecrets(g.app.db, owner, PRODUCTION, g.app.encryptionKey, now)).map((s) => s.secret);
  t.notDeepEqual(await own(a), await own(b));
  t.deepEqual(await signingSecrets(a.app.db, owner, PRODUCTION, a.app.encryptionKey, now), await own(a));
  t.deepEqual(await signingSecrets(b.app.db, owner, PRODUCTION, b.app.encryptionKey, now), await own(b));
  // a rotation forgets that database's entry only
  await rotateSecret(a.app.db, owner, PRODUCTION, a.app.encryptionKey, now);
  forgetSecrets(a.app.db, owner);
  t.deepEqual(await signingSecrets(a.app.db, owner, PRODUCTION, a.app.encryptionKey, now), await own(a));
  t.is((await own(a)).length, 2);
  t.deepEqual(await signingSecrets(b.app.db, owner, PRODUCTION, b.app.encryptionKey, now), await own(b));
});

test('the cache holds an owner\'s production and sandbox secrets apart, and forgetSecrets forgets both', async (t) => {
  const gw = await startGateway({ db: 'sqlite', queue: 'memory' });
  t.teardown(() => gw.stop());
  const owner = { userId: (await newAccount(gw, 0)).userId, teamId: null };
  const now = Date.now();
  const { db, encryptionKey: key } = gw.app;
  const own = async (mode: { sandbox: boolean }) => (await activeSecrets(db, owner, mode, key, now)).map((s) => s.secret);
  const production = await signingSecrets(db, owner, PRODUCTION, key, now);
  const sandbox = await signingSecrets(db, owner, SANDBOX, key, now);
  t.deepEqual(production, await own(PRODUCTION));
  t.deepEqual(sandbox, await own(SANDBOX));
  t.notDeepEqual(production, sandbox);
  // within the cache's few seconds, only forgetSecrets makes a rotation of either mode seen at once
  await rotateSecret(db, owner, PRODUCTION, key, now);
  await rotateSecret(db, owner, SANDBOX, key, now);
  t.deepEqual(await signingSecrets(db, owner, SANDBOX, key, now), sandbox, 'still cached');
  forgetSecrets(db, owner);
  t.deepEqual(await signingSecrets(db, owner, PRODUCTION, key, now), await own(PRODUCTION));
  t.deepEqual(await signingSecrets(db, owner, SANDBOX, key, now), await own(SANDBOX));
  t.is((await own(SANDBOX)).length, 2);
});
