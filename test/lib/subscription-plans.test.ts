// README "Subscriptions": SUBSCRIPTION_PLANS (inline JSON or a file) is validated at start-up, and
// periods follow the calendar without drifting.
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, ConfigError } from '../../config.ts';
import { firstPeriodEnd, nextPeriodEnd } from '../../lib/subscription-plans.ts';

test('the default plans are starter, pro and scale, monthly; SUBSCRIPTION_INTERVAL_SECONDS defaults to 300', (t) => {
  const c = loadConfig({});
  t.deepEqual([...c.subscriptions.plans.keys()], ['starter', 'pro', 'scale']);
  t.like(c.subscriptions.plans.get('pro'), { credits: 50_000, rolloverCap: 25_000, period: { unit: 'month', count: 1 } });
  t.is(c.subscriptions.intervalMs, 300_000);
  t.is(loadConfig({ SUBSCRIPTION_INTERVAL_SECONDS: 'off' }).subscriptions.intervalMs, null);
});

test('plans come from inline JSON or from a JSON file', async (t) => {
  const inline = loadConfig({ SUBSCRIPTION_PLANS: '{"team": {"credits": 5, "rollover_cap": 2, "period": "7d"}, "annual": {"credits": 9, "period": "year"}}' });
  t.like(inline.subscriptions.plans.get('team'), { credits: 5, rolloverCap: 2, period: { unit: 'day', count: 7 } });
  t.like(inline.subscriptions.plans.get('annual'), { rolloverCap: 0, period: { unit: 'month', count: 12 } });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-plans-'));
  const file = path.join(dir, 'plans.json');
  await fs.writeFile(file, '{"solo": {"credits": 1000}}');
  t.deepEqual([...loadConfig({ SUBSCRIPTION_PLANS: file }).subscriptions.plans.keys()], ['solo']);
  await fs.rm(dir, { recursive: true, force: true });
});

test('a bad plan stops start-up with one line naming SUBSCRIPTION_PLANS and the problem', (t) => {
  for (const [value, says] of [
    ['{"pro": {"credits": 0}}', 'credits'],
    ['{"pro": {"credits": 10, "rollover_cap": 11}}', 'rollover_cap'],
    ['{"pro": {"credits": 10, "period": "fortnight"}}', 'period'],
    ['{"pro": {"credits": 10, "price": 5}}', 'unknown field price'],
    ['{"Pro Plan": {"credits": 10}}', 'name'],
    ['{}', 'no plan'],
    ['{"pro": ', 'JSON'],
    ['/nonexistent/plans.json', 'ENOENT'],
  ] as const) {
    const err = t.throws(() => loadConfig({ SUBSCRIPTION_PLANS: value }), { instanceOf: ConfigError });
    t.true(err.message.startsWith('invalid configuration: SUBSCRIPTION_PLANS:'), err.message);
    t.true(err.message.includes(says), `${value}: ${err.message}`);
    t.false(err.message.includes('\n'));
  }
});

test('monthly periods count from the anchor: the 31st ends on each month\'s last day and comes back to the 31st', (t) => {
  const month = { unit: 'month', count: 1 } as const;
  const anchor = Date.UTC(2027, 0, 31, 12);
  const feb = firstPeriodEnd(month, anchor);
  t.is(new Date(feb).toISOString(), '2027-02-28T12:00:00.000Z');
  const mar = nextPeriodEnd(month, anchor, feb);
  t.is(new Date(mar).toISOString(), '2027-03-31T12:00:00.000Z');
  t.is(new Date(nextPeriodEnd(month, anchor, mar)).toISOString(), '2027-04-30T12:00:00.000Z');
  t.is(nextPeriodEnd({ unit: 'day', count: 30 }, anchor, anchor), anchor + 30 * 86_400_000);
});
