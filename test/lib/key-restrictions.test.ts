// Pure pieces of issue 10's key restrictions and quotes: allow-list normalisation, the spend
// period boundaries (UTC), and the price breakdown agreeing with the price the submit holds.
import test from 'ava';
import { normaliseEntry } from '../../lib/addresses.ts';
import { periodStart } from '../../db/key-spend.ts';
import { computePrice, computePriceBreakdown, parsePriceRule } from '../../spec/pricing.ts';

test('allow-list entries are normalised to one written form; invalid ones are null', (t) => {
  t.is(normaliseEntry('::ffff:192.0.2.1'), '192.0.2.1');
  t.is(normaliseEntry('::ffff:10.0.0.0/104'), '10.0.0.0/8');
  t.is(normaliseEntry('10.9.8.7/8'), '10.0.0.0/8');
  t.is(normaliseEntry('2001:DB8:0:0::1'), '2001:db8::1');
  t.is(normaliseEntry('2001:db8::1/32'), '2001:db8::/32');
  t.is(normaliseEntry('192.0.2.1/32'), '192.0.2.1/32');
  for (const bad of ['300.1.1.1', '1.2.3.4/33', '2001:db8::/129', 'localhost', '']) t.is(normaliseEntry(bad), null, bad);
});

test('a spend period starts at the UTC day or month', (t) => {
  const at = Date.UTC(2026, 10, 23, 21, 5, 7);
  t.is(periodStart('day', at), Date.UTC(2026, 10, 23));
  t.is(periodStart('month', at), Date.UTC(2026, 10, 1));
  t.is(periodStart('day', Date.UTC(2026, 11, 31, 23, 59, 59, 999)), Date.UTC(2026, 11, 31));
});

test('the breakdown shows each step and its total is the price', (t) => {
  const schema = { properties: { duration: { type: 'integer', default: 5, minimum: 1, maximum: 15 }, resolution: { type: 'string' }, audio: { type: 'boolean' } } };
  const rule = parsePriceRule({ base: 7, per_unit: { field: 'duration', amount: 11 }, multipliers: { resolution: { '4k': 150 }, audio: { true: 133 } } }, schema);
  const input = { duration: 3, resolution: '4k', audio: true };
  const b = computePriceBreakdown(rule, input);
  t.deepEqual(b, {
    base: 7,
    perUnit: { field: 'duration', amount: 11, units: 3, subtotal: 33 },
    terms: [{ kind: 'per_unit', field: 'duration', amount: 11, units: 3, subtotal: 33 }],
    multipliers: [{ field: 'resolution', value: '4k', percent: 150, priceAfter: 60 }, { field: 'audio', value: 'true', percent: 133, priceAfter: 80 }],
    minimum: null,
    total: 80,
  });
  t.is(computePrice(rule, input), b.total);
  t.deepEqual(computePriceBreakdown(rule, { duration: 0, resolution: '1080p' }).multipliers, []);
});
