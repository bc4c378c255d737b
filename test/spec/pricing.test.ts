import test from 'ava';
import { applyDiscount, computePrice, computePriceBreakdown, countedTokens, describeTerm, parsePriceRule, PriceError, storePriceRule, storedPriceRule, studioPrice, tokenCharge, tokenHold, usagePrice } from '../../spec/pricing.ts';
import path from 'node:path';
import { loadSpec } from '../../app.ts';

const SPEC = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../spec/v1');

const schema = {
  properties: {
    duration: { type: 'integer', default: 5, minimum: 1, maximum: 60 },
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

const image = {
  properties: {
    prompt: { type: 'string' },
    width: { type: 'integer', default: 1024, minimum: 64, maximum: 4096 },
    height: { type: 'integer', default: 1024, minimum: 64, maximum: 4096 },
    num_images: { type: 'integer', default: 1, minimum: 1, maximum: 4 },
    image_size: { type: 'string', enum: ['square_hd', 'landscape_16_9'], default: 'square_hd' },
    aspect_ratio: { type: 'string', default: '1:1' },
    duration: { type: 'number', default: 5, minimum: 0, maximum: 15 },
    max_tokens: { type: 'integer', default: 256, minimum: 1, maximum: 4096 },
  },
  required: ['prompt'],
};

test('per second of a number field: fractions of a credit round up', (t) => {
  const rule = parsePriceRule({ base: 0, per_unit: { field: 'duration', amount: 3 } }, image);
  t.is(computePrice(rule, { duration: 2.5 }), 8);
});

test('several per-unit terms add up, and the first is still reported as per_unit', (t) => {
  const rule = parsePriceRule({ base: 1, per_unit: [{ field: 'duration', amount: 10 }, { field: 'num_images', amount: 5 }] }, image);
  const b = computePriceBreakdown(rule, { duration: 3, num_images: 2 });
  t.is(b.total, 41);
  t.deepEqual(b.perUnit, { field: 'duration', amount: 10, units: 3, subtotal: 30 });
  t.deepEqual(b.terms.map((x) => x.subtotal), [30, 10]);
});

test('per character of a text field, divided by `per` and rounded up (speech is billed per 1000 characters)', (t) => {
  const rule = parsePriceRule({ base: 0, per_unit: { field: 'prompt', amount: 130, per: 1000 } }, schema);
  t.is(computePrice(rule, { prompt: 'x'.repeat(1000) }), 130);
  t.is(computePrice(rule, { prompt: 'x'.repeat(1001) }), 131);
  // characters, not bytes: four emoji are four characters
  t.is(computePriceBreakdown(rule, { prompt: '\u{1F600}'.repeat(4) }).terms[0]!.units, 4);
  t.is(rule.perUnit, undefined, 'the legacy per_unit view (amount x value) does not describe a per-character term');
  t.is(describeTerm(rule.terms[0]!).summary, '130 credits per 1000 characters of prompt');
  t.throws(() => parsePriceRule({ base: 0, per_unit: { field: 'prompt', amount: 1, per: 0 } }, schema), { message: /per must be a positive integer/ });
});

test('per output: the amount times the outputs asked for, or one', (t) => {
  t.is(computePrice(parsePriceRule({ base: 0, per_output: { amount: 40, count: 'num_images' } }, image), { num_images: 3 }), 120);
  t.is(computePrice(parsePriceRule({ base: 2, per_output: { amount: 40 } }, image), {}), 42);
});

test('per megapixel from width and height: each image rounded up to whole megapixels (fal\'s rule), times the count', (t) => {
  const rule = parsePriceRule({ base: 0, per_megapixel: { amount: 25, width: 'width', height: 'height', count: 'num_images' } }, image);
  // 1024 x 1024 = 1.05 MP -> 2 MP each
  t.is(computePrice(rule, { width: 1024, height: 1024, num_images: 2 }), 100);
  t.is(computePrice(rule, { width: 1000, height: 1000, num_images: 1 }), 25);
  const exact = parsePriceRule({ base: 0, per_megapixel: { amount: 25, width: 'width', height: 'height', round: 'exact' } }, image);
  t.is(computePrice(exact, { width: 1024, height: 1024 }), 27);
});

test('per megapixel from a named size preset or an aspect ratio', (t) => {
  const preset = parsePriceRule({ base: 0, per_megapixel: { amount: 30, size: 'image_size', presets: { square_hd: [1024, 1024], landscape_16_9: [1024, 576] } } }, image);
  t.is(computePrice(preset, { image_size: 'landscape_16_9' }), 30);
  t.is(computePrice(preset, { image_size: 'square_hd' }), 60);
  const aspect = parsePriceRule({ base: 0, per_megapixel: { amount: 30, aspect: 'aspect_ratio', long_side: 2048, multiple: 16 } }, image);
  // 2048 x 1152 = 2.36 MP -> 3
  t.is(computePrice(aspect, { aspect_ratio: '16:9' }), 90);
  t.throws(() => parsePriceRule({ base: 0, per_megapixel: { amount: 30, size: 'image_size', presets: { square_hd: [1024, 1024] } } }, image), { message: /presets has no size for "landscape_16_9"/ });
});

test('tiers: the step a value falls in; a rule leaving the maximum without a step is refused', (t) => {
  const rule = parsePriceRule({ base: 0, tiers: { field: 'duration', steps: [{ up_to: 5, amount: 350 }, { up_to: 10, amount: 700 }, { amount: 1000 }] } }, image);
  t.is(computePrice(rule, { duration: 5 }), 350);
  t.is(computePrice(rule, { duration: 5.5 }), 700);
  t.is(computePrice(rule, { duration: 15 }), 1000);
  t.throws(() => parsePriceRule({ base: 0, tiers: { field: 'duration', steps: [{ up_to: 10, amount: 1 }] } }, image), { message: /a "duration" above 10 has no step/ });
  t.throws(() => parsePriceRule({ base: 0, tiers: { field: 'duration', steps: [{ up_to: 10, amount: 1 }, { up_to: 5, amount: 2 }, { amount: 3 }] } }, image), { message: /steps\[1\]\.up_to must be above/ });
});

test('a minimum applies after the multipliers; the breakdown says when it did', (t) => {
  const rule = parsePriceRule({ base: 4, per_unit: { field: 'duration', amount: 1 }, multipliers: { image_size: { landscape_16_9: 50 } }, minimum: 8 }, image);
  const low = computePriceBreakdown(rule, { duration: 2, image_size: 'landscape_16_9' });
  t.is(low.total, 8);
  t.deepEqual(low.minimum, { amount: 8, applied: true });
  t.is(computePrice(rule, { duration: 10, image_size: 'square_hd' }), 14);
});

test('per token: the hold covers the longest answer and at most one token per byte of the prompt; the charge is the usage reported', (t) => {
  const rule = parsePriceRule({ per_token: { input: 150, output: 600, per: 1_000_000, input_fields: ['prompt'], overhead: 10, max_output: 'max_tokens' } }, image, 'x-model.providers[0].cost', 'cost');
  const tokens = rule.tokens!;
  const hold = tokenHold(tokens, { prompt: 'héllo', max_tokens: 4096 });
  t.deepEqual(hold, { inputTokens: 6 + 10, outputTokens: 4096 });
  t.is(tokenCharge(tokens, hold), Math.ceil((16 * 150 + 4096 * 600) / 1_000_000));
  t.is(tokenCharge(tokens, { inputTokens: 12, outputTokens: 40 }), 1);
  t.true(tokenCharge(tokens, { inputTokens: 12, outputTokens: 40 }) <= tokenCharge(tokens, hold));
  t.is(computePriceBreakdown(rule, { prompt: 'héllo', max_tokens: 4096 }, { inputTokens: 100_000, outputTokens: 100_000 }).total, 75);
  // only a language model's own price may be by tokens: only its calls settle by the usage
  t.throws(() => parsePriceRule({ base: 0, per_token: { input: 1, output: 1, per: 1000, input_fields: ['prompt'], max_output: 10 } }, image), { message: /per_token: only a language model \(category llm\) is priced by tokens/ });
  const price = parsePriceRule({ base: 0, per_token: { input: 225, output: 900, per: 1_000_000, input_fields: ['prompt'], overhead: 10, max_output: 'max_tokens' } }, image, 'x-model.price', 'llm-price');
  t.is(computePrice(price, { prompt: 'héllo', max_tokens: 4096 }), Math.ceil((16 * 225 + 4096 * 900) / 1_000_000), 'the list price of a request is its hold');
  t.is(computePriceBreakdown(price, { prompt: 'héllo', max_tokens: 4096 }, { inputTokens: 1000, outputTokens: 2000 }).total, Math.ceil((1000 * 225 + 2000 * 900) / 1_000_000), 'its charge is the usage');
  t.throws(() => parsePriceRule({ per_token: { input: 1, output: 1, per: 1000, input_fields: ['prompt'], max_output: 'num_images' } }, { properties: { prompt: { type: 'string' }, num_images: { type: 'integer', default: 1, minimum: 1 } } }, 'c', 'cost'), { message: /needs a "maximum"/ });
});

test('per token: each image part of a conversation is held at the rule\'s image_tokens, not at the bytes of its URL', (t) => {
  const schema = { properties: { prompt: { type: 'string' }, max_tokens: { type: 'integer', minimum: 1, maximum: 100, default: 10 } } };
  const rule = parsePriceRule({ base: 0, per_token: { input: 1, output: 1, per: 1, input_fields: ['prompt'], overhead: 0, max_output: 'max_tokens', image_tokens: 1000 } }, schema, 'x-model.price', 'llm-price');
  const image = { type: 'image_url', image_url: { url: 'https://img.example/a.png' } };
  const prompt = { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }, image, image] }, { role: 'assistant', content: 'x' }] };
  const bytes = Buffer.byteLength(JSON.stringify(prompt));
  t.deepEqual(tokenHold(rule.tokens!, { prompt, max_tokens: 10 }), { inputTokens: bytes + 2 * 1000, outputTokens: 10 });
  t.is(computePrice(rule, { prompt, max_tokens: 10 }), bytes + 2000 + 10, 'the list price, the hold, covers both images');
  // a prompt given as text has no parts: its bytes bound it
  t.deepEqual(tokenHold(rule.tokens!, { prompt: 'hi', max_tokens: 10 }), { inputTokens: 2, outputTokens: 10 });
  t.throws(() => parsePriceRule({ base: 0, per_token: { input: 1, output: 1, per: 1, input_fields: ['prompt'], max_output: 10, image_tokens: -1 } }, schema, 'x-model.price', 'llm-price'), { message: /image_tokens must be a non-negative integer/ });
});

