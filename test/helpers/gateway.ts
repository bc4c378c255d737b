// An in-process gateway for tests: the real app, spec, plugins and (optionally) worker,
// driven through server.inject.
import type { Server } from '@hapi/hapi';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { Logger } from 'pino';
import { loadConfig } from '../../config.ts';
import { createApp, topics } from '../../app.ts';
import type { App } from '../../app.ts';
import { createServer } from '../../server.ts';
import { creditWallet } from '../../db/wallet/moves.ts';
import { createRunModel } from '../../workers/run-model.ts';
import { createDeliverWebhook } from '../../workers/deliver-webhook.ts';
import { AMQP_URL, deleteTopology, freshDatabase, uniqueName, waitFor } from './services.ts';

export interface TestGateway {
  /** the environment the gateway was configured from, for starting more processes on the same services */
  env: Record<string, string>;
  app: App;
  server: Server;
  stop(): Promise<void>;
}

export interface GatewayOptions {
  /** 'mysql' (default): a fresh MariaDB database; 'sqlite': a file in a temp dir */
  db?: 'mysql' | 'sqlite';
  /** 'amqp' (default): RabbitMQ with a unique prefix; 'memory': the in-process queue */
  queue?: 'amqp' | 'memory';
  /** run a run-model consumer in this process */
  worker?: boolean;
  env?: Record<string, string>;
  /** the app's clock (epoch ms), for tests that move time */
  clock?: () => number;
  /** the app's logger (default: silent) */
  log?: Logger;
  /** its database instance answers as if MariaDB were MySQL (no RETURNING: the MySQL fallbacks; db/knex.ts DbOptions) */
  asIfMysql?: true;
  /** another MariaDB server than the shared one (a test's own, test/helpers/own-services.ts) */
  mysqlRootUrl?: string;
  /** another RabbitMQ than the shared one (a test's own node) */
  amqpUrl?: string;
}

export async function startGateway(opts: GatewayOptions = {}): Promise<TestGateway> {
  const cleanups: Array<() => Promise<void>> = [];
  // Every injected request comes from 127.0.0.1: the registration throttle has its own tests (test/handlers/policies-rate-limit.test.ts).
  // The generation limits are off unless a test sets them (test/handlers/policies-rate-limit-generations.test.ts): load
  // and race tests submit far more than a minute's default with one key.
  // Password hashes at 2^10 instead of 2^15: each account a test makes registers and signs in, two
  // scrypt hashes of 0.2 s of CPU at the default; four handler files took 37 s of CPU, 20 s at 2^10.
  const env: Record<string, string> = {
    LOG_LEVEL: 'silent', PUBLIC_URL: 'http://gateway.test', REGISTER_RATE_PER_ADDRESS: '1000000', PASSWORD_HASH_COST: '10',
    GENERATE_RATE_PER_KEY: '0', GENERATE_RATE_PER_ACCOUNT: '0', GENERATE_CONCURRENT_PER_KEY: '0', GENERATE_CONCURRENT_PER_ACCOUNT: '0',
    ...opts.env,
  };
  // The data directory holds output files (and the SQLite file when there is no MariaDB).
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'mg-test-'));
  env.DATA_DIR = dir;
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  if ((opts.db ?? 'mysql') === 'mysql') {
    // migrated from the shared server's template; a test's own server migrates it at start-up
    const db = await freshDatabase(opts.mysqlRootUrl, { migrated: opts.mysqlRootUrl === undefined });
    env.DATABASE_URL = db.url;
    env.ENCRYPTION_KEY ??= '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff';
    cleanups.push(db.drop);
  }
  if ((opts.queue ?? 'amqp') === 'amqp') {
    env.AMQP_URL = opts.amqpUrl ?? AMQP_URL;
    env.AMQP_PREFIX = uniqueName('t').toLowerCase();
  }
  const config = loadConfig(env);
  // the topology is removed from the broker itself: a test may point AMQP_URL at a relay it closes
  if (config.amqpUrl) cleanups.push(() => deleteTopology(config.amqpPrefix, topics(config), opts.amqpUrl ?? AMQP_URL));
  const app = await createApp(config, { log: opts.log ?? pino({ level: 'silent' }), ...(opts.clock ? { clock: opts.clock } : {}), asIfMysql: opts.asIfMysql });
  const server = await createServer(app);
  await server.initialize();
  let runModel: ReturnType<typeof createRunModel> | null = null;
  if (opts.worker) {
    runModel = createRunModel(app);
    await app.queue.consume('predictions', runModel.handle, { prefetch: 4 });
    await app.queue.consume('webhooks', createDeliverWebhook(app, app.encryptionKey).handle, { prefetch: 32 });
    app.metrics.workerConcurrency.set({ topic: 'predictions' }, 4);
    app.metrics.workerConcurrency.set({ topic: 'webhooks' }, 32);
  }
  return {
    env,
    app,
    server,
    async stop() {
      await server.stop();
      runModel?.abortAll();
      await app.close();
      for (const c of cleanups.reverse()) await c();
    },
  };
}

export interface Account {
  userId: number;
  session: string;
  liveKey: string;
  testKey: string;
}

/**
 * Registers a user, logs in, and creates a production and a sandbox key; `credit` is put in the
 * wallet. `emailVerified`: the address is marked verified, as a one-time code would (alerts are
 * mailed to verified addresses only).
 */
export async function newAccount(gw: TestGateway, credit = 0, opts: { emailVerified?: boolean } = {}): Promise<Account> {
  const email = `${uniqueName('user')}@example.com`;
  const password = 'correct horse battery';
  const reg = await gw.server.inject({ method: 'POST', url: '/auth/register', payload: { email, password } });
  if (reg.statusCode !== 201) throw new Error(`register failed: ${reg.payload}`);
  const userId = (reg.result as { id: number }).id;
  if (opts.emailVerified) await gw.app.db('users').where({ id: userId }).update({ email_verified: true });
  // a grant through the ledger, so the wallet and its rows agree (test/helpers/ledger.ts)
  if (credit) await gw.app.db.transaction((trx) => creditWallet(trx, { userId, teamId: null }, credit, 'grant', 'test credit', gw.app.clock()));
  const login = await gw.server.inject({ method: 'POST', url: '/auth/login', payload: { email, password } });
  const session = (login.result as { access_token: string }).access_token;
  const auth = { authorization: `Bearer ${session}` };
  const live = await gw.server.inject({ method: 'POST', url: '/api/v1/keys', headers: auth, payload: { name: 'live', is_test: false } });
  const test = await gw.server.inject({ method: 'POST', url: '/api/v1/keys', headers: auth, payload: { name: 'test', is_test: true } });
  return { userId, session, liveKey: (live.result as { key: string }).key, testKey: (test.result as { key: string }).key };
}

/** Submits to a model endpoint with an API key; its request id (anything but 200 throws). */
export async function submitModel(gw: TestGateway, key: string, url: string, payload: Record<string, unknown>): Promise<string> {
  const res = await gw.server.inject({ method: 'POST', url, headers: { 'x-api-key': key }, payload });
  if (res.statusCode !== 200) throw new Error(`submit failed: ${res.statusCode} ${res.payload}`);
  return (res.result as { request_id: string }).request_id;
}

/** A prediction's row once it is completed, failed or cancelled (30 s at most). */
export async function finishedRow(gw: TestGateway, id: string): Promise<Record<string, any>> {
  return waitFor(async () => {
    const r = await gw.app.db('predictions').where({ id }).first();
    return ['completed', 'failed', 'cancelled'].includes(r.status) ? r : undefined;
  }, { what: 'the prediction to finish', timeoutMs: 30_000 });
}
