// The throttle on a local run's progress writes, with its clock moved by the test.
import test from 'ava';
import { startGateway, newAccount } from '../helpers/gateway.ts';
import { progressReporter } from '../../workers/run-model.ts';
import { parseRunLogs } from '../../lib/run-logs.ts';
import { proceduralImage } from '../../workers/adapters/procedural-image.ts';
import type { RunUpdate } from '../../workers/adapters/types.ts';

test('progress is written at most once per interval, the last update by flush, and a short run writes nothing', async (t) => {
  const gw = await startGateway({ db: 'sqlite', queue: 'memory' });
  t.teardown(() => gw.stop());
  const acct = await newAccount(gw, 0);
  const id = 'a'.repeat(32);
  await gw.app.db('predictions').insert({ id, user_id: acct.userId, model: 'canvas-v1-fast-text-to-image', status: 'processing', is_test: false, input: '{}', price: 0, created_at: 0, updated_at: 0 });
  const row = () => gw.app.db('predictions').where({ id }).first();

  let now = 0;
  const reporter = progressReporter(gw.app, id, { intervalMs: 1000, now: () => now });
  // within the first interval: nothing written yet
  reporter.report({ progress: 0.1, logs: [{ message: 'start' }] });
  now = 500;
  reporter.report({ progress: 0.2 });
  t.is(reporter.writes, 0);
  // past it: one write with everything so far, then silence until the next interval
  now = 1000;
  for (let step = 3; step <= 9; step++) reporter.report({ progress: step / 10, ...(step === 9 ? { logs: [{ message: 'nearly' }] } : {}) });
  t.is(reporter.writes, 1);
  await reporter.flush();
  t.is(reporter.writes, 2);
  const r = await row();
  t.is(Number(r.upstream_progress), 0.9);
  t.deepEqual(parseRunLogs(r.logs)!.lines.map((l) => l.message), ['start', 'nearly']);

  // a run shorter than the interval leaves the row alone
  let later = 0;
  const short = progressReporter(gw.app, id, { intervalMs: 1000, now: () => later });
  short.report({ progress: 1, logs: [{ message: 'quick' }] });
  later = 10;
  await short.flush();
  t.is(short.writes, 0);
  t.deepEqual(parseRunLogs((await row()).logs)!.lines.map((l) => l.message), ['start', 'nearly']);
});

test('the procedural image model reports its steps as progress up to 1, and a line per image', async (t) => {
  const updates: RunUpdate[] = [];
  const adapter = proceduralImage.create({ upstreams: new Map() });
  await adapter.run({ prompt: 'steps', width: 64, height: 64, num_images: 2, num_inference_steps: 5 }, {
    signal: new AbortController().signal, predictionId: 'p', model: { operationId: 'canvas-v1-fast-text-to-image', category: 'text-to-image' },
    report: (u) => updates.push(u),
  });
  const progress = updates.flatMap((u) => (u.progress === undefined ? [] : [u.progress]));
  t.deepEqual(progress, [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]);
  const lines = updates.flatMap((u) => u.logs ?? []).map((l) => l.message);
  t.is(lines.length, 4);
  t.regex(lines[0]!, /^image 1\/2: 64x64, 5 steps, seed \d+$/);
  t.regex(lines[3]!, /^image 2\/2 done in \d+ ms$/);
});
