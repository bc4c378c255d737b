// Provider mappings (spec/mapping.ts): every transform with the provider field it exists for, the
// limits, and the start-up checks that name the key.
import test from 'ava';
import { acceptingProviders, applyMapping, aspectOf, parseInputMapping } from '../../spec/mapping.ts';

const VIDEO = {
  type: 'object',
  properties: {
    prompt: { type: 'string' },
    duration: { type: 'integer', minimum: 1, maximum: 15, default: 5 },
    aspect_ratio: { type: 'string', default: '16:9' },
    resolution: { type: 'string', enum: ['720p', '1080p'], default: '1080p' },
    generate_audio: { type: 'boolean', default: true },
    seed: { type: 'integer' },
    negative_prompt: { type: 'string' },
    cfg_scale: { type: 'number' },
  },
};
/** an input that gives the size in pixels */
const SIZED = { type: 'object', properties: { prompt: { type: 'string' }, width: { type: 'integer' }, height: { type: 'integer' } } };

function mapped(raw: Parameters<typeof parseInputMapping>[0], input: Record<string, unknown>, schema: unknown = VIDEO): Record<string, unknown> {
  const result = applyMapping(parseInputMapping(raw, schema, 'x-model'), input);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.value;
}

test('type: an integer duration goes to fal Kling as the string "5" and to fal Veo 3.1 as "8s"; a string field back to an integer', (t) => {
  t.deepEqual(mapped({ input_map: { duration: { type: 'string' } } }, { duration: 5 }), { duration: '5' });
  t.deepEqual(mapped({ input_map: { duration: { type: 'string', suffix: 's' } } }, { duration: 8 }), { duration: '8s' });
  // a provider that wants an integer where the interface has a string: "1080p" -> 1080
  t.deepEqual(mapped({ input_map: { resolution: { type: 'integer', suffix: 'p' } } }, { resolution: '1080p' }), { resolution: 1080 });
  t.deepEqual(mapped({ input_map: { generate_audio: { to: 'sound', type: 'string' } } }, { generate_audio: false }), { sound: 'false' });
});

test('rename and drop: WaveSpeed Kling calls generate_audio `sound` and has no seed', (t) => {
  t.deepEqual(mapped({ input_map: { generate_audio: 'sound', seed: '' } }, { prompt: 'p', generate_audio: true, seed: 3 }), { prompt: 'p', sound: true });
  t.deepEqual(mapped({ input_map: { seed: { drop: true } } }, { prompt: 'p', seed: 3 }), { prompt: 'p' });
});

test('values: our aspect ratio as fal FLUX\'s image_size preset; a ratio the map lacks cannot be sent, naming the field and the values it takes', (t) => {
  const raw = { input_map: { aspect_ratio: { to: 'image_size', values: { '1:1': 'square_hd', '16:9': 'landscape_16_9', '9:16': 'portrait_16_9' } } } };
  t.deepEqual(mapped(raw, { aspect_ratio: '9:16' }), { image_size: 'portrait_16_9' });
  const refused = applyMapping(parseInputMapping(raw, VIDEO, 'x-model'), { aspect_ratio: '21:9' });
  t.deepEqual(refused, { ok: false, problems: [{ field: 'aspect_ratio', msg: 'Input should be one of "1:1", "16:9", "9:16"' }] });
});

test('scale: seconds as frames (LTX-Video\'s num_frames at 24 fps), rounded to an integer', (t) => {
  t.deepEqual(mapped({ input_map: { duration: { to: 'num_frames', scale: 24 } } }, { duration: 5 }), { num_frames: 120 });
  t.deepEqual(mapped({ input_map: { cfg_scale: { scale: 10, round: 'up' } } }, { cfg_scale: 0.55 }), { cfg_scale: 6 });
  t.deepEqual(mapped({ input_map: { cfg_scale: { scale: 10, type: 'number' } } }, { cfg_scale: 0.55 }), { cfg_scale: 5.5 });
});

test('aspect_to_size: our "w:h" as fal FLUX\'s image_size {width, height}, each a multiple of 16', (t) => {
  const raw = { input_map: { aspect_ratio: { aspect_to_size: { width: 'image_size.width', height: 'image_size.height', long_side: 1440, multiple: 16 } } } };
  t.deepEqual(mapped(raw, { aspect_ratio: '16:9' }), { image_size: { width: 1440, height: 816 } });
  t.deepEqual(mapped(raw, { aspect_ratio: '9:16' }), { image_size: { width: 816, height: 1440 } });
  const byArea = { input_map: { aspect_ratio: { aspect_to_size: { width: 'width', height: 'height', pixels: 1048576, multiple: 64 } } } };
  t.deepEqual(mapped(byArea, { aspect_ratio: '1:1' }), { width: 1024, height: 1024 });
});

