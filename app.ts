// The application's parts, built once per process from the configuration: database, queue,
// spec and catalog, storage. API and worker roles share this; each uses what it needs. This is
// the composition root (with main.ts and server.ts): the types of what it builds live in
// lib/context.ts, so no other module imports this one.
import { OpenAPIBackend, ValidationContext } from 'openapi-backend';
import type { Document } from 'openapi-backend';
import addFormats from 'ajv-formats';
import pino from 'pino';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { ConfigError } from './config.ts';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { MAX_WEBHOOK_RETRIES, webhookDelays } from './workers/webhook-backoff.ts';
import { createDb, migrate } from './db/knex.ts';
import { withoutBoundValues } from './db/errors.ts';
import { openStore } from './db/store/index.ts';
import type { Store } from './db/store/index.ts';
import { membership as teamMembership } from './db/teams.ts';
import { loadSpecFiles, unreadModelFiles } from './spec/load.ts';
import type { LoadOptions, SpecDocument } from './spec/load.ts';
import { checkScopes } from './spec/scopes.ts';
import { buildCatalog, catalogVocabulary, describeSchemaErrors } from './spec/catalog.ts';
import type { SpecOperation } from './spec/catalog.ts';
import { adapterRegistry } from './workers/adapters/index.ts';
import { createQueue } from './workers/queue/index.ts';
import type { Queue, TopicSpec } from './workers/queue/types.ts';
import { MAX_RETRIES } from './workers/run-model.ts';
import { createLocalStorage } from './lib/storage.ts';
import { handlerFor, generate } from './handlers/index.ts';
import { registerHandler } from './plugins/spec-routes.ts';
import { createDispatcher } from './workers/dispatch.ts';
import { createMetrics } from './lib/telemetry.ts';
import { ledgerTotals, oldestWaitingMs } from './db/stats.ts';
import type { App, LoadedSpec } from './lib/context.ts';
import { performance } from 'node:perf_hooks';
import { createCredentialCache } from './lib/credential-cache.ts';
import type { CachedApiKey, CredentialCache, CredentialCaches } from './lib/credential-cache.ts';
import { createCredentialBroadcast } from './workers/queue/amqp/credential-broadcast.ts';
import type { CredentialBroadcast } from './workers/queue/amqp/credential-broadcast.ts';
import { createCatalogBroadcast } from './workers/queue/amqp/catalog-broadcast.ts';
import type { CatalogBroadcast } from './workers/queue/amqp/catalog-broadcast.ts';
import { createCatalogControl, followBroadcast } from './lib/catalog-reload.ts';
import type { CatalogHost } from './lib/catalog-reload.ts';

export type { App, LoadedSpec };

export function topics(config: Config): TopicSpec[] {
  return [
    // Upstream polls ride the same topic as retries: one delay queue per distinct wait.
    // the ticket serves the first claim only (Store.claim); copies that may wait long go without it
    // and a retry of a sweeper's copy is a retry like any other (it takes the row over: run-model.ts)
    { name: 'predictions', retryDelaysMs: [...new Set([...config.retryDelaysMs, ...config.upstreamPollDelaysMs])].filter((d) => d > 0).sort((a, b) => a - b), maxRetries: MAX_RETRIES, firstDeliveryOnly: ['ticket', 'swept'] },
    { name: 'webhooks', retryDelaysMs: webhookDelays(config.webhookRetryScheduleMs, config.webhookMaxRetryAfterMs), maxRetries: MAX_WEBHOOK_RETRIES },
  ];
}

/**
 * The key sealing secrets the gateway must read back. Required with DATABASE_URL (every
 * process of a deployment needs the same key); the embedded default keeps one in DATA_DIR.
 */
