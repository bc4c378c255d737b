// The context every room names: the App (the application's parts, assembled by the composition
// root app.ts), the loaded spec, and the Caller the credential plugins put on a request. Types
// only, so that handlers, workers and plugins can name them without importing app.ts (which
// imports them all: that was the 22-module cycle). The composition's parts are named here by
// their interfaces (type-only imports, erased at run time); see .dependency-cruiser.cjs.
import type { Role, TeamDirectory } from './caller.ts';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { OpenAPIBackend, Operation } from 'openapi-backend';
import type { Config } from '../config.ts';
import type { SpecDocument } from '../spec/load.ts';
import type { ModelInfo } from '../spec/catalog.ts';
import type { Scope } from '../spec/scopes.ts';
import type { Queue } from '../workers/queue/types.ts';
import type { Store } from '../db/store/types.ts';

export type { Store };
import type { Dispatcher } from '../workers/dispatch.ts';
import type { AdapterEnv } from '../workers/adapters/types.ts';
import type { Storage } from './storage.ts';
import type { Metrics } from './telemetry.ts';
import type { CredentialCaches } from './credential-cache.ts';

export interface LoadedSpec {
  /** the merged document as written (refs intact), served at /openapi.json */
  document: SpecDocument;
  api: OpenAPIBackend;
  /** dereferenced operations, listed once per load (start-up, and each catalog reload) */
  operations: Operation[];
  /** the same operations by operationId */
  operationById: ReadonlyMap<string, Operation>;
  models: Map<string, ModelInfo>;
  /** operationId -> the file that declares it (spec/load.ts), for messages that name the file */
  sources: ReadonlyMap<string, string>;
  /** the root openapi.yaml as parsed, before the model files: a reload may not change it */
  root: Readonly<Record<string, unknown>>;
  /** SHA-256 of the merged document: two processes that loaded the same files agree on it */
  fingerprint: string;
}

/** What a catalog reload did (lib/catalog-reload.ts). */
export interface CatalogChange {
  models: number;
  added: string[];
  removed: string[];
  changed: string[];
  /** the files load to the catalog already in use: nothing was swapped */
  unchanged: boolean;
  fingerprint: string;
}

/** The catalog reload of one process (lib/catalog-reload.ts createCatalogControl). */
export interface CatalogControl {
  /** loads the files again and swaps the catalog; `broadcast` tells the other processes (after a success) */
  reload(opts?: { broadcast?: boolean }): Promise<CatalogChange>;
  /**
   * The API server's step: routes for model endpoints it has none for, from the new catalog,
   * before the swap; a throw refuses the reload.
   */
  onNewModels(fn: (operations: readonly Operation[], next: LoadedSpec) => void): void;
}

export interface App {
  config: Config;
  log: Logger;
  /** the knex instance (db/knex.ts `Db`) */
  db: Knex;
  /** the hot path's store (db/store/types.ts): submit, claim, complete, fail, cancel, mark pending, read a result */
  store: Store;
  queue: Queue;
  /** the catalog in use; a reload replaces it whole (lib/catalog-reload.ts): read it once per request */
  spec: LoadedSpec;
  storage: Storage;
  adapterEnv: AdapterEnv;
  dispatcher: Dispatcher;
  encryptionKey: Buffer;
  clock: () => number;
  /** the Prometheus registry and the gateway's counters (lib/telemetry.ts), served at /metrics */
  metrics: Metrics;
  /** team membership for owner resolution (lib/caller.ts); tests may leave it out (every team_id is then 404) */
  teams?: TeamDirectory;
  /**
   * the API-key cache and its invalidation (README "Credential cache"): every write that changes
   * whether a key is valid or what it may do calls `credentials.invalidate` after it commits and
   * before its answer is sent
   */
  credentials: CredentialCaches;
  /** reloads the catalog (`spec`) without a restart: SIGHUP, POST /auth/admin_reload_catalog, or another process's reload */
  catalog: CatalogControl;
  /**
   * Stops the dispatcher and closes the broadcasts, the queue and the database, in that order.
   * `step` wraps each part with what it waits for (main.ts names it when the shutdown deadline passes).
   */
  close(step?: ShutdownStep): Promise<void>;
}

