// Group commit of a worker's completions per paying wallet (README "No request lost, none charged
// twice"). Every charge of a wallet updates its one row, so completions of one wallet queue on that
// row's lock (behind each other and behind the API's holds). Here they queue in the process
// instead: while a completion transaction of wallet W is in flight, further completions of W wait,
// and when it ends they all go together in the next transaction (db/predictions.ts
// completePredictions: one wallet UPDATE and one ledger INSERT for the group). No timer: a
// completion with nothing in flight for its wallet starts at once, alone, as before.
// Each caller's promise settles only after the transaction that recorded its completion committed,
// so the message is acknowledged after the outcome is durable, as before.
import type { Logger } from 'pino';
import type { Db } from '../db/knex.ts';
import { completePrediction, completePredictions, groupable } from '../db/predictions.ts';
import type { Completion, Finished } from '../db/predictions.ts';

interface Waiting {
  c: Completion;
  resolve: (f: Finished) => void;
  reject: (err: unknown) => void;
}

export interface Completions {
  /** records the completion (and its charge); resolves once committed, as completePrediction does */
  complete(c: Completion): Promise<Finished>;
  /** completions waiting for their wallet's transaction in flight (tests, metrics) */
  readonly waiting: number;
}

export interface CompletionsOptions {
  /** how a group is recorded (completePredictions; a test passes one that fails, to see the fallback) */
  completeGroup?: typeof completePredictions;
}

export function createCompletions(db: Db, log: Pick<Logger, 'warn'>, opts: CompletionsOptions = {}): Completions {
  const completeGroup = opts.completeGroup ?? completePredictions;
  // wallet -> the completions waiting for its transaction in flight to end (present while one is)
  const wallets = new Map<string, { queue: Waiting[] }>();
  let waiting = 0;

  /**
   * A group that failed as a whole (an error other than a lock conflict its retries absorbed):
   * each completion again alone, on completePrediction's path. A completion the group did record
   * (a commit whose answer was lost) is found completed by its own transition and not charged again.
   */
  async function oneByOne(group: readonly Waiting[], err: unknown): Promise<void> {
    log.warn({ err, size: group.length }, 'a group of completions failed: completing each alone');
    for (const w of group) {
      try {
        w.resolve(await completePrediction(db, w.c.p, w.c.result, w.c.now));
      } catch (e) {
        w.reject(e);
      }
    }
  }

  async function record(group: readonly Waiting[]): Promise<void> {
    if (group.length === 1) {
      const [w] = group as [Waiting];
      await completePrediction(db, w.c.p, w.c.result, w.c.now).then(w.resolve, w.reject);
      return;
    }
    let finished: Finished[] | undefined;
    let failure: unknown;
    try {
      finished = await completeGroup(db, group.map((w) => w.c));
    } catch (err) {
      failure = err;
    }
    if (finished) group.forEach((w, i) => w.resolve(finished[i]!));
    else await oneByOne(group, failure);
  }

  /** Records `group`, then, while completions of the wallet wait, the next group of all of them. */
  async function run(key: string, wallet: { queue: Waiting[] }, group: readonly Waiting[]): Promise<void> {
    await record(group);
    const next = wallet.queue;
    if (next.length === 0) {
      wallets.delete(key);
      return;
    }
    wallet.queue = [];
    waiting -= next.length;
    return run(key, wallet, next);
  }

  return {
    complete(c) {
      if (!groupable(c.p)) return completePrediction(db, c.p, c.result, c.now);
      const key = c.p.payer.teamId === null ? `u${c.p.payer.userId}` : `t${c.p.payer.teamId}`;
      return new Promise<Finished>((resolve, reject) => {
        const w: Waiting = { c, resolve, reject };
        const inFlight = wallets.get(key);
        if (inFlight) {
          inFlight.queue.push(w);
          waiting++;
          return;
        }
        const wallet: { queue: Waiting[] } = { queue: [] };
        wallets.set(key, wallet);
        void run(key, wallet, [w]);
      });
    },
    get waiting() {
      return waiting;
    },
  };
}
