// lib/batch.ts: natural batching, one batch in flight per batcher.
import test from 'ava';
import { naturalBatcher } from '../../lib/batch.ts';
import type { ItemOutcome } from '../../lib/batch.ts';

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

/** Resolves after `n` microtask hops: a request that reaches the batcher through several awaits. */
async function hops(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await Promise.resolve();
}

test('by default, an arrival a few awaits behind the first of an idle batcher waits for the next batch', async (t) => {
  const g = gatedRun();
  const submit = naturalBatcher(g.run, { max: 10 });
  const answers = [submit('a'), hops(3).then(() => submit('b'))];
  await new Promise((r) => setImmediate(r));
  t.deepEqual(g.batches, [['a']]);
  await g.release();
  await g.release();
  t.deepEqual(g.batches, [['a'], ['b']]);
  t.deepEqual(await Promise.all(answers), ['A', 'B']);
});

test("with gather 'turn', arrivals of one event-loop turn share the first batch, however many awaits behind; the next turn's wait for the next", async (t) => {
  const g = gatedRun();
  const submit = naturalBatcher(g.run, { max: 10, gather: 'turn' });
  const first = [submit('a'), hops(3).then(() => submit('b')), new Promise<void>((r) => { process.nextTick(r); }).then(() => submit('c'))];
  // nothing runs before the turn ends
  await hops(10);
  t.deepEqual(g.batches, []);
  await new Promise((r) => setImmediate(r));
  t.deepEqual(g.batches, [['a', 'b', 'c']]);
  const later = submit('d');
  await g.release();
  t.deepEqual(await Promise.all(first), ['A', 'B', 'C']);
  t.deepEqual(g.batches, [['a', 'b', 'c'], ['d']], 'an arrival while a batch is in flight goes in the next');
  await g.release();
  t.is(await later, 'D');
});

test("with gather 'turn', a lone item of an idle batcher runs at the end of the same turn, waiting for nothing else", async (t) => {
  const g = gatedRun();
  const submit = naturalBatcher(g.run, { max: 10, gather: 'turn' });
  const answer = submit('a');
  await new Promise((r) => setImmediate(r));
  t.deepEqual(g.batches, [['a']]);
  await g.release();
  t.is(await answer, 'A');
});