/** Runs one part of a shutdown, `what` naming what it waits for ("the queue to close (RabbitMQ)"). */
export type ShutdownStep = (what: string, work: () => Promise<unknown>) => Promise<void>;

/** Who is calling, as a credential plugin (plugins/credentials.ts, plugins/oauth.ts) authenticated it. */
export interface Caller {
  userId: number;
  role: Role;
  via: 'api-key' | 'session' | 'oauth' | 'embed' | 'agent_embed';
  apiKeyId: number | null;
  /** a sandbox key: mock outputs, no billing */
  isTest: boolean;
  scopes: readonly Scope[];
  /** the presenting login session (via 'session'), so that logout can end exactly that one */
  sessionId?: number;
  /** that session came in the dashboard's HttpOnly cookie (lib/session-cookie.ts), not an Authorization header */
  sessionCookie?: true;
  /**
   * set when that session was opened by a staff member acting as this user (virtualLogin,
   * supportLogin): who, and their role now. README "Impersonation and support links".
   */
  impersonator?: { userId: number; role: Role };
  /** set when the presenting API key belongs to a team: the key acts for that team only (lib/caller.ts) */
  keyTeamId?: number;
  /** the presenting key's own generation limits (null: the gateway's defaults); absent for other credentials */
  keyLimits?: { rateLimitPerMinute: number | null; maxConcurrent: number | null };
  /** the presenting key has a spend limit per period (checked again, under a lock, at hold time: db/key-spend.ts) */
  keySpendLimited?: boolean;
  /** the studio the caller's user belongs to (null: none); set by the credential plugins that read it with the user, else looked up (plugins/credentials.ts whitelabelPlugin) */
  studioId?: number | null;
  /** set for an embed or agent embed code (plugins/credentials.ts, README "Embeds") */
  embed?: EmbedGrant;
  /**
   * a personal API key's owner's count of model discounts (users.discounts, migration 3101), read
   * with the key: 0 lets the price function skip the discount lookup for that wallet (README "Discounts").
   */
  keyOwnerDiscounts?: number;
}

/** What an embed code lets its caller do, and the visitor it acts for (plugins/credentials.ts). */
export interface EmbedGrant {
  codeId: number;
  kind: 'embed' | 'agent_embed';
  /** the model endpoints (operationIds) it may submit to */
  models: readonly string[];
  maxCostPerRun: number | null;
  dailyCap: number | null;
  monthlyCap: number | null;
  /** submits per minute per client address (null: the default, 10) */
  rateLimitPerMinute: number | null;
  maxConcurrent: number | null;
  /** SHA-256 of the visitor id (X-Embed-Visitor) the request acts for */
  visitorHash: string;
}

/** A whitelabel studio's context on a request (plugins/credentials.ts, README "Whitelabel studios"). */
export interface StudioContext {
  id: number;
  slug: string;
  /** the owner: a user, or (teamId set) a team and the user who created the studio */
  userId: number;
  teamId: number | null;
  allowedModels: readonly string[];
  payerMode: 'owner_pays' | 'end_user_pays';
  markupPercent: number;
  modelPrices: Readonly<Record<string, number>>;
  /** the studio's name, for what its users read (pages, mails) */
  name?: string;
  /** how the request named the studio: the x-whitelabel-studio header, or a Host that is one of its domains */
  by?: 'header' | 'domain';
  /** a personal studio whose owner has scheduled their account's deletion (db/studios.ts findActiveStudio) */
  ownerDeletionPending?: boolean;
  /** disabled: only DISABLED_STUDIO_OPERATIONS (plugins/credentials.ts) reach a handler in its context */
  disabled?: boolean;
}
