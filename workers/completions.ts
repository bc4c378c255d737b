// Group commit of a worker's completions per paying wallet (README "No request lost, none charged
// twice"). Every charge of a wallet updates its one row, so completions of one wallet queue on that
// row's lock (behind each other and behind the API's holds). Here they queue in the process
// instead: while a completion transaction of wallet W is in flight, further completions of W wait,
// and when it ends they all go together in the next transaction (db/predictions.ts
// completePredictions: one wallet UPDATE and one ledger INSERT for the group; the queueing is
// db/batch.ts keyedBatcher). No timer: a completion with nothing in flight for its wallet starts
// at the end of the current job, with whatever else of its wallet that job completed.
// Each caller's promise settles only after the transaction that recorded its completion committed,
// so the message is acknowledged after the outcome is durable, as before.
import type { Logger } from 'pino';
import type { Db } from '../db/knex.ts';
import { completePrediction, completePredictions, groupable } from '../db/predictions.ts';
import type { Completion, Finished } from '../db/predictions.ts';
import { eachAlone, keyedBatcher } from '../db/batch.ts';
import type { ItemOutcome } from '../db/batch.ts';

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
    if (group.length === 1) return eachAlone(group, alone);
    let finished: Finished[];
    try {
      finished = await completeGroup(db, group);
    } catch (err) {
      return oneByOne(group, err);
    }
    return finished.map((value) => ({ ok: true, value }));
  }

  // one natural batcher per paying wallet (db/batch.ts), with no bound on a group's size
  const byWallet = keyedBatcher<Completion, Finished>((c) => (c.p.payer.teamId === null ? `u${c.p.payer.userId}` : `t${c.p.payer.teamId}`), record, { max: Infinity });
  return {
    complete(c) {
      return groupable(c.p) ? byWallet.submit(c) : alone(c);
    },
    get waiting() {
      return byWallet.waiting;
    },
  };
}
