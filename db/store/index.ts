// Opens the store (db/store/types.ts) on a database: picks the engine once, and puts group commit
// in front of it. Group commit lives here and nowhere else: requests of one kind that arrive while
// one of their units of work is in flight in this process wait, and then go together as the next
// unit (lib/batch.ts natural batching: no timer, so an idle process adds no delay and a busy one
// shares each round trip among everything that arrived during the previous one). Which requests
// may share a unit, how many, and what happens when a shared unit cannot be decided as one are
// the same on every engine; how a unit is written is the engine's (db/store/engine.ts).
import type { Logger } from 'pino';
import type { Db } from '../knex.ts';
import { answersReturning, DB_WAIT_MS, isMysql } from '../knex.ts';
import { BATCH_SIZES, eachAlone, naturalBatcher, naturalQueue } from '../../lib/batch.ts';
import type { ItemOutcome } from '../../lib/batch.ts';
import type { Owner } from '../../lib/caller.ts';
import type { Prediction, PredictionResult } from '../predictions/record.ts';
import { inlineRow, limitsApply, submittedRow } from './rows.ts';
import { groupable, PortableEngine } from './portable.ts';
import { MariadbEngine } from './mariadb.ts';
import type { Engine, ResultRead, RowedSubmit } from './engine.ts';
import type { ClaimRequest, Completion, Finished, SandboxRequest, Store, SubmitOutcome, SubmitRequest } from './types.ts';

export type { Store } from './types.ts';

export interface StoreOptions {
  /** where a group of completions that failed as a whole is reported (then recorded one by one), and a unit left running as stuck */
  log?: Pick<Logger, 'warn'>;
  /**
   * After how long a unit in flight counts as stuck, so that the requests behind it go on without
   * it; and the longest a submit, sandbox row or result read waits in all before it fails
   * unrecorded (lib/batch.ts stuckAfterMs and maxWaitMs; default DB_WAIT_MS; tests shorten it).
   * Claims and completions are never failed for waiting: a worker's message failed for a wait
   * would be retried, and in the end dead-lettered, for a database that was only slow.
   */
  waitMs?: number;
}

/**
 * The store on this database: the MariaDB engine on a server that answers `RETURNING` (MariaDB
 * 10.5+), the portable one on SQLite and on MySQL (a MariaDB instance made with `asIfMysql` answers
 * as MySQL: tests). Call once per database instance, where it is opened (app.ts).
 */
export async function openStore(db: Db, opts: StoreOptions = {}): Promise<Store> {
  let engine: Engine;
  if (!isMysql(db)) engine = new PortableEngine(db, 'sqlite');
  else if (await answersReturning(db)) engine = new MariadbEngine(db);
  else engine = new PortableEngine(db, 'mysql');
  return groupCommit(engine, opts.log ?? { warn: () => {} }, opts.waitMs ?? DB_WAIT_MS);
}

/** The most submits in one batch, and the most bytes of input (a large batch waits for its INSERT, and MariaDB's max_allowed_packet bounds a statement). */
const SUBMIT_BATCH_MAX = 64;
const SUBMIT_BATCH_INPUT_BYTES = 1 << 20;
/** The most sandbox rows one INSERT carries (20 bindings each). */
const SANDBOX_BATCH_MAX = 100;
/** The most first claims one statement takes. */
const CLAIM_BATCH_MAX = 64;
/** The most completions in one group (one statement's CASE lists and bindings grow with it); a worker's prefetch bounds it too. */
const COMPLETION_GROUP_MAX = 64;
/** The most result reads one statement answers. */
const RESULT_BATCH_MAX = 100;
/** Ids whose equality under MariaDB's utf8mb4_general_ci is their lower case (SQLite compares them byte for byte); any other id is read alone. */
const BATCHED_ID = /^[0-9A-Za-z_-]+$/;

