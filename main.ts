// Entry point: `npm start`. ROLE selects api, worker, or both in one process (default); ROLE=migrate
// (`npm run migrate`) applies the migrations and exits, for an init container or a deploy step.
import { loadConfig, ConfigError } from './config.ts';
import { createApp, loadSpec } from './app.ts';
import { displayPath } from './spec/load.ts';
import path from 'node:path';
import type { App } from './app.ts';
import { createServer, createHealthServer } from './server.ts';
import { collectProcessMetrics } from './lib/telemetry.ts';
import { createRunModel } from './workers/run-model.ts';
import { createDeliverWebhook } from './workers/deliver-webhook.ts';
import { createRetention } from './workers/retention.ts';
import { createSubscriptionJob } from './workers/subscriptions.ts';
import { SpecError } from './spec/load.ts';
import type { Server } from '@hapi/hapi';
import { pino } from 'pino';
import { createDb, migrate } from './db/knex.ts';
import { mailStartupWarning } from './lib/mail.ts';

export interface Running {
  app: App;
  server: Server | null;
  /** a worker's health port (WORKER_HEALTH_PORT), when configured */
  healthServer: Server | null;
  stop(): Promise<void>;
}

/** Starts the configured role(s); used by main and by tests that need a real process. */
export async function start(env: NodeJS.ProcessEnv = process.env): Promise<Running> {
  const config = loadConfig(env);
  if (config.role === 'migrate') throw new ConfigError('invalid configuration: ROLE: migrate runs migrations and exits; it has nothing to start (main.ts runs it)');
  if (config.role !== 'all' && !config.amqpUrl) {
    throw new ConfigError('invalid configuration: AMQP_URL: required when ROLE is api or worker (the in-process queue only links an API and a worker in one process)');
  }
  const app = await createApp(config);
  collectProcessMetrics(app.metrics);
  let server: Server | null = null;
  let healthServer: Server | null = null;
  let runModel: ReturnType<typeof createRunModel> | null = null;
  let retention: ReturnType<typeof createRetention> | null = null;
  let subscriptions: ReturnType<typeof createSubscriptionJob> | null = null;

  if (config.role !== 'api') {
    runModel = createRunModel(app);
    await app.queue.consume('predictions', runModel.handle, { prefetch: config.workerConcurrency });
    // Deliveries are I/O-bound (waiting on receivers), so they get more in flight than model runs.
    await app.queue.consume('webhooks', createDeliverWebhook(app, app.encryptionKey).handle, { prefetch: config.workerConcurrency * 8 });
    app.metrics.workerConcurrency.set({ topic: 'predictions' }, config.workerConcurrency);
    app.metrics.workerConcurrency.set({ topic: 'webhooks' }, config.workerConcurrency * 8);
    if (!app.queue.durable) await app.dispatcher.recover();
    app.dispatcher.start(5_000);
    // README "Retention": every worker ticks; the database lease lets one of them run per period.
    retention = createRetention(app);
    retention.start();
    // README "Subscriptions": renewals and grant expiry, leased the same way
    subscriptions = createSubscriptionJob(app);
    subscriptions.start();
  }
  if (config.role !== 'worker') {
    server = await createServer(app);
    await server.start();
    app.log.info({ url: config.publicUrl, listening: server.info.uri, database: config.databaseUrl ? 'mysql' : 'sqlite', queue: config.amqpUrl ? 'amqp' : 'in-process', models: app.spec.models.size }, 'mediagate API listening');
    const mailWarning = mailStartupWarning(config.mail);
    if (mailWarning) app.log.warn(mailWarning);
  }
  if (config.role === 'worker' && config.workerHealthPort !== undefined) {
    healthServer = await createHealthServer(app, config.workerHealthPort);
    await healthServer.start();
  }
  if (config.role === 'worker') app.log.info({ concurrency: config.workerConcurrency, ...(healthServer ? { health: healthServer.info.uri } : {}) }, 'mediagate worker consuming');

  return {
    app,
    server,
    healthServer,
    // A deploy never fails work: the worker stops taking messages, lets what runs finish within
    // SHUTDOWN_GRACE_MS, then hands the rest back (pending again, message requeued) for another
    // worker, or for this gateway's next start with the in-process queue.
    async stop() {
      if (server) await server.stop({ timeout: 10_000 });
      // before the database closes: a run in progress finishes its current batch
      if (retention) await retention.stop();
      if (subscriptions) await subscriptions.stop();
      if (runModel) {
        await app.queue.stopConsuming();
        const left = await app.queue.drain(config.shutdownGraceMs);
        if (left > 0) {
          app.log.info({ running: runModel.running, graceMs: config.shutdownGraceMs }, 'shutdown grace over; handing running predictions back');
          runModel.abortAll();
        }
      }
      // Last: probes keep answering while the worker drains (readiness still true, liveness too).
      if (healthServer) await healthServer.stop({ timeout: 1_000 });
      await app.close();
    },
  };
}