export function resolveEncryptionKey(config: Config): Buffer {
  if (config.encryptionKey) return config.encryptionKey;
  if (config.databaseUrl) {
    throw new ConfigError('invalid configuration: ENCRYPTION_KEY: required with DATABASE_URL (32 random bytes, e.g. `openssl rand -hex 32`)');
  }
  const file = path.join(config.dataDir, 'encryption.key');
  fs.mkdirSync(config.dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, crypto.randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
}

/** The raw document's operations, as (operationId, has x-model) pairs. */
function declaredOperations(document: SpecDocument): Array<{ id: string; isModel: boolean }> {
  const ops: Array<{ id: string; isModel: boolean }> = [];
  for (const item of Object.values(document.paths)) {
    for (const op of Object.values(item)) {
      if (typeof op !== 'object' || op === null) continue;
      const { operationId } = op as { operationId?: unknown };
      if (typeof operationId === 'string') ops.push({ id: operationId, isModel: 'x-model' in op });
    }
  }
  return ops;
}

/** Loads, dereferences and checks the spec; throws SpecError naming each operation that does not resolve. */
export async function loadSpec(specDir: string, opts: LoadOptions = {}): Promise<LoadedSpec> {
  const { document, sources, root } = loadSpecFiles(specDir, opts);
  checkScopes(document);
  const api = new OpenAPIBackend({
    definition: structuredClone(document) as unknown as Document,
    // quick: validators compile on first use and the 3.0 self-check is skipped (see LIBRARY-NOTES)
    quick: true,
    validate: true,
    coerceTypes: true,
    // strictNumbers: Infinity and NaN (`1e309` in a body, `Infinity` in a path or query) are not numbers
    ajvOpts: { allErrors: true, useDefaults: true, strict: false, strictNumbers: true },
    customizeAjv: (ajv) => {
      addFormats.default(ajv);
      return ajv;
    },
  });
  await api.init();
  // Written into the library's handler map directly: register() re-lists every operation per
  // call (and init() re-registers), which made start-up quadratic in the number of model
  // endpoints. Ids that resolve to nothing are reported by buildCatalog below.
  for (const { id, isModel } of declaredOperations(document)) {
    const handler = isModel ? generate : handlerFor(id);
    if (handler) registerHandler(api, id, handler);
  }
  const operations = api.router.getOperations();
  const schemaChecker = api.validator.getAjv(ValidationContext.RequestBody);
  const models = buildCatalog(operations as unknown as SpecOperation[], adapterRegistry, (id) => handlerFor(id) !== undefined, {
    vocabulary: catalogVocabulary(document),
    document,
    sources,
    // checked now, not at the model's first request (validators compile then): an input schema
    // that is not JSON Schema stops the load naming its file, instead of a 500 per request
    checkInputSchema: (schema) => {
      if (!schemaChecker.validateSchema(schema as object)) throw new Error(describeSchemaErrors(schema, schemaChecker.errors ?? []));
    },
  });
  const operationById = new Map(operations.map((o) => [o.operationId!, o]));
  // what a reload compares: the same files give the same fingerprint on every process
  const fingerprint = crypto.createHash('sha256').update(JSON.stringify(document)).digest('hex');
  return { document, api, operations, operationById, models, sources, root, fingerprint };
}

/**
 * The API-key cache of an API process (README "Credential cache"), or null: CREDENTIAL_CACHE off,
 * a worker, or MariaDB without RabbitMQ (several processes could share the database with no way
 * to tell each other of a revocation). With RabbitMQ it serves only under a lease
 * (createCredentialBroadcast grants it); the embedded default is one process and serves at once.
 */
function credentialCache(config: Config): CredentialCache<CachedApiKey> | null {
  if (!config.credentialCache || config.role === 'worker' || config.role === 'migrate') return null;
  if (config.databaseUrl && !config.amqpUrl) return null;
  return createCredentialCache<CachedApiKey>({
    maxEntries: 10_000, maxAgeMs: 300_000, monotonic: () => performance.now(), until: config.amqpUrl ? -Infinity : Infinity,
  });
}

/** `asIfMysql`: tests only, never set by main.ts (db/knex.ts DbOptions). */
export async function createApp(config: Config, opts: { log?: Logger; clock?: () => number; asIfMysql?: true } = {}): Promise<App> {
  // The AWS SDK (lib/storage-s3.ts, some 100 ms to import) is loaded only when STORAGE_URL selects
  // a bucket, and first: a failed load stops start-up before anything is opened.
  const s3 = config.storageS3 ? await import('./lib/storage-s3.ts') : undefined;
  // every logged error without the values its statement bound (db/errors.ts), on a given logger too
  const log = (opts.log ?? pino({ level: config.logLevel, base: { role: config.role } }))
    .child({}, { serializers: { err: (err: Error) => withoutBoundValues(pino.stdSerializers.err(err)) } });
  const encryptionKey = resolveEncryptionKey(config);
  // a model file in a folder of MODELS_DIR is not read: said at start-up and at each reload, so
  // that its missing models are explained
  const warnUnread = () => { for (const note of unreadModelFiles(config.modelsDirs)) log.warn(`MODELS_DIR: ${note}`); };
  const spec = await loadSpec(config.specDir, { modelsDirs: config.modelsDirs });
  warnUnread();
  const db = createDb({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile, poolMax: config.dbPoolMax, preparedPerConnection: config.dbPreparedPerConnection, asIfMysql: opts.asIfMysql });
  let store: Store;
  try {
    await migrate(db, { onLockHeld: (message) => log.info(message) });
    // the engine is decided here, once, for every unit of work of the hot path
    store = await openStore(db, { log });
  } catch (err) {
    await db.destroy();
    throw err;
  }
  let queue: Queue;
  const queueLog = (msg: string, extra?: Record<string, unknown>) => log.info(extra ?? {}, msg);
  try {
    queue = await createQueue(config.amqpUrl, { prefix: config.amqpPrefix, log: queueLog });
    await queue.setup(topics(config));
  } catch (err) {
    await db.destroy();
    throw err;
  }
  const keys = credentialCache(config);
  let broadcast: CredentialBroadcast | null = null;
  if (config.amqpUrl) {
    try {
      broadcast = await createCredentialBroadcast({ url: config.amqpUrl, prefix: config.amqpPrefix, db, log: queueLog, leaseMs: config.credentialCacheLeaseMs, cache: keys });
    } catch (err) {
      await queue.close();
      await db.destroy();
      throw err;
    }
  }
  // The catalog reload (lib/catalog-reload.ts): the host reads and swaps `app.spec`, which exists
  // only once the app below does; the broadcast tells the other processes (RabbitMQ only).
  let current = spec;
  let catalogBroadcast: CatalogBroadcast | null = null;
  const catalogHost: CatalogHost = {
    current: () => current,
    swap: (next) => {
      current = next;
      app.spec = next;
    },
    load: async () => {
      const next = await loadSpec(config.specDir, { modelsDirs: config.modelsDirs });
      warnUnread();
      return next;
    },
    publish: async (fingerprint) => { await catalogBroadcast?.publish(fingerprint); },
    log: (msg, extra) => log.info(extra ?? {}, msg),
  };
  const catalog = createCatalogControl(catalogHost);
  if (config.amqpUrl) {
    try {
      catalogBroadcast = await createCatalogBroadcast({
        url: config.amqpUrl, prefix: config.amqpPrefix, log: queueLog,
        onReload: (fingerprint) => { void followBroadcast(catalog, { current: catalogHost.current, log: (msg, extra) => log.warn(extra ?? {}, msg) }, fingerprint); },
      });
    } catch (err) {
      await broadcast?.close();
      await queue.close();
      await db.destroy();
      throw err;
    }
  }
  const credentials: CredentialCaches = {
    keys,
    channel: () => broadcast?.channel() ?? null,
    // the embedded default is one process: its own cache is the only one
    invalidate: broadcast ? (target) => broadcast.invalidate(target) : async (target) => { keys?.drop(target); },
  };
  const clock = opts.clock ?? Date.now;
  const metrics = createMetrics({
    queueDepth: (topic) => queue.depth(topic),
    oldestWaitingMs: () => oldestWaitingMs(db, clock()),
    ledgerTotals: () => ledgerTotals(db),
    onError: (what, err) => log.warn({ err: (err as Error).message ?? String(err) }, `metrics: could not read ${what}`),
  });
  const dispatcher = createDispatcher({ db, store, queue, log, clock, graceMs: config.dispatchGraceMs, markDelayMs: config.dispatchMarkDelayMs, webhookTimeoutMs: config.webhookTimeoutMs, pendingRepublishAfterMs: config.pendingRepublishAfterMs });
  const app: App = {
    config,
    log,
    db,
    store,
    queue,
    spec,
    storage: config.storageS3 && s3 ? s3.createS3Storage(config.storageS3, config.storageDir, config.publicUrl) : createLocalStorage(config.storageDir, config.publicUrl),
    adapterEnv: { upstreams: config.upstreams, allowPrivateOutputs: config.upstreamAllowPrivateOutputs, log },
    dispatcher,
    encryptionKey,
    clock,
    metrics,
    teams: { membership: async (teamId, userId) => { const role = await teamMembership(db, teamId, userId); return role ? { role } : undefined; } },
    credentials,
    catalog,
    async close(step = async (_what, work) => { await work(); }) {
      await step('the dispatcher to stop', () => dispatcher.stop());
      if (catalogBroadcast) await step('the catalog broadcast to close (RabbitMQ)', () => catalogBroadcast!.close());
      if (broadcast) await step('the credential broadcast to close (RabbitMQ)', () => broadcast!.close());
      await step(`the queue to close (${config.amqpUrl ? 'RabbitMQ' : 'in-process'})`, () => queue.close());
      await step('the database connections to close', () => db.destroy());
    },
  };
  return app;
}
