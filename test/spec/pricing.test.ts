import test from 'ava';
import { computePrice, parsePriceRule, studioPrice } from '../../spec/pricing.ts';

const schema = {
  properties: {
    duration: { type: 'integer', default: 5 },
    num_images: { type: 'integer' },
    resolution: { type: 'string' },
    generate_audio: { type: 'boolean' },
    prompt: { type: 'string' },
  },
  required: ['prompt'],
};

test('a flat price is the base', (t) => {
  t.is(computePrice(parsePriceRule({ base: 40 }, schema), {}), 40);
});

test('per-unit pricing multiplies the unit field', (t) => {
  const rule = parsePriceRule({ base: 100, per_unit: { field: 'duration', amount: 50 } }, schema);
  t.is(computePrice(rule, { duration: 10 }), 600);
});

test('multipliers apply as integer percents and round up', (t) => {
  const rule = parsePriceRule({ base: 101, multipliers: { resolution: { '4k': 200 }, generate_audio: { true: 150 } } }, schema);
  t.is(computePrice(rule, { resolution: '4k' }), 202);
  t.is(computePrice(rule, { resolution: '4k', generate_audio: true }), 303);
  t.is(computePrice(rule, { resolution: '1080p', generate_audio: false }), 101);
});

test('a rule naming a field the input does not have is refused', (t) => {
  t.throws(() => parsePriceRule({ base: 1, per_unit: { field: 'frames', amount: 1 } }, schema), { message: /frames.*not an input property/ });
});

test('a per-unit field without a default that is not required is refused', (t) => {
  t.throws(() => parsePriceRule({ base: 1, per_unit: { field: 'num_images', amount: 1 } }, schema), { message: /needs a default/ });
});

test('fractional or negative prices are refused', (t) => {
  t.throws(() => parsePriceRule({ base: 1.5 }, schema), { message: /base/ });
  t.throws(() => parsePriceRule({ base: -1 }, schema), { message: /base/ });
  t.throws(() => parsePriceRule({ base: 1, multipliers: { resolution: { '4k': 0 } } }, schema), { message: /percent/ });
  t.throws(() => parsePriceRule({ base: 1, surcharge: 2 }, schema), { message: /unknown key/ });
});

test('studio price: markup on the list price rounded up, a per-model price instead, never below list; owner_pays is the list price', (t) => {
  const studio = { payerMode: 'end_user_pays' as const, markupPercent: 50, modelPrices: { fixed: 40, cheap: 1 } };
  t.is(studioPrice(studio, 'any', 5), 8);
  t.is(studioPrice(studio, 'fixed', 5), 40);
  t.is(studioPrice(studio, 'cheap', 5), 5);
  t.is(studioPrice({ ...studio, payerMode: 'owner_pays' }, 'fixed', 5), 5);
  t.is(studioPrice({ ...studio, markupPercent: 0 }, 'any', 7), 7);
});