/**
 * `mediagate models check [DIR]`: loads the catalog exactly as start-up does (the shipped spec,
 * then `dirs`, or MODELS_DIR when none is given) and reports what it holds; offline (no database,
 * no queue, no provider). Throws the start-up's own SpecError (or ConfigError) when it does not load.
 */
export async function checkModels(dirs: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<{ models: string[]; files: Record<string, string[]> }> {
  const config = loadConfig(dirs.length ? { ...env, MODELS_DIR: dirs.join(',') } : env);
  const { models, sources } = await loadSpec(config.specDir, { modelsDirs: config.modelsDirs });
  const files: Record<string, string[]> = {};
  for (const slug of models.keys()) {
    const file = sources.get(slug);
    if (file && config.modelsDirs.some((d) => file.startsWith(`${d}${path.sep}`))) (files[displayPath(file)] ??= []).push(slug);
  }
  return { models: [...models.keys()], files };
}

export class MigrateError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MigrateError';
  }
}

/**
 * ROLE=migrate: brings the configured database (MariaDB/MySQL, or the SQLite file) to the latest
 * migration and returns what it applied. Safe to run while old processes serve: migrations are
 * additive, and knex's lock table lets only one runner apply them when several start at once.
 */
export async function runMigrations(env: NodeJS.ProcessEnv = process.env): Promise<{ database: 'mysql' | 'sqlite'; applied: string[] }> {
  const config = loadConfig(env);
  const database = config.databaseUrl ? 'mysql' : 'sqlite';
  const db = createDb({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile, poolMax: 1 });
  try {
    return { database, applied: await migrate(db) };
  } catch (err) {
    // the driver's message (refused, unknown host, access denied) names no password
    throw new MigrateError(`migrate failed on the ${database === 'mysql' ? 'MariaDB/MySQL database of DATABASE_URL' : `SQLite file ${config.sqliteFile}`}: ${(err as Error).message}`, { cause: err });
  } finally {
    await db.destroy();
  }
}

const isMain = process.argv[1] && new URL(import.meta.url).pathname === process.argv[1];
if (isMain && process.env.ROLE === 'migrate') {
  try {
    const { database, applied } = await runMigrations();
    pino({ base: { role: 'migrate' } }).info({ database, applied }, applied.length > 0 ? `applied ${applied.length} migration(s)` : 'database already up to date');
    process.exit(0);
  } catch (err) {
    const message = err instanceof ConfigError || err instanceof MigrateError ? err.message : `migrate failed: ${(err as Error).message}`;
    process.stderr.write(`mediagate: ${message}\n`);
    process.exit(1);
  }
} else if (isMain) {
  // The signal handlers come first: a worker consumes before start() has returned, so a SIGTERM
  // can arrive mid-start-up, and without a handler Node's default would kill the process at once,
  // work in hand. A signal during start-up stops the gateway as soon as it is up.
  let stopping = false;
  let started: Promise<Awaited<ReturnType<typeof start>>> | null = null;
  const shutdown = (signal: string) => {
    if (stopping || !started) return;
    stopping = true;
    started.then(async (running) => {
      running.app.log.info({ signal }, 'shutting down');
      try {
        await running.stop();
        process.exit(0);
      } catch (err) {
        running.app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      }
    }, () => undefined);
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  // SIGHUP reloads the catalog (docs/operating/model-files.md, "Reloading the catalog") and tells
  // the other processes; one that does not load is logged with its reason and changes nothing.
  process.on('SIGHUP', () => {
    if (stopping || !started) return;
    started.then(async (running) => {
      try {
        const { models, added, removed, changed, unchanged } = await running.app.catalog.reload({ broadcast: true });
        running.app.log.info({ signal: 'SIGHUP', models, added, removed, changed, unchanged }, unchanged ? 'catalog reload: the files hold the catalog in use' : 'catalog reload done');
      } catch (err) {
        running.app.log.warn({ signal: 'SIGHUP', reason: (err as Error).message }, 'catalog reload refused; the catalog in use is unchanged');
      }
    }, () => undefined);
  });
  try {
    started = start();
    await started;
  } catch (err) {
    if (err instanceof ConfigError || err instanceof SpecError) {
      process.stderr.write(`mediagate: ${err.message}\n`);
    } else {
      process.stderr.write(`mediagate: start-up failed: ${(err as Error).message}\n`);
    }
    process.exit(1);
  }
}
