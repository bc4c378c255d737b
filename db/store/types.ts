// The store: every write and read on a prediction's hot path, behind one interface (README "No
// request lost, none charged twice"; for contributors: docs/contributing/store.md).
//
// Handlers and workers call it as `app.store` and know nothing of what is behind it: which
// engine runs it, which requests share a statement, what a queue message carries for the worker.
// It is opened once, where the database is opened (app.ts, `openStore` in db/store/index.ts),
// which picks the implementation for the engine found there:
//
//   - portable (db/store/portable.ts): SQLite (the embedded default) and MySQL. Each unit of
//     work is one transaction of plain statements.
//   - MariaDB (db/store/mariadb.ts, extending the portable one): the same, and where a unit of
//     work can be one statement it is: a compound statement (`begin not atomic ... end`, a
//     "program", each with a header in db/store/mariadb/) that holds its whole transaction, sent
//     as a server-side prepared statement, so that no wallet's row lock is held across a round
//     trip to a gateway process. What a submit carries to its first claim (a ticket) is built and
//     read by this engine alone.
//
// Group commit is the selector's (db/store/index.ts), the same on every engine: requests of one
// kind that arrive while one of their statements is in flight in this process wait, and then go
// together as one unit of work (a batch of submits, of sandbox rows, of claims, of completions,
// of result reads), each answered exactly as it would be alone, and each only after what recorded
// it committed. A batch that cannot be decided as one runs each of its requests alone.
//
// What every implementation guarantees, checked on every engine by the contract suite
// (test/db/store-contract.ts):
//   - every transition is conditional on the prediction's current state, and every money move
//     commits in the same transaction as the transition that causes it: a prediction's price is
//     held at most once, and charged or released at most once, however many workers, copies of a
//     message or batches race on it;
//   - a wallet's balance never goes below zero through a hold; the ledger row of every move
//     records the wallet as that move left it (db/wallet/ledger.ts);
//   - a lock conflict (a deadlock victim, a lock wait timeout) is retried inside the unit of work
//     (db/retry.ts) and, if it persists, thrown as the driver's error, with nothing written;
//   - another owner's prediction is as unknown as one that does not exist.
import type { Owner } from '../../lib/caller.ts';
import type { NewPrediction, Prediction, PredictionResult } from '../predictions/record.ts';
import type { EmbedLimits } from '../embed-codes.ts';
import type { RunCost } from '../provider-costs.ts';

/** The engine a store was opened for: the embedded SQLite file, MySQL, or MariaDB. */
export type EngineName = 'sqlite' | 'mysql' | 'mariadb';

// ============================================================
// Submitting
// ============================================================

/** Limits on unfinished (queued, pending, processing) predictions a submit is checked against; 0: none. */
export interface ConcurrencyLimits {
  /** of the submitting API key (ignored when the request has none) */
  perKey: number;
  /** of the paying account: the user's own predictions, or the team's */
  perAccount: number;
}

/** One production request to record. */
export interface SubmitRequest {
  p: NewPrediction;
  /** the submit's time (epoch ms): created_at, and the day and month of the spend limits */
  now: number;
  limits?: ConcurrencyLimits;
  /** the submitting key has a spend limit (db/key-spend.ts): its row is locked and its spend read first */
  keySpendLimited?: boolean;
  /** the paying wallet has a hard monthly budget (db/alerts.ts): its row is locked and the month's spend read before the hold */
  hardBudget?: boolean;
  /** made with an embed code: its caps, checked under the code's row lock before the wallet's */
  embed?: EmbedLimits;
}

declare const TICKET: unique symbol;

/**
 * What an engine carries from a submit to the first claim of its prediction, in the prediction's
 * queue message, so that the claim needs no read of the row (MariaDB: README "No request lost,
 * none charged twice"). Opaque to every caller: the dispatcher publishes it as it is and the
 * worker hands back whatever the message held, unread. Nothing in it is trusted: a claim takes a
 * row with it only when the row holds exactly what the ticket says.
 */
export interface Ticket {
  readonly [TICKET]: true;
}

/**
 * Whether a submit was recorded, or which limit refused it. `balance`: the paying wallet's
 * spendable balance after the hold, when one was taken; `ticket`: what the queue message carries
 * for the first claim, when the engine has one.
 */
export type SubmitOutcome =
  | { accepted: true; balance?: number; ticket?: Ticket }
  | { accepted: false; scope: 'key' | 'account' | 'embed'; limit: number }
  | { accepted: false; scope: 'embed-daily' | 'embed-monthly'; limit: number }
  | { accepted: false; scope: 'budget'; limit: number };

