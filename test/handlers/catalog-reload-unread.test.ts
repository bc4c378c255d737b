// A model file put in a folder of MODELS_DIR is not read (docs/operating/model-files.md "Where
// model files are read from"): start-up and every reload log a warning naming the folder, so
// that a model missing after a reload is explained.
import test from 'ava';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startGateway } from '../helpers/gateway.ts';

const MODEL = `models:
  dot-v1-budget-text-to-image:
    summary: dot (tier budget)
    description: "Action: Draws a test pattern. Input: prompt (required). Output: one PNG. Use for: a folder test."
    x-model: { category: text-to-image, tier: budget, family: dot-v1, output: image, adapter: procedural-image, price: { base: 3 } }
    input: { type: object, additionalProperties: false, required: [prompt], properties: { prompt: { type: string, maxLength: 100 } } }
`;

test('a folder of model files in MODELS_DIR is named in a warning at start-up and at each reload', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-unread-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  await fs.writeFile(path.join(dir, 'dot.yaml'), MODEL);
  await fs.mkdir(path.join(dir, 'drafts'));
  await fs.writeFile(path.join(dir, 'drafts', 'kite.yaml'), MODEL.replaceAll('dot', 'kite'));
  const lines: Array<{ level: number; msg: string }> = [];
  const sink = new Writable({ write(chunk: Buffer, _enc, done) { lines.push(...chunk.toString('utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { level: number; msg: string })); done(); } });
  const gw = await startGateway({ db: 'sqlite', queue: 'memory', log: pino({ level: 'info' }, sink), env: { MODELS_DIR: dir } });
  t.teardown(() => gw.stop());
  const warned = (folder: string) => lines.filter((l) => l.level === 40 && l.msg.includes(`${path.join(dir, folder)}: a folder; the model files in it`));
  t.is(warned('drafts').length, 1, 'start-up names the folder');
  t.regex(warned('drafts')[0]!.msg, /\(kite\.yaml\) are not read/);

  await fs.mkdir(path.join(dir, 'pixel'));
  await fs.writeFile(path.join(dir, 'pixel', 'pixel.yaml'), MODEL.replaceAll('dot', 'pixel'));
  t.like(await gw.app.catalog.reload({ broadcast: false }), { unchanged: true });
  t.is(warned('pixel').length, 1, 'the reload names the new folder');
  t.false(lines.some((l) => l.level >= 50), 'no error-level line');
});
