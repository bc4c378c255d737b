// db/batch.ts: natural batching, one batch in flight per batcher (per key for keyedBatcher).
import test from 'ava';
import { keyedBatcher, naturalBatcher } from '../../db/batch.ts';
import type { ItemOutcome } from '../../db/batch.ts';

/** A run that records its batches and waits until the test lets those in flight finish. */
function gatedRun() {
  const batches: string[][] = [];
  const open: Array<() => void> = [];
  const run = async (items: string[]): Promise<Array<ItemOutcome<string>>> => {
    batches.push(items);
    await new Promise<void>((resolve) => { open.push(resolve); });
    return items.map((i) => (i.startsWith('bad') ? { ok: false, error: new Error(i) } : { ok: true, value: i.toUpperCase() }));
  };
  const release = async () => {
    await new Promise((r) => setImmediate(r));
    for (const o of open.splice(0)) o();
    await new Promise((r) => setImmediate(r));
  };
  return { batches, run, release };
}

test('items of one job go together; arrivals while a batch is in flight form the next; each gets its own outcome', async (t) => {
  const g = gatedRun();
  const submit = naturalBatcher(g.run, { max: 10 });
  const first = [submit('a'), submit('b')];
  await new Promise((r) => setImmediate(r));
  const later = [submit('c'), submit('bad d')];
  t.deepEqual(g.batches, [['a', 'b']], 'one batch in flight at a time');
  await g.release();
  t.deepEqual(await Promise.all(first), ['A', 'B']);
  t.deepEqual(g.batches, [['a', 'b'], ['c', 'bad d']]);
  await g.release();
  t.is(await later[0], 'C');
  await t.throwsAsync(later[1]!, { message: 'bad d' });
});

test('keyed: keys run side by side, a key keeps one batch in flight, waiting counts what every key has queued', async (t) => {
  const g = gatedRun();
  const batcher = keyedBatcher<string, string>((s) => s.slice(-1), g.run, { max: 2 });
  const answers = ['1x', '2x', '3x', '1y'].map((s) => batcher.submit(s));
  await new Promise((r) => setImmediate(r));
  // key x: the first two (max 2) are in flight, the third waits; key y runs at the same time
  t.deepEqual(g.batches.map((b) => b.join()).sort(), ['1x,2x', '1y']);
  t.is(batcher.waiting, 1);
  await g.release();
  t.deepEqual(g.batches.map((b) => b.join()).sort(), ['1x,2x', '1y', '3x'], 'x\'s waiting item went next');
  await g.release();
  t.deepEqual((await Promise.all(answers)).sort(), ['1X', '1Y', '2X', '3X']);
  t.is(batcher.waiting, 0);
  t.deepEqual(g.batches.map((b) => b.join()).sort(), ['1x,2x', '1y', '3x']);
});