/** A sandbox request: born completed, with sample outputs and no price. */
export interface SandboxRequest {
  p: Omit<NewPrediction, 'price'>;
  /** the sample outputs' storage keys */
  outputs: string[];
  now: number;
  /** a personal wallet whose balance the answer reports (X-Balance-Remaining), read with the insert where the engine can */
  balanceOf?: number;
}

/** A sandbox request recorded: its webhook delivery (if it has a webhook) and the balance asked for (undefined: not read). */
export interface SandboxRecorded {
  deliveryId: string | null;
  balance: number | undefined;
}

// ============================================================
// Running
// ============================================================

/** A worker's claim of a prediction named by a queue message. */
export interface ClaimRequest {
  id: string;
  now: number;
  /**
   * false for a message's first delivery: only a row not yet running (queued, pending) is taken.
   * true for a redelivery (its consumer died holding it) or a retry: a `processing` row is taken
   * over too, since the worker that held it is gone or has given it up.
   */
  takeOver: boolean;
  /** the message's ticket, unread (a first delivery only; anything else is ignored) */
  ticket?: unknown;
}

/** What a worker finished: the prediction it claimed, its stored outputs and when. */
export interface Completion {
  p: Prediction;
  result: { outputs: string[]; nsfw: boolean[]; inferenceMs: number };
  now: number;
  /**
   * A language model's answer, charged by its usage rather than at its hold: what the usage
   * costs (the store caps it at the hold and releases the rest in the completion's transaction)
   * and the tokens and text recorded beside it. Absent: the whole hold is charged.
   */
  usage?: UsageCharge;
  /**
   * What the run cost at its provider: its row (db/provider-costs.ts) is written in the same
   * transaction, with what was charged less a studio's markup, or with nothing charged when the
   * completion is not recorded (cancelled meanwhile: the provider ran it all the same). A row
   * already there is kept.
   */
  cost?: RunCost;
}

/**
 * A charge by usage: `charge` what the paying wallet pays (capped at the hold), `listCharge` its
 * price before the wallet's discount, `studioMarkup` the part of the charge paid out to a
 * studio's owner (capped at the prediction's held markup), and what was used and said.
 */
export interface UsageCharge {
  charge: number;
  listCharge?: number;
  studioMarkup?: number;
  usage: InlineUsage;
  text: string;
}

/** The outcome of a finishing transition: whether this call recorded it (false: the row was no longer running), and the webhook delivery it created. */
export interface Finished {
  recorded: boolean;
  deliveryId: string | null;
}

// ============================================================
// Inline calls (the API process runs the model while the client waits)
// ============================================================

/** Tokens a call used, as the provider reported them (or, for the output, as counted from what was relayed). */
export interface InlineUsage {
  inputTokens: number;
  outputTokens: number;
  /** reported: the provider's usage; counted: the chunks relayed, where the provider reported none */
  source: 'reported' | 'counted';
}

/**
 * How an inline call ended. `completed`: the answer is in; `cancelled`: the client went away
 * mid-answer, or its owner cancelled it (the tokens relayed until then are charged), with what
 * the record says of it (`error`, `code`); both carry the charge the caller priced from the
 * usage, which the store caps at the hold. `failed`: nothing is charged.
 */
export type InlineOutcome =
  | { status: 'completed' | 'cancelled'; charge: number; listCharge?: number; studioMarkup?: number; usage: InlineUsage; text: string; inferenceMs: number; error?: string; code?: string | null }
  | { status: 'failed'; error: string; code: string | null; usage?: InlineUsage; text?: string; inferenceMs?: number };

/** The settle of an inline call: the prediction as startInline recorded it, and how it ended. */
export interface InlineSettlement {
  p: NewPrediction;
  outcome: InlineOutcome;
  now: number;
}

/** What a settle recorded: whether this call moved the row (false: it was settled already), and what it charged. */
export interface InlineSettled {
  recorded: boolean;
  charged: number;
}

/** What a cancel found: cancelled now (the hold released), no such prediction of the owner, or already finished. */
export type CancelOutcome = 'cancelled' | 'not-found' | 'finished';

// ============================================================
// The store
// ============================================================

export interface Store {
  /** the engine it was opened for */
  readonly engine: EngineName;

  /**
   * Records a production request as `queued` and holds its price on the paying wallet (its
   * `payer`, else its owner's), in one transaction. Under `limits` the owner's and the key's
   * unfinished predictions are counted under the wallet row's lock, so concurrent submits past a
   * limit cannot all get in, whichever process serves them; a spend-limited key's row and an
   * embed code's row are locked and checked first. A refused request holds and records nothing.
   * Throws InsufficientCreditError (the wallet cannot cover the price, or a deleted team's
   * wallet), KeySpendLimitError, DuplicateError for an id already used, or the driver's error.
   */
  submit(request: SubmitRequest): Promise<SubmitOutcome>;

