// Configuration: read once from the environment, validated, documented in README.md
// ("Configuration"). Bad configuration stops start-up with one line naming the variable.
import Joi from 'joi';
import path from 'node:path';
import type { UpstreamConfig } from './workers/adapters/types.ts';

export type Role = 'api' | 'worker' | 'all';

export interface Config {
  role: Role;
  port: number;
  host: string;
  publicUrl: string;
  /** mysql://... or undefined for the embedded SQLite file */
  databaseUrl: string | undefined;
  /** amqp://... or undefined for the in-process queue */
  amqpUrl: string | undefined;
  amqpPrefix: string;
  dataDir: string;
  sqliteFile: string;
  storageDir: string;
  specDir: string;
  signupCredit: number;
  workerConcurrency: number;
  maxBodyBytes: number;
  sessionTtlSeconds: number;
  dispatchGraceMs: number;
  /** waits before the 1st, 2nd and 3rd retry of a prediction whose upstream failed retryably */
  retryDelaysMs: number[];
  logLevel: string;
  upstreams: Map<string, UpstreamConfig>;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const schema = Joi.object({
  ROLE: Joi.string().valid('api', 'worker', 'all').default('all'),
  PORT: Joi.number().integer().min(0).max(65535).default(8080),
  HOST: Joi.string().default('0.0.0.0'),
  PUBLIC_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
  DATABASE_URL: Joi.string().uri({ scheme: ['mysql', 'mariadb'] }),
  AMQP_URL: Joi.string().uri({ scheme: ['amqp', 'amqps'] }),
  AMQP_PREFIX: Joi.string().pattern(/^[a-z][a-z0-9_-]{0,40}$/).default('mediagate'),
  DATA_DIR: Joi.string().default('./data'),
  STORAGE_DIR: Joi.string(),
  SPEC_DIR: Joi.string(),
  SIGNUP_CREDIT: Joi.number().integer().min(0).max(1e12).default(0),
  WORKER_CONCURRENCY: Joi.number().integer().min(1).max(1000).default(8),
  MAX_BODY_BYTES: Joi.number().integer().min(1024).max(100 * 1024 * 1024).default(1024 * 1024),
  SESSION_TTL_SECONDS: Joi.number().integer().min(60).max(365 * 24 * 3600).default(7 * 24 * 3600),
  DISPATCH_GRACE_MS: Joi.number().integer().min(100).max(3_600_000).default(15_000),
  RETRY_DELAYS_MS: Joi.string().pattern(/^\d{1,9}(,\d{1,9}){0,9}$/).default('2000,10000,30000'),
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
})
  .pattern(/^UPSTREAM_[A-Z0-9_]+_URL$/, Joi.string().uri({ scheme: ['http', 'https'] }))
  .pattern(/^UPSTREAM_[A-Z0-9_]+_KEY$/, Joi.string().min(1))
  .unknown(true);

const repoRoot = path.dirname(new URL(import.meta.url).pathname);

/** Builds the configuration from an environment; throws ConfigError naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings mean "unset": that is how most deploy tools express an absent variable.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const { value, error } = schema.validate(present, { abortEarly: true, convert: true });
  if (error) {
    const detail = error.details[0];
    const key = detail?.path[0] ?? 'environment';
    throw new ConfigError(`invalid configuration: ${String(key)}: ${detail?.message.replace(/^"[^"]*" /, '') ?? error.message}`);
  }
  const v = value as Record<string, string | number | undefined>;
  const port = v.PORT as number;
  const dataDir = path.resolve(String(v.DATA_DIR));
  const publicUrl = String(v.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');

  const upstreams = new Map<string, UpstreamConfig>();
  for (const [key, val] of Object.entries(present)) {
    const m = /^UPSTREAM_([A-Z0-9_]+)_URL$/.exec(key);
    if (!m || typeof val !== 'string') continue;
    const name = m[1]!.toLowerCase();
    const apiKey = present[`UPSTREAM_${m[1]}_KEY`];
    upstreams.set(name, { url: val.replace(/\/+$/, ''), ...(apiKey ? { key: apiKey } : {}) });
  }

  return {
    role: v.ROLE as Role,
    port,
    host: String(v.HOST),
    publicUrl,
    databaseUrl: v.DATABASE_URL as string | undefined,
    amqpUrl: v.AMQP_URL as string | undefined,
    amqpPrefix: String(v.AMQP_PREFIX),
    dataDir,
    sqliteFile: path.join(dataDir, 'mediagate.sqlite'),
    storageDir: path.resolve(String(v.STORAGE_DIR ?? path.join(dataDir, 'files'))),
    specDir: path.resolve(String(v.SPEC_DIR ?? path.join(repoRoot, 'spec', 'v1'))),
    signupCredit: v.SIGNUP_CREDIT as number,
    workerConcurrency: v.WORKER_CONCURRENCY as number,
    maxBodyBytes: v.MAX_BODY_BYTES as number,
    sessionTtlSeconds: v.SESSION_TTL_SECONDS as number,
    dispatchGraceMs: v.DISPATCH_GRACE_MS as number,
    retryDelaysMs: String(v.RETRY_DELAYS_MS).split(',').map(Number),
    logLevel: String(v.LOG_LEVEL),
    upstreams,
  };
}