test('size_to_aspect: our width and height as Replicate FLUX 1.1 Pro\'s aspect_ratio, the nearest it accepts, or reduced', (t) => {
  const raw = { input_map: { width: { to: 'aspect_ratio', size_to_aspect: { height: 'height', nearest: ['1:1', '16:9', '3:2', '2:3', '9:16'] } } } };
  t.deepEqual(mapped(raw, { prompt: 'p', width: 1920, height: 1080 }, SIZED), { prompt: 'p', aspect_ratio: '16:9' });
  t.deepEqual(mapped(raw, { width: 1000, height: 1500 }, SIZED), { aspect_ratio: '2:3' });
  const reduced = { input_map: { width: { to: 'aspect_ratio', size_to_aspect: { height: 'height' } } } };
  t.deepEqual(mapped(reduced, { width: 1280, height: 720 }, SIZED), { aspect_ratio: '16:9' });
  t.is(aspectOf(1280, 720), '16:9');
  t.is(aspectOf(1000, 0), undefined);
});

test('default: a value sent when the input leaves the field out (MiniMax speech\'s voice_id)', (t) => {
  const schema = { type: 'object', properties: { text: { type: 'string' }, voice: { type: 'string', enum: ['calm', 'bright'] } } };
  const mapping = parseInputMapping({ input_map: { voice: { to: 'voice_id', default: 'calm', values: { calm: 'Calm_Woman', bright: 'Lively_Girl' } } } }, schema, 'x-model');
  t.deepEqual(applyMapping(mapping, { text: 'hi' }), { ok: true, value: { text: 'hi', voice_id: 'Calm_Woman' } });
  t.deepEqual(applyMapping(mapping, { text: 'hi', voice: 'bright' }), { ok: true, value: { text: 'hi', voice_id: 'Lively_Girl' } });
});

test('fixed_input wins over mapped fields', (t) => {
  t.deepEqual(mapped({ input_map: { duration: { type: 'string' } }, fixed_input: { duration: '10', mode: 'pro' } }, { duration: 5 }), { duration: '10', mode: 'pro' });
});

test('a string the provider cannot read as a number is refused naming the field', (t) => {
  const schema = { type: 'object', properties: { length: { type: 'string' } } };
  const mapping = parseInputMapping({ input_map: { length: { type: 'integer', suffix: 's' } } }, schema, 'x-model');
  t.deepEqual(applyMapping(mapping, { length: '8s' }), { ok: true, value: { length: 8 } });
  t.deepEqual(applyMapping(mapping, { length: 'long' }), { ok: false, problems: [{ field: 'length', msg: 'Input cannot be sent to this model\'s provider as an integer (expected <number>s)' }] });
});

test('limits: WaveSpeed Kling 3.0 takes 3-15 s and three ratios; each broken limit names the field', (t) => {
  const mapping = parseInputMapping({ limits: { duration: { minimum: 3, maximum: 15 }, aspect_ratio: { enum: ['16:9', '9:16', '1:1'] }, prompt: { pattern: '^[^<>]*$' } } }, VIDEO, 'x-model');
  t.true(applyMapping(mapping, { duration: 5, aspect_ratio: '1:1' }).ok);
  t.deepEqual(applyMapping(mapping, { duration: 2, aspect_ratio: '4:3', prompt: '<b>' }), {
    ok: false,
    problems: [
      { field: 'duration', msg: 'Input should be greater than or equal to 3' },
      { field: 'aspect_ratio', msg: 'Input should be one of "16:9", "9:16", "1:1"' },
      { field: 'prompt', msg: 'String should match pattern \'^[^<>]*$\'' },
    ],
  });
});

test('limits on a text or a list bound its length: Kling reads 2500 characters, fal FLUX [dev] takes no LoRAs, Kling O3 four reference images', (t) => {
  const schema = { type: 'object', properties: { prompt: { type: 'string' }, loras: { type: 'array' }, image_urls: { type: 'array' }, seed: { type: 'boolean' } } };
  const mapping = parseInputMapping({ limits: { prompt: { maximum: 2500 }, loras: { maximum: 0 }, image_urls: { minimum: 1, maximum: 4 } } }, schema, 'x-model');
  t.true(applyMapping(mapping, { prompt: '\u{1F600}'.repeat(2500) }).ok, 'characters, not bytes');
  t.deepEqual(applyMapping(mapping, { prompt: 'x'.repeat(2501) }), { ok: false, problems: [{ field: 'prompt', msg: 'String should have at most 2500 characters' }] });
  t.true(applyMapping(mapping, { prompt: 'x', image_urls: ['a'] }).ok);
  t.true(applyMapping(mapping, { prompt: 'x', loras: [], image_urls: ['a', 'b', 'c', 'd'] }).ok);
  t.deepEqual(applyMapping(mapping, { loras: [{ name: 'ink' }], image_urls: ['a', 'b', 'c', 'd', 'e'] }), {
    ok: false,
    problems: [{ field: 'loras', msg: 'List should be empty' }, { field: 'image_urls', msg: 'List should have at most 4 items' }],
  });
  t.throws(() => parseInputMapping({ limits: { seed: { maximum: 3 } } }, schema, 'x-model'), { message: 'x-model.limits.seed.maximum: our field "seed" is not a number, a text or a list' });
});

