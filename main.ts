// Entry point: `npm start`. ROLE selects api, worker, or both in one process (default); ROLE=migrate
// (`npm run migrate`) applies the migrations and exits, for an init container or a deploy step.
import { loadConfig, ConfigError } from './config.ts';
import { createApp, loadSpec } from './app.ts';
import { displayPath, unreadModelFiles } from './spec/load.ts';
import path from 'node:path';
import type { App } from './app.ts';
import type { Config } from './config.ts';
import type { ShutdownStep } from './lib/context.ts';
import { createServer, createHealthServer } from './server.ts';
import { collectProcessMetrics } from './lib/telemetry.ts';
import { createRunModel } from './workers/run-model.ts';
import { createDeliverWebhook } from './workers/deliver-webhook.ts';
import { createRetention } from './workers/retention.ts';
import { createSubscriptionJob } from './workers/subscriptions.ts';
import { stripeCancellationsSettled } from './workers/stripe-cancellations.ts';
import { SpecError } from './spec/load.ts';
import type { Server } from '@hapi/hapi';
import { pino } from 'pino';
import { createDb, migrate } from './db/knex.ts';
import { mailStartupWarning } from './lib/mail.ts';
import { TIMED_OUT, within } from './lib/within.ts';

export interface Running {
  app: App;
  server: Server | null;
  /** a worker's health port (WORKER_HEALTH_PORT), when configured */
  healthServer: Server | null;
  stop(): Promise<void>;
  /** what stop() is waiting for right now (empty before and after it), for the shutdown deadline's log line */
  waitingFor(): string[];
}

/** How long an API process gives the requests in flight at shutdown (docs/operating/production.md "Shutdown"). */
const REQUESTS_GRACE_MS = 10_000;
/**
 * What the shutdown may take beyond the waits it promises (requests in flight, SHUTDOWN_GRACE_MS):
 * handing back the predictions still running (each writes its row back to `pending` and returns its
 * message; the queue's close waits up to 10 s for them, workers/queue/drain.ts) and closing the
 * connections. With a broker and a database that answer, that is well under a second; 10 s more
 * leaves room for a slow hand-back without letting a hung one hold the process for long.
 */
const SHUTDOWN_MARGIN_MS = 10_000;
/**
 * How long a worker's shutdown waits for the broker to confirm its consumers' cancel. Running
 * predictions go on meanwhile (it counts toward their grace), and a broker that does not answer
 * would otherwise hold every later step, the grace and the hand-back included, until the deadline.
 * Past it the shutdown goes on: the consumers' channels close with the connection.
 */
export const CONSUMER_CANCEL_BOUND_MS = 5_000;
/**
 * How long a shutdown waits for the Stripe cancellations requests started after their answers
 * (workers/stripe-cancellations.ts). Stripe may take a minute to fail one; each is recorded, so
 * one cut short is tried again by the subscription job.
 */
const STRIPE_CANCELS_BOUND_MS = 5_000;

/**
 * After a first SIGTERM/SIGINT the process exits by this deadline whatever it still waits for (a
 * stalled broker, database or S3 call): the requests' 10 s (roles that serve the API), plus
 * SHUTDOWN_GRACE_MS (roles that run predictions), plus the margin above. Defaults: api 20 s,
 * worker 35 s, all 45 s.
 */
export function shutdownDeadlineMs(config: Pick<Config, 'role' | 'shutdownGraceMs'>): number {
  return (config.role !== 'worker' ? REQUESTS_GRACE_MS : 0) + (config.role !== 'api' ? config.shutdownGraceMs : 0) + SHUTDOWN_MARGIN_MS;
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

  // What stop() waits for at each moment: named in the log line when the shutdown deadline passes.
  const waiting = new Set<string>();
  const step: ShutdownStep = async (what, work) => {
    waiting.add(what);
    try {
      await work();
    } finally {
      waiting.delete(what);
    }
  };

  /** A step the shutdown waits for at most `ms`: past it, a warning naming it, and the next steps. */
  const boundedStep = (what: string, ms: number, work: () => Promise<unknown>) => step(what, async () => {
    if (await within(work(), ms) === TIMED_OUT) {
      app.log.warn({ waitingFor: [what], waitedMs: ms }, `shutdown step not done within ${ms} ms; going on without it`);
    }
  });

  return {
    app,
    server,
    healthServer,
    waitingFor: () => [...waiting],
    // A deploy never fails work: the worker stops taking messages, lets what runs finish within
    // SHUTDOWN_GRACE_MS, then hands the rest back (pending again, message requeued) for another
    // worker, or for this gateway's next start with the in-process queue. main.ts bounds the
    // whole of it (shutdownDeadlineMs).
    async stop() {
      if (server) await step('requests in flight to finish (API)', () => server!.stop({ timeout: REQUESTS_GRACE_MS }));
      // First for a worker: no new message is taken while the rest winds down. The grace of the
      // running predictions counts from here, the wait for the cancel included.
      const graceEnds = Date.now() + config.shutdownGraceMs;
      if (runModel) await boundedStep('the consumers to be cancelled (queue)', CONSUMER_CANCEL_BOUND_MS, () => app.queue.stopConsuming());
      // The running predictions get their grace while the retention and subscription jobs finish
      // their current batch; all of it before the database closes.
      const model = runModel;
      await Promise.all([
        retention && step('the retention job to finish its batch', () => retention!.stop()),
        subscriptions && step('the subscriptions job to finish its batch', () => subscriptions!.stop()),
        model && step('running predictions to finish or be handed back', async () => {
          const left = await app.queue.drain(Math.max(0, graceEnds - Date.now()));
          if (left > 0) {
            app.log.info({ running: model.running, graceMs: config.shutdownGraceMs }, 'shutdown grace over; handing running predictions back');
            model.abortAll();
          }
        }),
      ]);
      await boundedStep('Stripe cancellations started by requests to finish', STRIPE_CANCELS_BOUND_MS, () => stripeCancellationsSettled());
      // Last: probes keep answering while the worker drains (readiness still true, liveness too).
      if (healthServer) await step('the health port to close', () => healthServer!.stop({ timeout: 1_000 }));
      await app.close(step);
    },
  };
}