/**
 * Whether a submit may join a batch. The others run alone: a key with a spend limit (its own row
 * lock and spend read), a wallet with a hard monthly budget (its month's spend read under its lock), an embed code (its caps), a studio (markup columns, or another payer),
 * a language model's with its price rule (a column besides the batch's), and a free request with no limit to count (one INSERT, no transaction, no wallet).
 */
function batchable(req: SubmitRequest): boolean {
  const { p } = req;
  if (req.keySpendLimited === true || req.hardBudget === true || req.embed !== undefined) return false;
  if (p.studioId || p.payer || p.studioMarkup || p.embedCodeId || p.priceRule) return false;
  return p.price > 0 || limitsApply(p, req.limits);
}

const sameOwner = (a: Owner, b: Owner) => a.userId === b.userId && a.teamId === b.teamId;

function groupCommit(engine: Engine, log: Pick<Logger, 'warn'>, waitMs: number): Store {
  // a unit in flight for the wait is left running (reported); an API request's is also failed unrecorded after it
  const stuck = (kind: string) => ({
    stuckAfterMs: waitMs,
    onStuck: (ageMs: number, size: number) => log.warn({ kind, ageMs, size }, 'a unit of work stuck on the database: the requests behind it go on without it'),
  });
  const request = (kind: string) => ({ ...stuck(kind), maxWaitMs: waitMs });
  /**
   * Submits, whichever wallet pays them: decided in arrival order in one unit of work (the
   * engine's submitBatch), each answered as it would have been alone. A batch the engine does not
   * take as one, or whose unit failed (rolled back whole), runs each request alone, so one bad
   * request (a duplicate id, a vanished wallet) fails only itself.
   */
  const submits = naturalBatcher<{ req: RowedSubmit; inputBytes: number }, SubmitOutcome>(async (batch) => {
    const requests = batch.map((b) => b.req);
    try {
      const answers = await engine.submitBatch(requests);
      if (answers !== undefined) return answers.map((a): ItemOutcome<SubmitOutcome> => ('outcome' in a ? { ok: true, value: a.outcome } : { ok: false, error: a.error }));
    } catch {
      // rolled back whole: each alone below
    }
    return eachAlone(requests, (r) => engine.submitAlone(r));
  }, {
    max: SUBMIT_BATCH_MAX,
    ...request('submits'),
    compatible: (taken, g) => taken.reduce((n, t) => n + t.inputBytes, 0) + g.inputBytes <= SUBMIT_BATCH_INPUT_BYTES,
  });

  /**
   * Sandbox rows without a webhook, in one INSERT, gathered over the event loop's turn (the
   * requests read from several sockets in one turn share it); if the statement fails (it wrote
   * nothing), each row alone, and only the rows that fail alone fail.
   */
  const sandbox = naturalBatcher<SandboxRequest, number | undefined>(async (requests) => {
    const alone = () => eachAlone(requests, async (r) => (await engine.insertSandboxAlone(r)).balance);
    if (requests.length === 1) return alone();
    let balances: Array<number | undefined>;
    try {
      balances = await engine.insertSandboxBatch(requests);
    } catch {
      return alone();
    }
    return balances.map((value): ItemOutcome<number | undefined> => ({ ok: true, value }));
  }, { max: SANDBOX_BATCH_MAX, gather: 'turn', sizes: BATCH_SIZES, ...request('sandbox rows') });

  /**
   * First claims the engine can take together (claimsTogether), in one unit committed only when
   * each took its row; otherwise each alone. Any other failure fails every claim of the batch, as
   * it fails a claim alone: the handler throws and its message is retried, and the retry's claim
   * takes the row over (a COMMIT whose answer was lost may have claimed it; a claim alone now
   * would find it taken and drop it).
   */
  const claims = naturalBatcher<ClaimRequest, Prediction | undefined>(async (requests) => {
    const alone = () => eachAlone(requests, (r) => engine.claimAlone(r));
    if (requests.length === 1) return alone();
    const taken = await engine.claimBatch(requests);
    if (taken === undefined) return alone();
    return taken.map((value): ItemOutcome<Prediction | undefined> => ({ ok: true, value }));
  }, { max: CLAIM_BATCH_MAX, ...stuck('claims') });

  /**
   * Completions (groupable: a priced one whose row carries its hold's list price, no studio markup
   * to pay out), whichever wallet pays them. A group that failed as a whole (an error other than a
   * lock conflict its retries absorbed) is recorded again one completion after another, alone; a
   * completion the group did record (a commit whose answer was lost) is found completed by its own
   * transition and not charged again.
   */
  const completions = naturalQueue<Completion, Finished>(async (group) => {
    if (group.length === 1 && !engine.completesAloneAsGroup) return eachAlone(group, (c) => engine.completeAlone(c));
    let finished: Finished[];
    try {
      finished = await engine.completeGroup(group);
    } catch (err) {
      log.warn({ err, size: group.length }, 'a group of completions failed: completing each alone');
      const outcomes: Array<ItemOutcome<Finished>> = [];
      for (const c of group) outcomes.push(...await eachAlone([c], (one) => engine.completeAlone(one)));
      return outcomes;
    }
    return finished.map((value) => ({ ok: true, value }));
  }, { max: COMPLETION_GROUP_MAX, ...stuck('completions') });

  /**
   * Result reads in one statement, each scoped to its owner. A batch names an id (as the engine
   * compares it) under one owner only (a read of the same id by another owner waits for the next
   * batch), so a row answers every read of its id in the batch. If the statement fails, each read alone.
   */
  const results = naturalBatcher<ResultRead, PredictionResult | undefined>(async (reads) => {
    const alone = () => eachAlone(reads, (r) => engine.readResultAlone(r));
    if (reads.length === 1) return alone();
    let found: Array<PredictionResult | undefined>;
    try {
      found = await engine.readResultBatch(reads);
    } catch {
      return alone();
    }
    return found.map((value): ItemOutcome<PredictionResult | undefined> => ({ ok: true, value }));
  }, { max: RESULT_BATCH_MAX, ...request('result reads'), compatible: (batch, read) => batch.every((b) => b.key !== read.key || sameOwner(b.owner, read.owner)) });

  return {
    engine: engine.name,
    submit(req) {
      const row = submittedRow(req.p, req.now);
      if (!batchable(req)) return engine.submitAlone({ ...req, row });
      return submits({ req: { ...req, row }, inputBytes: String(row.input).length });
    },
    startInline(req) {
      return engine.startInline({ ...req, row: inlineRow(req.p, req.now) });
    },
    settleInline: (s) => engine.settleInline(s),
    touchInline: (id, now) => engine.touchInline(id, now),
    failAbandonedInline: (before, now) => engine.failAbandonedInline(before, now),
    async insertSandbox(req) {
      if (req.p.webhookUrl) return engine.insertSandboxAlone(req);
      return { deliveryId: null, balance: await sandbox(req) };
    },
    markPending: (ids, now, opts) => engine.markPending(ids, now, opts),
    claim(req) {
      return engine.claimsTogether(req) ? claims(req) : engine.claimAlone(req);
    },
    complete(c) {
      // a charge by usage (a language model's answer) moves a release and a usage row besides: alone
      return groupable(c.p) && c.usage === undefined ? completions.submit(c) : engine.completeAlone(c);
    },
    fail: (p, error, now, code, cost) => engine.fail(p, error, now, code, cost),
    retryLater: (id, error, now) => engine.retryLater(id, error, now),
    handBack: (id, now) => engine.handBack(id, now),
    cancel: (owner, id, now) => engine.cancel(owner, id, now),
    readResult(owner, id) {
      // an id of other characters is compared by the collation in ways a Map cannot repeat (accents, trailing spaces): alone
      if (!BATCHED_ID.test(id)) return engine.readResultAlone({ owner, id, key: id });
      return results({ owner, id, key: engine.idKey(id) });
    },
  };
}