test('each term reads in words for the catalog', (t) => {
  const rule = parsePriceRule({ base: 0, per_megapixel: { amount: 25, width: 'width', height: 'height', count: 'num_images' }, tiers: { field: 'duration', steps: [{ up_to: 5, amount: 350 }, { amount: 700 }] } }, image);
  t.deepEqual(rule.terms.map((x) => describeTerm(x).summary), [
    '25 credits per megapixel of each image (width x height, rounded up to whole megapixels), x num_images',
    'by duration: 350 up to 5, 700 above',
  ]);
});

test('a usage is priced from its hold: the token price after the discount, a studio\'s markup in the same proportion, never more than held; a rule without tokens costs the hold', (t) => {
  const rule = parsePriceRule({ per_token: { input: 150, output: 600, per: 1_000_000, input_fields: ['prompt'], overhead: 10, max_output: 'max_tokens' } }, image, 'x-model.providers[0].cost', 'cost');
  const input = { prompt: 'hello', max_tokens: 4096 };
  const list = computePrice(rule, input);
  const used = { inputTokens: 1_000, outputTokens: 1_000 };
  const usedList = computePriceBreakdown(rule, input, used).total;
  t.is(usedList, 1);
  // no studio, a 10% discount: the usage's list price discounted as the hold was
  t.deepEqual(usagePrice(rule, input, { inputTokens: 100_000, outputTokens: 1_000 }, { price: list, listPrice: list, discountPercent: 10, studioMarkup: 0 }), { charge: Math.floor(16 * 0.9), listCharge: 16, studioMarkup: 0 });
  // a studio's markup of 50% of the hold's list price: half of the usage's list price, rounded up
  const markup = Math.ceil(list / 2);
  const held = { price: list + markup, listPrice: list + markup, discountPercent: null, studioMarkup: markup };
  const half = { inputTokens: 0, outputTokens: 2048 };
  const halfList = computePriceBreakdown(rule, input, half).total;
  const priced = usagePrice(rule, input, half, held);
  t.is(priced.studioMarkup, Math.ceil((markup * halfList) / list));
  t.deepEqual(priced, { charge: halfList + priced.studioMarkup, listCharge: halfList + priced.studioMarkup, studioMarkup: priced.studioMarkup });
  // more than the hold's usage: the markup stays at most the one held (the store caps the charge)
  t.is(usagePrice(rule, input, { inputTokens: 10_000_000, outputTokens: 10_000_000 }, held).studioMarkup, markup);
  t.deepEqual(usagePrice(parsePriceRule({ base: 40 }, schema), {}, used, { price: 36, listPrice: 40, discountPercent: 10, studioMarkup: 0 }), { charge: 36, listCharge: 40, studioMarkup: 0 });
});