/**
 * `mediagate models check [DIR]`: loads the catalog exactly as start-up does (the shipped spec,
 * then `dirs`, or MODELS_DIR when none is given) and reports what it holds; offline (no database,
 * no queue, no provider). Throws the start-up's own SpecError (or ConfigError) when it does not load.
 */
export async function checkModels(dirs: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<{ models: string[]; files: Record<string, string[]>; warnings: string[] }> {
  const config = loadConfig(dirs.length ? { ...env, MODELS_DIR: dirs.join(',') } : env);
  const { models, sources } = await loadSpec(config.specDir, { modelsDirs: config.modelsDirs });
  const files: Record<string, string[]> = {};
  for (const slug of models.keys()) {
    const file = sources.get(slug);
    if (file && config.modelsDirs.some((d) => file.startsWith(`${d}${path.sep}`))) (files[displayPath(file)] ??= []).push(slug);
  }
  return { models: [...models.keys()], files, warnings: unreadModelFiles(config.modelsDirs) };
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
export async function runMigrations(env: NodeJS.ProcessEnv = process.env, opts: { onLockHeld?: (message: string) => void } = {}): Promise<{ database: 'mysql' | 'sqlite'; applied: string[] }> {
  const config = loadConfig(env);
  const database = config.databaseUrl ? 'mysql' : 'sqlite';
  const db = createDb({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile, poolMax: 1 });
  try {
    return { database, applied: await migrate(db, opts) };
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
    const log = pino({ base: { role: 'migrate' } });
    const { database, applied } = await runMigrations(process.env, { onLockHeld: (message) => log.info(message) });
    log.info({ database, applied }, applied.length > 0 ? `applied ${applied.length} migration(s)` : 'database already up to date');
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
  // The first SIGTERM/SIGINT stops gracefully within shutdownDeadlineMs, counted from the signal;
  // past it, or on a second signal (Ctrl-C twice), the process exits 1 at once, saying what it was
  // still waiting for. Work not handed back by then is what a killed worker leaves: the broker
  // redelivers its messages, and another worker (or the next start) takes the predictions over.
  let stopping = false;
  let started: Promise<Awaited<ReturnType<typeof start>>> | null = null;
  let running: Running | null = null;
  let deadlineMs = SHUTDOWN_MARGIN_MS;
  let fallbackLog: ReturnType<typeof pino> | null = null;
  // before start() has returned there is no app logger yet
  const log = () => running?.app.log ?? (fallbackLog ??= pino({ base: { role: process.env.ROLE ?? 'all' } }));
  const waitingFor = () => (running ? running.waitingFor() : ['start-up to finish']);
  const shutdown = (signal: string) => {
    if (!started) return;
    if (stopping) {
      log().warn({ signal, waitingFor: waitingFor() }, 'second signal during shutdown; exiting now');
      process.exit(1);
    }
    stopping = true;
    // not unref'd: a step that hangs on nothing (no socket, no timer) must not let Node exit 0
    setTimeout(() => {
      log().warn({ signal, deadlineMs, waitingFor: waitingFor() }, `shutdown did not finish within ${deadlineMs} ms; exiting`);
      process.exit(1);
    }, deadlineMs);
    started.then(async (r) => {
      r.app.log.info({ signal, deadlineMs }, 'shutting down');
      try {
        await r.stop();
        process.exit(0);
      } catch (err) {
        r.app.log.error({ err }, 'shutdown failed');
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
    // start() reads the same configuration; a ConfigError is reported below either way
    deadlineMs = shutdownDeadlineMs(loadConfig(process.env));
    started = start();
    running = await started;
  } catch (err) {
    if (err instanceof ConfigError || err instanceof SpecError) {
      process.stderr.write(`mediagate: ${err.message}\n`);
    } else {
      process.stderr.write(`mediagate: start-up failed: ${(err as Error).message}\n`);
    }
    process.exit(1);
  }
}
