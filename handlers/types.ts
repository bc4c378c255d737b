// The handler contract. A handler is typed by its operationId: `Handler<'getPredictionResult'>`
// receives the operation's coerced path, query and body types from the spec (spec/v1.generated.ts)
// and must return the operation's 2xx JSON body, so a reply that drifts from the spec is a compile
// error. Protected operations (the spec declares security) always receive a caller with its owner.
import type { Request, ResponseToolkit, ResponseObject } from '@hapi/hapi';
import type { Knex } from 'knex';
import type { App } from '../lib/context.ts';
import type { Caller, StudioContext } from '../lib/context.ts';
import type { ModelInfo } from '../spec/catalog.ts';
import type { Owner, TeamPermission } from '../lib/caller.ts';
import type { AuditFields } from './audit.ts';
import type { ModelOperationId, ProtectedOperationId, operations } from '../spec/v1.generated.ts';

/** Every operationId the spec declares. */
export type OperationId = keyof operations;
/** Operations with a handler module of their own (model endpoints all share `generate`). */
export type HandledOperationId = Exclude<OperationId, ModelOperationId>;
export type { ModelOperationId, ProtectedOperationId };

/** The authenticated caller, with the owner the route bridge resolved from `team_id`. */
export interface OwnedCaller extends Caller {
  owner: Owner;
  /**
   * With a team owner: what the caller may do in that team (its role's permissions, or a team
   * key's). Absent or null with the caller's own account; absent with a team owner counts as none.
   */
  teamPermissions?: readonly TeamPermission[] | null;
}

type Defined<T> = [T] extends [never] ? Record<string, never> : [T] extends [undefined] ? Record<string, never> : NonNullable<T>;
type Parameters_<Id extends OperationId> = operations[Id]['parameters'];
type JsonBody<R> = R extends { content: { 'application/json': infer B } } ? B : never;

/** Path parameters after coercion. */
export type ParamsOf<Id extends OperationId> = Parameters_<Id> extends { path?: infer P } ? Defined<P> : Record<string, never>;
/** Query parameters after coercion, with the spec's defaults applied. */
export type QueryOf<Id extends OperationId> = Parameters_<Id> extends { query?: infer Q } ? Defined<Q> : Record<string, never>;
/** The JSON body, with the spec's defaults applied; {} when the operation takes none. */
export type BodyOf<Id extends OperationId> = Defined<operations[Id]['requestBody']> extends infer R
  ? (R extends { content: { 'application/json': infer B } } ? B : Record<string, never>) : never;
type Responses<Id extends OperationId> = operations[Id]['responses'];
/** The JSON body of the operation's 2xx responses. */
export type ReplyOf<Id extends OperationId> = Id extends OperationId ? {
  [S in keyof Responses<Id>]: S extends 200 | 201 | 202 | 203 ? JsonBody<Responses<Id>[S]> : never;
}[keyof Responses<Id>] : never;

export type CallerFor<Id extends OperationId> = Id extends ProtectedOperationId ? OwnedCaller : null;

/**
 * The Idempotency-Key of a request that sent one (plugins/spec-routes.ts runIdempotent). The
 * route bridge replays answers and runs a request once without the handler; a handler needs this
 * only for work that must not be done twice when a retry takes over the key of a run that died
 * before its answer was stored (a prediction, a money move).
 */
export interface IdempotentRun {
  /**
   * The id the key's work is to have (in the prediction id format), recorded on the key when it
   * was first claimed, before any work: the same for every run of the key. A submit creates its
   * prediction under it, so two runs of one key can never create two.
   */
  readonly workId: string;
  /**
   * true when this run took the key over from an earlier one that died or failed: the work under
   * `workId` may be done already, and is then to be answered, not done again.
   */
  readonly takenOver: boolean;
  /**
   * How to tell, should this run fail, whether its work under `workId` was done all the same:
   * the key then stays for the retry (which finds the work) instead of being freed.
   */
  watch(done: () => Promise<boolean>): void;
  /**
   * Stores `body` (status 200) as the answer, inside `trx`, the transaction that does the work:
   * work and answer commit together, so a retry never finds the one without the other. Throws
   * ConflictError, which rolls the work back, when a retry took the key over.
   */
  completeWithin(trx: Knex, body: unknown): Promise<void>;
}

