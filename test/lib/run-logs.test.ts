import test from 'ava';
import { MAX_LINE_CHARS, MAX_LINES, appendLines, mergeWholeLog, parseRunLogs, progressOfText, serializeRunLogs, textLines } from '../../lib/run-logs.ts';

test('a provider that answers its whole log each time adds only the new lines, with their first-seen time when it gives none', (t) => {
  const first = mergeWholeLog(null, [{ message: 'a' }, { message: 'b', at: 5 }], 100);
  t.deepEqual(first, { seen: 2, lines: [{ at: 100, message: 'a' }, { at: 5, message: 'b' }] });
  // nothing new: the same object (the worker then writes nothing)
  t.is(mergeWholeLog(first, [{ message: 'a' }, { message: 'b', at: 5 }], 200), first);
  const second = mergeWholeLog(first, [{ message: 'a' }, { message: 'b' }, { message: 'c' }], 300);
  t.deepEqual(second, { seen: 3, lines: [{ at: 100, message: 'a' }, { at: 5, message: 'b' }, { at: 300, message: 'c' }] });
  // a shorter log (the job restarted) starts over
  t.deepEqual(mergeWholeLog(second, [{ message: 'x' }], 400), { seen: 1, lines: [{ at: 400, message: 'x' }] });
});

test('only the last lines are kept, each cut, without control characters; the count goes on', (t) => {
  let logs = null;
  for (let i = 0; i < MAX_LINES + 50; i++) logs = appendLines(logs, [{ message: `line ${i}` }], i);
  t.is(logs!.seen, MAX_LINES + 50);
  t.is(logs!.lines.length, MAX_LINES);
  t.is(logs!.lines[0]!.message, 'line 50');
  const long = appendLines(null, [{ message: `\u0007bell\u001b[0m${'x'.repeat(MAX_LINE_CHARS * 2)}` }], 0)!;
  t.is(long.lines[0]!.message.length, MAX_LINE_CHARS);
  t.true(long.lines[0]!.message.startsWith('bell[0m'));
  t.deepEqual(parseRunLogs(serializeRunLogs(logs!)), logs);
  t.is(parseRunLogs('not json'), null);
  t.is(parseRunLogs(null), null);
});

test('text logs split into lines; the last progress bar gives the progress', (t) => {
  t.deepEqual(textLines('a\nb\r\nc\n'), [{ message: 'a' }, { message: 'b' }, { message: 'c' }]);
  t.is(progressOfText(' 10%|█         | 1/10 [00:00<00:01]\n 40%|████      | 4/10 [00:01<00:01]\n'), 0.4);
  t.is(progressOfText('100%|██████████| 28/28 [00:05<00:00]'), 1);
  t.is(progressOfText('sampling |  3/12 [00:01<00:03]'), 0.25);
  t.is(progressOfText('Using seed 42\nrunning'), undefined);
  t.is(progressOfText('disk 99% full'), undefined);
});
