// Concurrent submits against a small team wallet, over HTTP with a team API key, on MariaDB and
// RabbitMQ: exactly as many are accepted as the team's credit covers, the team balance never
// goes negative, the creator's own wallet is untouched, and completion debits each accepted
// one once, on the team's ledger.
import test from 'ava';
import { raceSubmits } from '../helpers/race.ts';
import { assertLedger } from '../helpers/ledger.ts';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { createTeam } from '../../db/teams.ts';
import { creditTeam } from '../../db/wallet/moves.ts';
import { getTeamBalance } from '../../db/wallet/ledger.ts';

const MODEL = '/api/v1/canvas-v1-fast-text-to-image';
const INPUT = { prompt: 'race', width: 64, height: 64 };

test('concurrent submits never overdraw a small team wallet', async (t) => {
  const gw = await startGateway({ worker: true });
  t.teardown(() => gw.stop());
  // canvas-v1-fast-text-to-image at one 64x64 image: price is fixed by the spec
  const probe = await newAccount(gw, 1_000_000);
  const one = await gw.server.inject({ method: 'POST', url: MODEL, headers: { 'x-api-key': probe.liveKey }, payload: INPUT });
  const price = Number((await gw.app.db('predictions').where({ id: (one.result as { request_id: string }).request_id }).first()).price);
  t.true(price > 0);

  const personalCredit = 1_000_000;
  const member = await newAccount(gw, personalCredit);
  const team = await createTeam(gw.app.db, member.userId, 'Small', Date.now());
  const affordable = 7;
  await gw.app.db.transaction((trx) => creditTeam(trx, team.id, member.userId, price * affordable + price - 1, 'topup', 'test credit', Date.now()));
  const created = await gw.server.inject({ method: 'POST', url: `/app/teams/${team.id}/keys`, headers: { authorization: `Bearer ${member.session}` }, payload: { name: 'race' } });
  t.is(created.statusCode, 201);
  const teamKey = (created.result as { key: string }).key;

  const attempts = 60;
  const { statuses } = await raceSubmits(gw, { url: MODEL, key: teamKey, payload: INPUT, attempts });
  t.is(statuses.filter((s) => s === 200).length, affordable);
  t.is(statuses.filter((s) => s === 402).length, attempts - affordable);
  t.deepEqual(await getTeamBalance(gw.app.db, team.id), { balance: price - 1, held: 0 });
  const user = await gw.app.db('users').where({ id: member.userId }).first();
  t.is(Number(user.balance), personalCredit, 'the member\'s own wallet pays nothing');
  t.is(Number(user.held), 0);
  const debits = await gw.app.db('credit_transactions').where({ team_id: team.id, kind: 'prediction' });
  t.is(debits.length, affordable);
  t.true(debits.every((d: { amount: number | string }) => Number(d.amount) === -price));
  t.is((await gw.app.db('credit_transactions').where({ user_id: member.userId, kind: 'prediction' }).whereNull('team_id')).length, 0);
  await assertLedger(t, gw.app.db);
});
