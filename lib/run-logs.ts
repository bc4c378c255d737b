// A running prediction's log, one shape for every provider: timestamped lines. Providers answer
// in two ways, both handled here: their whole log so far on every status read (Replicate's
// `logs` text, fal's `logs` list), merged by count so only new lines are added; or new lines as
// they come (the local adapters). Only the last MAX_LINES lines are kept, each cut to
// MAX_LINE_CHARS, so the stored text stays small whatever a provider prints.

/** One line as a provider gave it: `at` (epoch ms) when the provider timestamped it. */
export interface RawLogLine {
  at?: number;
  message: string;
}

/** One stored line: `at` is the provider's time, or when the gateway first saw the line. */
export interface LogLine {
  at: number;
  message: string;
}

export interface RunLogs {
  /** lines the provider has written so far (more than `lines` holds once it is cut) */
  seen: number;
  lines: LogLine[];
}

export const MAX_LINES = 200;
export const MAX_LINE_CHARS = 1000;

const clean = (line: RawLogLine, now: number): LogLine => ({
  at: typeof line.at === 'number' && Number.isFinite(line.at) ? Math.round(line.at) : now,
  // no control characters but tab; a line is one line
  // eslint-disable-next-line no-control-regex
  message: line.message.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '').slice(0, MAX_LINE_CHARS),
});

/**
 * Adds what is new in `whole` (the provider's complete log so far) to `stored`. A log shorter
 * than what was seen (the provider restarted the job) starts over.
 */
export function mergeWholeLog(stored: RunLogs | null, whole: readonly RawLogLine[], now: number): RunLogs | null {
  const seen = stored?.seen ?? 0;
  if (whole.length === seen) return stored;
  if (whole.length < seen || stored === null) return { seen: whole.length, lines: whole.slice(-MAX_LINES).map((l) => clean(l, now)) };
  return appendLines(stored, whole.slice(seen), now);
}

/** Adds new lines to `stored`. */
export function appendLines(stored: RunLogs | null, fresh: readonly RawLogLine[], now: number): RunLogs | null {
  if (fresh.length === 0) return stored;
  const lines = [...(stored?.lines ?? []), ...fresh.map((l) => clean(l, now))].slice(-MAX_LINES);
  return { seen: (stored?.seen ?? 0) + fresh.length, lines };
}

/** The stored column's text back as logs; null for none or for text that is not ours. */
export function parseRunLogs(text: string | null | undefined): RunLogs | null {
  if (!text) return null;
  try {
    const v = JSON.parse(text) as { seen?: unknown; lines?: unknown };
    if (typeof v.seen !== 'number' || !Array.isArray(v.lines)) return null;
    const lines = v.lines.filter((l): l is LogLine => typeof l === 'object' && l !== null && typeof (l as LogLine).at === 'number' && typeof (l as LogLine).message === 'string');
    return { seen: v.seen, lines };
  } catch {
    return null;
  }
}

export const serializeRunLogs = (logs: RunLogs): string => JSON.stringify(logs);

/** Lines of a text log (Replicate's `logs`), without the empty last one. */
export function textLines(text: string): RawLogLine[] {
  const lines = text.split(/\r?\n|\r/);
  if (lines.at(-1) === '') lines.pop();
  return lines.map((message) => ({ message }));
}

/**
 * The progress a text log states, as 0..1: the last percentage of a progress-bar line such as
 * tqdm's ` 45%|████▌     | 9/20 [00:02<00:02, 4.1it/s]`, else the last `step/total` of one.
 */
export function progressOfText(text: string): number | undefined {
  const lines = text.split(/\r?\n|\r/).reverse();
  for (const line of lines) {
    const percent = /(\d{1,3})%\|/.exec(line);
    if (percent) {
      const n = Number(percent[1]);
      if (n <= 100) return n / 100;
    }
    const steps = /\|\s*(\d+)\/(\d+)\s*\[/.exec(line);
    if (steps && Number(steps[2]) > 0 && Number(steps[1]) <= Number(steps[2])) return Number(steps[1]) / Number(steps[2]);
  }
  return undefined;
}