test('acceptingProviders keeps, in order, the providers whose limits the input meets; with none, every reason', (t) => {
  const kling = { name: 'wavespeed', mapping: parseInputMapping({ limits: { duration: { minimum: 3 } } }, VIDEO, 'x') };
  const fal = { name: 'fal', mapping: parseInputMapping({ limits: { duration: { enum: [5, 10] } } }, VIDEO, 'x') };
  const local: { name: string; mapping?: undefined } = { name: 'local' };
  t.deepEqual(acceptingProviders([kling, fal], { duration: 5 }).accepting.map((p) => p.name), ['wavespeed', 'fal']);
  t.deepEqual(acceptingProviders([kling, fal], { duration: 4 }).accepting.map((p) => p.name), ['wavespeed']);
  t.deepEqual(acceptingProviders([kling, fal], { duration: 2 }), {
    accepting: [],
    problems: [{ field: 'duration', msg: 'Input should be greater than or equal to 3' }, { field: 'duration', msg: 'Input should be one of 5, 10' }],
  });
  t.deepEqual(acceptingProviders([local], { duration: 2 }).accepting, [local]);
});

const refusals: Array<[string, Parameters<typeof parseInputMapping>[0], RegExp]> = [
  ['a field the input lacks', { input_map: { frames: 'num_frames' } }, /^x-model\.input_map\.frames: the input has no field "frames"$/],
  ['an unknown transform key', { input_map: { duration: { type: 'string', sufix: 's' } } }, /^x-model\.input_map\.duration\.sufix: unknown key/],
  ['an unknown type', { input_map: { duration: { type: 'text' } } }, /^x-model\.input_map\.duration\.type must be one of string, integer, number, boolean \(got "text"\)$/],
  ['a value our enum does not have', { input_map: { resolution: { values: { '4k': 'uhd' } } } }, /^x-model\.input_map\.resolution\.values\.4k: our field "resolution" has no such value \(its values: 720p, 1080p\)$/],
  ['scaling a string', { input_map: { prompt: { scale: 2 } } }, /^x-model\.input_map\.prompt\.scale: our field "prompt" is not a number$/],
  ['a suffix without a string type', { input_map: { duration: { suffix: 's' } } }, /^x-model\.input_map\.duration\.suffix goes with type: string/],
  ['two fields sent to one provider field', { input_map: { negative_prompt: 'prompt' } }, /^x-model\.input_map\.negative_prompt: the provider's field "prompt" would also receive/],
  ['an aspect_to_size without a size', { input_map: { aspect_ratio: { aspect_to_size: { width: 'w', height: 'h' } } } }, /^x-model\.input_map\.aspect_ratio\.aspect_to_size needs one of long_side/],
  ['a size_to_aspect on a field that is not a number', { input_map: { prompt: { to: 'aspect_ratio', size_to_aspect: { height: 'seed' } } } }, /^x-model\.input_map\.prompt\.size_to_aspect: our field "prompt" must be a number/],
  ['a limit on a missing field', { limits: { fps: { maximum: 30 } } }, /^x-model\.limits\.fps: the input has no field "fps"$/],
  ['an unknown limit key', { limits: { duration: { max: 30 } } }, /^x-model\.limits\.duration\.max: unknown key \(known: minimum, maximum, enum, pattern\)$/],
  ['a minimum on a boolean', { limits: { generate_audio: { minimum: 3 } } }, /^x-model\.limits\.generate_audio\.minimum: our field "generate_audio" is not a number, a text or a list$/],
  ['a bad pattern', { limits: { prompt: { pattern: '(' } } }, /^x-model\.limits\.prompt\.pattern is not a valid regular expression/],
];

for (const [what, raw, message] of refusals) {
  test(`start-up refuses ${what}, naming the key`, (t) => {
    t.throws(() => parseInputMapping(raw, VIDEO, 'x-model'), { message });
  });
}
