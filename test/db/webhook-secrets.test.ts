// Replacing an owner's webhook signing secret (db/webhooks.ts replaceSecret: "sign out
// everywhere", the first reset of a never-verified account, a rotation) while other owners do the
// same, on MariaDB. Owners at the end of the secrets' index (the newest accounts) used to deadlock
// each other: each DELETE of an owner with no older secret locked the gap after it, and each INSERT
// then waited for the other's gap. Run here without the lock retry the routes have, so a single
// deadlock fails the test; each owner ends with exactly one secret of each mode (production and
// sandbox: each is a range of its own in the owner's index, replaced one after the other).
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import type { TestGateway } from '../helpers/gateway.ts';
import { replaceAllSecrets, replaceSecret } from '../../db/webhooks.ts';
import { deadlockOnce } from '../helpers/lock-victim.ts';

let gw: TestGateway;
test.before(async () => {
  gw = await startGateway({ db: 'mysql', queue: 'memory' });
});
test.after.always(async () => {
  await gw?.stop();
});

test('concurrent replacements of the newest owners\' secrets, of both modes, never deadlock, and leave one secret of each mode each', async (t) => {
  const accounts = [];
  for (let i = 0; i < 6; i++) accounts.push(await newAccount(gw));
  const userIds = accounts.map((a) => a.userId);
  for (let round = 0; round < 5; round++) {
    const keepPrevious = round % 2 === 1;
    const results = await Promise.allSettled(userIds.map((userId) => gw.app.db.transaction(async (trx) => {
      const owner = { userId, teamId: null };
      // a take-back ("sign out everywhere") replaces both modes; a rotation, here of each mode in turn, keeps the previous one
      if (!keepPrevious) return replaceAllSecrets(trx, owner, gw.app.encryptionKey, Date.now());
      for (const sandbox of [false, true]) await replaceSecret(trx, owner, { sandbox }, gw.app.encryptionKey, Date.now(), { keepPrevious });
    })));
    const failed = results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason));
    t.deepEqual(failed, [], `round ${round}`);
  }
  const counts = await gw.app.db('webhook_secrets').whereIn('user_id', userIds).groupBy('user_id', 'is_test').select('user_id', 'is_test').count({ n: '*' });
  // the last round kept no previous secret ("sign out everywhere")
  t.deepEqual(counts.map((c) => Number(c.n)), userIds.flatMap(() => [1, 1]));
});

test.serial('an owner\'s first secret, made on first use, is made again when its transaction is picked as a deadlock victim', async (t) => {
  const { userId, session } = await newAccount(gw);
  const victim = await deadlockOnce(gw.app.db, 'webhook_secrets', userId);
  t.teardown(() => victim.drop());
  const res = await gw.server.inject({ method: 'GET', url: '/app/webhook_secret', headers: { authorization: `Bearer ${session}` } });
  t.is(res.statusCode, 200, res.payload);
  t.is(await victim.seen(), 2, 'the first attempt was the victim, the second committed');
  t.is(Number((await gw.app.db('webhook_secrets').where({ user_id: userId }).count({ n: '*' }).first())?.n), 1);
});