test('a discount below 100 % never makes a usage of at least 1 credit free; nothing used stays nothing, 100 % off is free', (t) => {
  const rule = parsePriceRule({ per_token: { input: 150, output: 600, per: 1_000_000, input_fields: ['prompt'], overhead: 10, max_output: 'max_tokens' } }, image, 'x-model.providers[0].cost', 'cost');
  const input = { prompt: 'hello', max_tokens: 4096 };
  const list = computePrice(rule, input);
  const held = (discountPercent: number) => ({ price: applyDiscount(list, discountPercent), listPrice: list, discountPercent, studioMarkup: 0 });
  const used = { inputTokens: 1_000, outputTokens: 1_000 };
  t.is(computePriceBreakdown(rule, input, used).total, 1);
  for (const pct of [1, 50, 99]) t.deepEqual(usagePrice(rule, input, used, held(pct)), { charge: 1, listCharge: 1, studioMarkup: 0 }, `${pct} % off`);
  t.deepEqual(usagePrice(rule, input, used, held(100)), { charge: 0, listCharge: 1, studioMarkup: 0 });
  t.deepEqual(usagePrice(rule, input, { inputTokens: 0, outputTokens: 0 }, held(50)), { charge: 0, listCharge: 0, studioMarkup: 0 });
  // the hold is never below the charge of any usage within it (the hold: 15 input tokens, 4096 output)
  for (const pct of [1, 33, 90, 99, 100]) {
    for (const u of [{ inputTokens: 0, outputTokens: 1_000 }, { inputTokens: 15, outputTokens: 1_500 }, { inputTokens: 15, outputTokens: 4096 }]) {
      t.true(usagePrice(rule, input, u, held(pct)).charge <= held(pct).price, `${pct} % off`);
    }
  }
});

