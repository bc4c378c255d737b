// A pino logger whose lines the test can read: every JSON line written, in order.
import { Writable } from 'node:stream';
import pino from 'pino';
import type { Level } from 'pino';

export function captureLog(level: Level = 'info') {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, parsed: <T = Record<string, unknown>>() => lines.map((l) => JSON.parse(l) as T), log: pino({ level }, stream) };
}