export interface OperationContext<Id extends OperationId> {
  app: App;
  request: Request;
  h: ResponseToolkit;
  operationId: Id;
  params: ParamsOf<Id>;
  query: QueryOf<Id>;
  body: BodyOf<Id>;
  /** never null on protected operations (hapi's auth refused requests without a credential) */
  caller: CallerFor<Id>;
  /** fields for the operation's declared audit event (`x-audit`), which the route bridge logs */
  audit: AuditFields;
  /** the whitelabel studio whose context the request is in (README "Whitelabel studios") */
  studio?: StudioContext;
  /** set when the operation declares the Idempotency-Key header and the request sent one */
  idempotency?: IdempotentRun;
}

/**
 * A typed handler: returns the operation's 2xx body, or a hapi response for another status
 * (e.g. health's 503) or a non-200 success code.
 */
export type TypedHandler<Id extends OperationId> = (ctx: OperationContext<Id>) => Promise<ReplyOf<Id> | ResponseObject>;

/** Model endpoints (x-model): a generic input (each model has its own schema), one reply shape. */
export interface ModelContext {
  app: App;
  request: Request;
  h: ResponseToolkit;
  operationId: ModelOperationId;
  params: Record<string, never>;
  /** the common parameters every model endpoint declares: `webhook`, `webhook_events_filter`, `max_cost`, and `team_id` (already resolved into caller.owner) */
  query: { webhook?: string; webhook_events_filter?: string[]; team_id?: number; max_cost?: number };
  /** the model's input, validated against its schema, defaults applied */
  body: Record<string, unknown>;
  caller: OwnedCaller;
  model: ModelInfo;
  /** the whitelabel studio whose context the request is in (README "Whitelabel studios") */
  studio?: StudioContext;
  /** the submit answers at once whatever the request's `Prefer: wait` (a caller that waits in its own way: POST /v1/images/generations) */
  answerAtOnce?: boolean;
  /** set when the request sent an Idempotency-Key */
  idempotency?: IdempotentRun;
}
/** The submit answer; a handler returns it inside a hapi response to add the cost headers. */
export type ModelHandler = (ctx: ModelContext) => Promise<ReplyOf<ModelOperationId> | ResponseObject>;

/**
 * The context the route bridge (plugins/spec-routes.ts) builds, before it is narrowed to an
 * operation's types: every handler receives it as its OperationContext or ModelContext.
 */
export interface HandlerContext {
  app: App;
  request: Request;
  h: ResponseToolkit;
  operationId: string;
  /** the validated body, with the spec's defaults applied */
  body: Record<string, unknown>;
  /** validated and coerced query parameters */
  query: Record<string, unknown>;
  /** validated and coerced path parameters */
  params: Record<string, unknown>;
  /** null on public operations; carries `owner` on protected ones */
  caller: Caller | null;
  /** fields for the operation's declared audit event (`x-audit`) */
  audit: AuditFields;
  /** set on model endpoints */
  model?: ModelInfo;
  /** the whitelabel studio whose context the request is in (plugins/credentials.ts whitelabelPlugin), applied by the route bridge */
  studio?: StudioContext;
  /** the request's Idempotency-Key, set by runIdempotent before the handler runs */
  idempotency?: IdempotentRun;
}

/** `Handler<'opId'>`: the typed contract, the only one (every module is converted). */
export type Handler<Id extends OperationId> = TypedHandler<Id>;

/** What the route bridge calls: any of the above, given the context it built. */
export type AnyHandler = (ctx: never) => Promise<unknown>;
