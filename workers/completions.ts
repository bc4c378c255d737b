// Group commit of a worker's completions (README "No request lost, none charged twice"). Every
// charge updates its wallet's one row and each completion alone pays its own transaction and
// COMMIT. Here completions queue in the process instead: while one completion transaction is in
// flight, further completions wait, whichever wallet pays them, and when it ends they all go
// together in the next transaction (db/predictions.ts completePredictions: one wallet UPDATE per
// wallet table and one ledger INSERT for the group, the wallets locked in the order a batch of
// submits takes them, and on MariaDB the whole transaction sent as one statement, for a group of
// one too; the queueing is lib/batch.ts naturalBatcher). No timer: a completion with
// nothing in flight starts at the end of the current job, with whatever else that job completed.
// Each caller's promise settles only after the transaction that recorded its completion committed,
// so the message is acknowledged after the outcome is durable, as before.
import type { Logger } from 'pino';
import type { Db } from '../db/knex.ts';
import { completePrediction, completePredictions, completesInOneStatement, groupable } from '../db/predictions.ts';
import type { Completion, Finished } from '../db/predictions.ts';
import { eachAlone, naturalQueue } from '../lib/batch.ts';
import type { ItemOutcome } from '../lib/batch.ts';

export interface Completions {
  /** records the completion (and its charge); resolves once committed, as completePrediction does */
  complete(c: Completion): Promise<Finished>;
  /** completions waiting for the transaction in flight (tests, metrics) */
  readonly waiting: number;
}

export interface CompletionsOptions {
  /** how a group is recorded (completePredictions; a test passes one that fails, to see the fallback) */
  completeGroup?: typeof completePredictions;
}

/** The most completions in one group (one statement's CASE lists and bindings grow with it). */
const MAX_GROUP = 64;

export function createCompletions(db: Db, log: Pick<Logger, 'warn'>, opts: CompletionsOptions = {}): Completions {
  const completeGroup = opts.completeGroup ?? completePredictions;
  const alone = (c: Completion) => completePrediction(db, c.p, c.result, c.now);

  /**
   * A group that failed as a whole (an error other than a lock conflict its retries absorbed):
   * each completion again alone, one after another, on completePrediction's path. A completion
   * the group did record (a commit whose answer was lost) is found completed by its own
   * transition and not charged again.
   */
  async function oneByOne(group: readonly Completion[], err: unknown): Promise<Array<ItemOutcome<Finished>>> {
    log.warn({ err, size: group.length }, 'a group of completions failed: completing each alone');
    const outcomes: Array<ItemOutcome<Finished>> = [];
    for (const c of group) outcomes.push(...await eachAlone([c], alone));
    return outcomes;
  }

  async function record(group: Completion[]): Promise<Array<ItemOutcome<Finished>>> {
    // alone, completePrediction's transaction; on MariaDB a group of one (one statement, the wallet's lock held for no round trip)
    if (group.length === 1 && !await completesInOneStatement(db)) return eachAlone(group, alone);
    let finished: Finished[];
    try {
      finished = await completeGroup(db, group);
    } catch (err) {
      return oneByOne(group, err);
    }
    return finished.map((value) => ({ ok: true, value }));
  }

  // one natural batcher for every wallet (lib/batch.ts); a group is bounded by the worker's prefetch, and by MAX_GROUP
  const grouped = naturalQueue<Completion, Finished>(record, { max: MAX_GROUP });
  return {
    complete(c) {
      return groupable(c.p) ? grouped.submit(c) : alone(c);
    },
    get waiting() {
      return grouped.waiting;
    },
  };
}