  /**
   * Records an inline call (the API process runs it while the client waits): the prediction as
   * `processing` (claimed by the caller, attempts 1), its price held on the paying wallet (the
   * price is the hold: the most the call can cost), and its usage row (prediction_usage: which
   * also marks it inline, so that no worker or sweeper ever runs it), in one transaction, with the
   * same checks and refusals as submit. No queue message is sent. The caller must settle it.
   */
  startInline(request: SubmitRequest): Promise<SubmitOutcome>;

  /**
   * Ends an inline call, in ONE transaction: processing -> completed (or cancelled: the client
   * went away) with the answer's text and usage, the charge (at most the hold) taken from the
   * hold and the rest of the hold released, the prediction's price set to what was charged (and
   * a studio's markup, at most the one held, credited to its owner, as `complete` does); or
   * processing -> failed with its error, the whole hold released, nothing charged. A call its
   * owner cancelled while it ran (`cancel` left its hold) is settled the same way and stays
   * cancelled. A call settled already is left alone: `recorded: false`, nothing moved.
   */
  settleInline(settlement: InlineSettlement): Promise<InlineSettled>;

  /**
   * An inline call still running says so (a long stream, every so often): its row's updated_at
   * becomes `now`, which keeps failAbandonedInline off it. False when the row is no longer
   * processing (settled, cancelled, or failed by the sweeper): the call should stop.
   */
  touchInline(id: string, now: number): Promise<boolean>;

  /**
   * Inline calls started before `silentBefore`, not touched (touchInline) since, and never
   * settled (the API process running them stopped): each settled as failed (one its owner
   * cancelled stays cancelled), its hold released, nothing charged. A call touched meanwhile is
   * left running. Answers how many.
   */
  failAbandonedInline(silentBefore: number, now: number): Promise<number>;

  /** Records a sandbox request, born completed, and its webhook delivery row in the same transaction. */
  insertSandbox(request: SandboxRequest): Promise<SandboxRecorded>;

  /**
   * The queue confirmed these requests: queued -> pending (the sweeper's marker: a pending row is
   * not published again until PENDING_REPUBLISH_AFTER_MS). A row already claimed is left alone.
   * `readFirst`: most rows are expected claimed already, so they are read first and only those
   * still queued are written.
   */
  markPending(ids: readonly string[], now: number, opts?: { readFirst?: boolean }): Promise<void>;

  /**
   * A worker takes a prediction: queued or pending (and, with `takeOver`, processing) ->
   * processing, attempts + 1. Answers the prediction as claimed, or undefined when this claim did
   * not take it (unknown, cancelled, finished, or running and not taken over): the message is
   * then acknowledged and nothing is charged. Each prediction is taken by one claim at a time,
   * and each caller learns exactly whether its claim took it.
   */
  claim(request: ClaimRequest): Promise<Prediction | undefined>;

  /**
   * processing -> completed with the outputs, and the held price charged to the wallet that held
   * it (a studio's markup paid to its owner), and the webhook delivery row, in one transaction.
   * With `usage` (a language model's answer): its charge instead, at most the hold, the rest of
   * the hold released, the price (and markup) recorded as charged, and its usage row (tokens and
   * text; written only now, when the prediction is no longer unfinished, so that no sweeper takes
   * it for an inline call), in the same transaction. With `cost`, the run's provider-cost row too.
   * A prediction no longer processing (cancelled meanwhile, completed by another worker) is not
   * charged: `recorded: false`.
   */
  complete(completion: Completion): Promise<Finished>;

  /**
   * processing -> failed with the error (and its stable code), the hold released and the webhook
   * delivery row, in one transaction. With `cost` (the provider ran it, and the gateway could not
   * keep its outputs): its provider-cost row too, with nothing charged, whether or not this
   * failure is the one recorded.
   */
  fail(p: Prediction, error: string, now: number, code?: string | null, cost?: RunCost): Promise<Finished>;

  /** A retryable failure: processing -> pending with the error, until the delayed message comes round again. */
  retryLater(id: string, error: string, now: number): Promise<void>;

  /** A worker shutting down gives the prediction back unfinished: processing -> pending, no attempt counted as failed. */
  handBack(id: string, now: number): Promise<void>;

  /**
   * The owner cancels a prediction still queued, pending or processing; its hold goes back to the
   * wallet that paid it. A running inline call's hold stays for its own settle (settleInline),
   * which charges what it relayed until it stopped; failAbandonedInline releases it if its process
   * is gone.
   */
  cancel(owner: Owner, id: string, now: number): Promise<CancelOutcome>;

  /** The owner's prediction as the result route shows it; another owner's id is undefined, as a made-up one. */
  readResult(owner: Owner, id: string): Promise<PredictionResult | undefined>;
}