test('tokens are counted at four UTF-8 bytes each where the provider reported none, the prompt\'s fields (a conversation as its JSON) and the answer', (t) => {
  const tokens = { input: 1, output: 1, per: 1, inputFields: ['prompt', 'system_prompt', 'messages'], overhead: 10, maxOutput: { tokens: 10 } };
  t.deepEqual(countedTokens(tokens, { prompt: 'héllo', system_prompt: 'abc' }, 'Red, yellow and blue.'), { inputTokens: Math.ceil(9 / 4), outputTokens: Math.ceil(21 / 4) });
  const messages = [{ role: 'user', content: 'hi' }];
  t.deepEqual(countedTokens(tokens, { messages }, ''), { inputTokens: Math.ceil(JSON.stringify(messages).length / 4), outputTokens: 0 });
});

test('a number field a price grows with needs a minimum of 0 or more and a maximum (or an enum of such numbers): the message names the field and the missing bound', (t) => {
  const input = (prop: Record<string, unknown>) => ({ properties: { prompt: { type: 'string' }, n: { type: 'integer', default: 1, ...prop } }, required: ['prompt'] });
  const cases: Array<[Record<string, unknown>, Record<string, unknown>, RegExp]> = [
    [{ per_unit: { field: 'n', amount: 10 } }, {}, /^x-model\.price\.per_unit\.field "n" needs a "minimum" of 0 or more and a "maximum" in the input schema: the price is computed from its value, so without them a request could make the price negative or too large to charge$/],
    [{ per_unit: { field: 'n', amount: 10 } }, { minimum: 0 }, /^x-model\.price\.per_unit\.field "n" needs a "maximum" in the input schema: .* without it /],
    [{ per_unit: { field: 'n', amount: 10 } }, { maximum: 10 }, /^x-model\.price\.per_unit\.field "n" needs a "minimum" of 0 or more in the input schema/],
    [{ per_unit: { field: 'n', amount: 10 } }, { minimum: -5, maximum: 10 }, /"n" needs a "minimum" of 0 or more \(it has -5\)/],
    [{ per_output: { amount: 10, count: 'n' } }, { minimum: 1 }, /^x-model\.price\.per_output\.count "n" needs a "maximum"/],
    [{ per_megapixel: { amount: 10, width: 'n', height: 'n' } }, { maximum: 4096 }, /^x-model\.price\.per_megapixel\.width "n" needs a "minimum" of 0 or more/],
    [{ per_unit: { field: 'n', amount: 10 } }, { enum: [1, -2] }, /"n": every value its enum lists must be a number of 0 or more/],
    [{ per_unit: { field: 'n', amount: 10 } }, { minimum: 2, maximum: 10 }, /"n": its default 1 is outside its bounds \(2 to 10\)/],
  ];
  for (const [rule, prop, message] of cases) t.throws(() => parsePriceRule({ base: 1, ...rule }, input(prop)), { message }, JSON.stringify([rule, prop]));
  // a provider's cost rule is held to the same bounds
  t.throws(() => parsePriceRule({ per_unit: { field: 'n', amount: 10 } }, input({}), 'x-model.providers[0].cost', 'cost'), { message: /^x-model\.providers\[0\]\.cost\.per_unit\.field "n" needs a "minimum" of 0 or more and a "maximum"/ });
  // bounded ones load: minimum and maximum, exclusive bounds, an enum of numbers from 0 up, a const
  for (const prop of [{ minimum: 0, maximum: 10 }, { exclusiveMinimum: 0, exclusiveMaximum: 11 }, { enum: [1, 4, 8] }, { const: 1 }]) {
    t.is(computePrice(parsePriceRule({ base: 1, per_unit: { field: 'n', amount: 10 } }, input(prop)), { n: 1 }), 11, JSON.stringify(prop));
  }
  // a tier's field needs none: its steps are fixed amounts
  t.is(computePrice(parsePriceRule({ base: 0, tiers: { field: 'n', steps: [{ up_to: 5, amount: 3 }, { amount: 7 }] } }, input({})), { n: -100 }), 3);
});

