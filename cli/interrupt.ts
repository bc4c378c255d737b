// Ctrl-C (SIGINT) in the middle of a command: what the command was writing is removed, and the
// prediction it was waiting for is named with the command that fetches it later (the gateway goes
// on with it: an interrupted wait cancels nothing). Then the CLI exits 130, as a shell reports a
// command ended by SIGINT. Commands say what is under way; main() installs the handler.
import fs from 'node:fs';
import { EXIT } from './client.ts';

/** Files being written under a temporary name (a download's `.part`), removed on Ctrl-C. */
const partFiles = new Set<string>();
/** Predictions being waited for (or whose outputs are being saved), each with the command that fetches it later. */
const waits = new Map<string, string>();

/** A temporary file in progress; the function returned says it is gone or renamed. */
export function partFile(file: string): () => void {
  partFiles.add(file);
  return () => { partFiles.delete(file); };
}

/** A prediction the command waits for; `later` is the command that fetches it. The function returned says the wait is over. */
export function waitingFor(id: string, later: string): () => void {
  waits.set(id, later);
  return () => { waits.delete(id); };
}

/**
 * Installs the SIGINT handler for one command; the function returned removes it. The first Ctrl-C
 * removes the temporary files, says on stderr (and, with `json`, as the error document on stdout)
 * which prediction goes on and how to fetch it, and exits 130. It does all of that synchronously,
 * without waiting for the command to unwind, so it ends at once; should the exit be held up all
 * the same, a second Ctrl-C exits at once without doing any of it again.
 */
export function handleInterrupts(opts: { json: boolean }): () => void {
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(EXIT.interrupted);
    interrupted = true;
    for (const file of partFiles) {
      try { fs.rmSync(file, { force: true }); } catch { /* nothing more can be done on the way out */ }
    }
    partFiles.clear();
    // the progress line on a terminal is cleared first, so the message starts on a line of its own
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[2K');
    const [waited] = waits;
    const message = waited
      ? `interrupted; prediction ${waited[0]} goes on on the gateway (it was not cancelled): fetch it later with \`${waited[1]}\``
      : 'interrupted';
    if (opts.json) {
      process.stdout.write(`${JSON.stringify({ error: message, exit_code: EXIT.interrupted, ...(waited ? { request_id: waited[0] } : {}) }, null, 2)}\n`);
    }
    process.stderr.write(`mediagate: ${message}\n`);
    process.exit(EXIT.interrupted);
  };
  process.on('SIGINT', onSigint);
  return () => { process.off('SIGINT', onSigint); };
}
