// db/batch.ts: natural batching, one batch in flight per batcher.
import test from 'ava';
import { naturalBatcher } from '../../db/batch.ts';
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
