// lib/batch.ts: natural batching, one batch in flight per batcher.
import test from 'ava';
import { BATCH_SIZES, BatchWaitTimeoutError, naturalBatcher, sizeAtLeast, sizeAtMost } from '../../lib/batch.ts';
import type { ItemOutcome } from '../../lib/batch.ts';
import { waitFor } from '../helpers/services.ts';

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

test('with sizes, a batch takes the largest size the waiting items fill, the rest first in the next batch, in order', async (t) => {
  const g = gatedRun();
  const submit = naturalBatcher(g.run, { max: 10, sizes: [1, 2, 4, 8] });
  const all = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((i) => submit(i));
  await new Promise((r) => setImmediate(r));
  t.deepEqual(g.batches, [['a', 'b', 'c', 'd']]);
  const late = submit('h');
  await g.release();
  // the three left over and the one that came meanwhile: 4
  t.deepEqual(g.batches, [['a', 'b', 'c', 'd'], ['e', 'f', 'g', 'h']]);
  await g.release();
  t.deepEqual(await Promise.all([...all, late]), ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H']);
});

test('the batch sizes: every size to 16, then steps of at most a quarter; the size that fits and the size that holds', (t) => {
  t.deepEqual(BATCH_SIZES.slice(0, 16), Array.from({ length: 16 }, (_, i) => i + 1));
  for (let i = 16; i < BATCH_SIZES.length; i++) t.true(BATCH_SIZES[i]! <= BATCH_SIZES[i - 1]! * 1.25, String(BATCH_SIZES[i]));
  t.is(sizeAtMost(BATCH_SIZES, 18), 16);
  t.is(sizeAtMost(BATCH_SIZES, 20), 20);
  t.is(sizeAtMost(BATCH_SIZES, 1), 1);
  t.is(sizeAtLeast(BATCH_SIZES, 17), 20);
  t.is(sizeAtLeast(BATCH_SIZES, 16), 16);
  t.is(sizeAtLeast(BATCH_SIZES, 500), 500);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Settles to its value, or to the error's class name. */
const settled = (p: Promise<string>) => p.then((v) => v, (e: unknown) => (e as Error).name);

test('with stuckAfterMs, a batch in flight that long is left running: the items behind it go in the next batch at once, and it still answers its own when it ends', async (t) => {
  const g = gatedRun();
  const stuck: Array<[number, number]> = [];
  const submit = naturalBatcher(g.run, { max: 10, stuckAfterMs: 300, maxWaitMs: 300, onStuck: (age, size) => { stuck.push([age, size]); } });
  // the watchdog's timer does not hold the process open (a server's sockets do): this test's does
  const alive = setInterval(() => {}, 1_000);
  t.teardown(() => clearInterval(alive));
  // before a's batch starts: its age, which the watchdog reads, is at most the time since then
  const submittedAt = Date.now();
  const first = settled(submit('a'));
  await new Promise((r) => setImmediate(r));
  const behind = [settled(submit('b')), settled(submit('c'))];
  await sleep(50);
  t.deepEqual(g.batches, [['a']], 'they wait while the batch is young');
  // a's batch never ends on its own: once it is 300 ms old, b and c run without it
  await waitFor(() => g.batches.length >= 2, { what: 'the items behind the stuck batch to run', intervalMs: 5 });
  t.true(Date.now() - submittedAt >= 299, `not before the wait: ${Date.now() - submittedAt} ms`);
  t.deepEqual(g.batches, [['a'], ['b', 'c']]);
  t.deepEqual(stuck.map(([, size]) => size), [1], 'told once, of the one item it holds');
  t.true(stuck[0]![0] >= 299);
  await g.release();
  t.deepEqual(await Promise.all([first, ...behind]), ['A', 'B', 'C']);
  // the batcher goes on as before: one batch at a time
  const next = [submit('d')];
  await new Promise((r) => setImmediate(r));
  next.push(submit('e'));
  await g.release();
  await g.release();
  t.deepEqual(await Promise.all(next), ['D', 'E']);
  t.deepEqual(g.batches, [['a'], ['b', 'c'], ['d'], ['e']]);
});

test('with maxWaitMs, an item that waited that long behind batches that were not stuck (more than a batch takes) fails with BatchWaitTimeoutError and never runs', async (t) => {
  const g = gatedRun();
  const submit = naturalBatcher(g.run, { max: 1, stuckAfterMs: 2_000, maxWaitMs: 300 });
  const alive = setInterval(() => {}, 1_000);
  t.teardown(() => clearInterval(alive));
  const submittedAt = Date.now();
  const [a, b, c] = ['a', 'b', 'c'].map((i) => settled(submit(i)));
  await new Promise((r) => setImmediate(r));
  // a's batch ends after 100 ms; b's starts then, and would be stuck only at 2.1 s; c's deadline is 300 ms
  await sleep(100);
  await g.release();
  t.deepEqual(g.batches, [['a'], ['b']]);
  const outcome = await c;
  t.is(outcome, 'BatchWaitTimeoutError');
  t.true(Date.now() - submittedAt >= 299, 'not before its wait');
  await g.release();
  t.deepEqual(await Promise.all([a, b]), ['A', 'B']);
  t.deepEqual(g.batches, [['a'], ['b']], 'c never ran');
});

test('with maxWaitMs, items that wait less than it behind a batch run in the next batch as before', async (t) => {
  const g = gatedRun();
  const submit = naturalBatcher(g.run, { max: 10, stuckAfterMs: 1_000, maxWaitMs: 1_000 });
  const answers = [submit('a')];
  await new Promise((r) => setImmediate(r));
  answers.push(submit('b'), submit('c'));
  await sleep(20);
  await g.release();
  await g.release();
  t.deepEqual(await Promise.all(answers), ['A', 'B', 'C']);
  t.deepEqual(g.batches, [['a'], ['b', 'c']]);
  t.true(new BatchWaitTimeoutError(5) instanceof Error);
});

test('with stuckAfterMs alone, no item ever fails for waiting: each batch stuck in turn is left running, and every item answers once they end', async (t) => {
  const g = gatedRun();
  const submit = naturalBatcher(g.run, { max: 10, stuckAfterMs: 100 });
  const alive = setInterval(() => {}, 1_000);
  t.teardown(() => clearInterval(alive));
  const answers = [settled(submit('a'))];
  await new Promise((r) => setImmediate(r));
  answers.push(settled(submit('b')));
  await waitFor(() => g.batches.length >= 2, { what: "b's batch", intervalMs: 5 });
  answers.push(settled(submit('c')));
  await waitFor(() => g.batches.length >= 3, { what: "c's batch", intervalMs: 5 });
  t.deepEqual(g.batches, [['a'], ['b'], ['c']], 'each stuck batch left running in turn');
  await sleep(250);
  t.is(g.batches.length, 3, 'nothing runs twice, nothing fails');
  await g.release();
  t.deepEqual(await Promise.all(answers), ['A', 'B', 'C']);
});