test('a price the rule cannot give as a whole number of credits from 0 to 2^53 - 1 is refused, never returned: at start-up at the defaults, at request time for the input', (t) => {
  const bounded = { properties: { n: { type: 'number', default: 1, minimum: 0, maximum: 1e300 } } };
  t.throws(() => parsePriceRule({ base: Number.MAX_SAFE_INTEGER, per_output: { amount: 1 } }, bounded), { message: /^x-model\.price: at the input's defaults the price after the terms is 9007199254740992, not a whole number of credits from 0 to 9007199254740991$/ });
  const rule = parsePriceRule({ base: 0, per_unit: { field: 'n', amount: 1000 } }, bounded);
  t.is(computePrice(rule, { n: 1e12 }), 1e15);
  t.throws(() => computePrice(rule, { n: 1e13 }), { instanceOf: PriceError, message: /the price after the per_unit term of n is 10000000000000000, not a whole number of credits/ });
  t.throws(() => computePrice(rule, { n: 1e300 }), { instanceOf: PriceError });
  // an input the schema would refuse (a rule built by hand, no bounds checked) is refused too, never priced negative
  const unchecked = { base: 10, terms: [{ kind: 'per_unit' as const, field: 'n', amount: 100, per: 1, text: false }], multipliers: [], minimum: 0 };
  t.throws(() => computePrice(unchecked, { n: -1 }), { instanceOf: PriceError, message: /is -100/ });
  const multiplied = { base: 2 ** 52, terms: [], multipliers: [{ field: 'x', percentByValue: new Map([['y', 300]]) }], minimum: 0 };
  t.throws(() => computePrice(multiplied, { x: 'y' }), { instanceOf: PriceError, message: /after the multiplier of x/ });
  // a usage too large to price exactly costs the hold (the charge is capped at it anyway)
  const llm = parsePriceRule({ base: 0, per_token: { input: 1, output: 1, per: 1, input_fields: ['prompt'], max_output: 10 } }, { properties: { prompt: { type: 'string' } } }, 'x-model.price', 'llm-price');
  t.deepEqual(usagePrice(llm, {}, { inputTokens: Number.MAX_SAFE_INTEGER, outputTokens: 10 }, { price: 26, listPrice: 26, discountPercent: null, studioMarkup: 0 }), { charge: 26, listCharge: 26, studioMarkup: 0 });
});

test('a multiplier value its field can never take is refused, naming it and the values there are (a typo would never apply)', (t) => {
  const listed = { properties: { resolution: { type: 'string', enum: ['720p', '1080p', '4K'], default: '720p' }, generate_audio: { type: 'boolean', default: true }, fps: { type: 'integer', enum: [24, 30], default: 24 }, mode: { type: 'string', const: 'fast' } } };
  t.throws(() => parsePriceRule({ base: 10, multipliers: { resolution: { '4k': 200 } } }, listed), { message: /x-model\.price\.multipliers\.resolution\."4k": "resolution" never has this value \(its values: "720p", "1080p", "4K"\)/ });
  t.throws(() => parsePriceRule({ base: 10, multipliers: { generate_audio: { yes: 150 } } }, listed), { message: /multipliers\.generate_audio\."yes": "generate_audio" never has this value \(its values: "true", "false"\)/ });
  t.throws(() => parsePriceRule({ base: 10, multipliers: { fps: { 60: 150 } } }, listed), { message: /multipliers\.fps\."60"/ });
  t.throws(() => parsePriceRule({ base: 10, multipliers: { mode: { slow: 150 } } }, listed), { message: /multipliers\.mode\."slow"/ });
  // the values it can take, some of them: the rest are priced at 100 percent
  const rule = parsePriceRule({ base: 10, multipliers: { resolution: { '4K': 200 }, generate_audio: { false: 50 }, fps: { 30: 150 }, mode: { fast: 120 } } }, listed);
  t.is(computePrice(rule, { resolution: '4K', generate_audio: true, fps: 30, mode: 'fast' }), 36);
  // a field whose values are not listed (a pattern, free text) takes any key, as before
  t.notThrows(() => parsePriceRule({ base: 10, multipliers: { resolution: { '4k': 200 } } }, schema));
});

test('a price rule kept with a prediction reads back the same: every shipped model, maps included', async (t) => {
  const spec = await loadSpec(SPEC);
  let maps = 0;
  for (const [slug, model] of spec.models) {
    const back = storedPriceRule(storePriceRule(model.price));
    t.deepEqual(back, model.price, slug);
    if (model.price.multipliers.length > 0) maps++;
  }
  t.true(maps > 0, 'some shipped rule has multipliers (maps) to round-trip');
  const presets = parsePriceRule({ base: 1, multipliers: { resolution: { '4k': 200 } } }, schema);
  t.true(storedPriceRule(storePriceRule(presets)).multipliers[0]!.percentByValue instanceof Map);
});
