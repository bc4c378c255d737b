// Configuration: read once from the environment, validated, documented in README.md
// ("Configuration"). Bad configuration stops start-up with one line naming the variable.
import Joi from 'joi';
import path from 'node:path';
import { isAddressOrRange } from './lib/addresses.ts';
import type { UpstreamConfig } from './workers/adapters/types.ts';
import { parseStorageUrl } from './lib/storage-s3.ts';
import { mysqlAddress } from './db/knex.ts';
import type { S3StorageConfig } from './lib/storage-s3.ts';
import { DEFAULT_UPLOAD_LIMITS } from './lib/uploads.ts';
import type { UploadLimits } from './lib/uploads.ts';
import type { CallbackConfig } from './lib/upstream-callbacks.ts';
import { DEFAULT_SUBSCRIPTION_PLANS, parsePlans } from './lib/subscription-plans.ts';
import type { SubscriptionPlans } from './lib/subscription-plans.ts';
import fs from 'node:fs';

/** `migrate` applies the database migrations and exits (an init container); it starts nothing else. */
export type Role = 'api' | 'worker' | 'all' | 'migrate';

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
  /** CREDENTIAL_CACHE: API processes cache API-key lookups (README "Credential cache") */
  credentialCache: boolean;
  /** CREDENTIAL_CACHE_LEASE_MS: how long a process may serve keys from its cache without renewing its lease; an invalidation waits at most this long for a silent process */
  credentialCacheLeaseMs: number;
  dataDir: string;
  sqliteFile: string;
  dbPoolMax: number;
  /** DB_PREPARED_PER_CONNECTION: prepared statements each MariaDB/MySQL connection keeps (db/prepared.ts); 0: every statement as text */
  dbPreparedPerConnection: number;
  storageDir: string;
  /** STORAGE_URL=s3://…: outputs and uploads on an S3-compatible bucket; null: local files under storageDir */
  storageS3: S3StorageConfig | null;
  /** largest upload per media type (UPLOAD_MAX_BYTES_IMAGE, _VIDEO, _AUDIO) */
  uploadLimits: UploadLimits;
  /** how long an upload address accepts its PUT */
  uploadUrlTtlSeconds: number;
  specDir: string;
  /** MODELS_DIR: operator model files on top of the shipped catalog, in order (docs/operating/model-files.md) */
  modelsDirs: string[];
  signupCredit: number;
  workerConcurrency: number;
  maxBodyBytes: number;
  /** a request body must arrive in full within this long after its headers, else 408 */
  payloadTimeoutMs: number;
  sessionTtlSeconds: number;
  dispatchGraceMs: number;
  /** DISPATCH_MARK_DELAY_MS: a confirmed publish's wait before it is marked pending */
  dispatchMarkDelayMs: number;
  pendingRepublishAfterMs: number;
  shutdownGraceMs: number;
  /** waits before the 1st, 2nd and 3rd retry of a prediction whose upstream failed retryably */
  retryDelaysMs: number[];
  logLevel: string;
  /** 32-byte key sealing secrets the gateway must read back (webhook signing secrets) */
  encryptionKey: Buffer | undefined;
  webhookTimeoutMs: number;
  webhookBackoffMs: number;
  webhookMaxRetryAfterMs: number;
  /** development and tests only: permits http:// and loopback/private webhook targets */
  webhookAllowInsecure: boolean;
  upstreams: Map<string, UpstreamConfig>;
  /** waits between polls of an upstream job: the n-th poll waits the n-th entry, then the last (one delay queue each) */
  upstreamPollDelaysMs: number[];
  /** an upstream job not finished this long after its submit is cancelled at the provider and failed */
  upstreamMaxWaitMs: number;
  /** development and tests only: upstream output URLs may point at loopback/private addresses */
  upstreamAllowPrivateOutputs: boolean;
  /** provider callbacks (README "Providers"): UPSTREAM_CALLBACKS, REPLICATE_WEBHOOK_SECRET, FAL_WEBHOOK_JWKS_URL, WAVESPEED_WEBHOOK_SECRET */
  upstreamCallbacks: CallbackConfig;
  /** the per-provider circuit breaker of each worker process (workers/circuit-breaker.ts) */
  upstreamBreaker: { failures: number; windowMs: number; cooldownMs: number };
  mail: MailConfig;
  /** null when GOOGLE_CLIENT_ID is unset: the Google sign-in routes answer 503 */
  google: GoogleConfig | null;
  /** the payment processor (README "Payments (Stripe)"); unset keys: its routes answer 503 naming the variable */
  stripe: StripeConfig;
  /** attempt budgets of the login, one-time-code and reset routes */
  authRateLimit: AuthRateLimitConfig;
  /** model submits per key and per account (README "Rate limits on generation"); 0 = no limit */
  generateRateLimit: GenerateRateLimitConfig;
  /** peers (IPs or CIDR ranges) whose X-Forwarded-For is believed when finding a client's address */
  trustedProxies: string[];
  /** Bearer token /metrics asks for (undefined: /metrics on the API port refuses everyone) */
  metricsToken: string | undefined;
  /** worker processes: the port of their /livez, /readyz and /metrics (undefined: no such listener) */
  workerHealthPort: number | undefined;
  workerHealthHost: string;
  /** browser origins allowed to call the API (CORS); [] = same-origin only, ['*'] = any */
  corsOrigins: string[];
  /** open: anyone may create an account; closed: only an address holding a pending team invite */
  registration: 'open' | 'closed';
  retention: RetentionConfig;
  /** README "Deleting an account": how long a requested deletion waits, in ms */
  accountDeletionGraceMs: number;
  /** README "Subscriptions": the plans (SUBSCRIPTION_PLANS) and the renewal job's period (null: off) */
  subscriptions: { plans: SubscriptionPlans; intervalMs: number | null };
}

/** README "Retention": lifetimes in days, null = kept forever; the job's period in ms, null = never runs. */
export interface RetentionConfig {
  intervalMs: number | null;
  outputDays: number | null;
  webhookAttemptDays: number | null;
  /** uploads never registered in a media library (their files and rows) */
  uploadDays: number | null;
  /** how long expired or used sessions, tokens, codes, links and invites are kept after that */
  expiredGraceDays: number;
}

export interface MailConfig {
  /** smtp(s)://... or undefined: mail is written to the log instead */
  smtpUrl: string | undefined;
  from: string;
}

export interface StripeConfig {
  /** STRIPE_SECRET_KEY (sk_… or a restricted rk_…): charges, refunds, the refunds of a charge */
  secretKey: string | undefined;
  /** STRIPE_WEBHOOK_SECRET (whsec_…): verifies the webhook ingress */
  webhookSecret: string | undefined;
  /** the one currency purchases are converted at (lowercase ISO 4217) */
  currency: string;
  /** credits one unit of that currency buys (1000: 1000 credits = 1 USD) */
  creditsPerUnit: number;
}

export interface GoogleConfig {
  clientId: string;
  clientSecret: string;
  issuer: string;
  redirectUrl: string;
}

export interface GenerateRateLimitConfig {
  /** submits per minute per API key (a key's own `rate_limit_per_minute` replaces it) */
  perKeyPerMinute: number;
  /** submits per minute per account (the owner: a user, or a team) */
  perAccountPerMinute: number;
  /** non-terminal predictions per API key (a key's own `max_concurrent` replaces it) */
  concurrentPerKey: number;
  /** non-terminal predictions per account */
  concurrentPerAccount: number;
}

export interface AuthRateLimitConfig {
  windowSeconds: number;
  /** failures per (email, client address) per route group */
  perEmail: number;
  /** failures per client address per route group */
  perAddress: number;
  /** code mails (request-otp, forgot-password) per email address */
  mailsPerEmail: number;
  /** registrations per client address per hour */
  registerPerAddress: number;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const schema = Joi.object({
  ROLE: Joi.string().valid('api', 'worker', 'all', 'migrate').default('all'),
  PORT: Joi.number().integer().min(0).max(65535).default(8080),
  HOST: Joi.string().default('0.0.0.0'),
  PUBLIC_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
  DATABASE_URL: Joi.string().uri({ scheme: ['mysql', 'mariadb'] }).custom((value: string) => { mysqlAddress(value); return value; }),
  AMQP_URL: Joi.string().uri({ scheme: ['amqp', 'amqps'] }),
  DB_POOL_MAX: Joi.number().integer().min(1).max(500).default(20),
  DB_PREPARED_PER_CONNECTION: Joi.number().integer().min(0).max(10_000).default(64),
  AMQP_PREFIX: Joi.string().pattern(/^[a-z][a-z0-9_-]{0,40}$/).default('mediagate'),
  CREDENTIAL_CACHE: Joi.boolean().truthy('1', 'on').falsy('0', 'off').default(true),
  CREDENTIAL_CACHE_LEASE_MS: Joi.number().integer().min(500).max(60_000).default(5000),
  DATA_DIR: Joi.string().default('./data'),
  STORAGE_DIR: Joi.string(),
  STORAGE_URL: Joi.string().custom((value: string) => { parseStorageUrl(value); return value; }),
  STORAGE_S3_ACCESS_KEY_ID: Joi.string(),
  STORAGE_S3_SECRET_ACCESS_KEY: Joi.string(),
  UPLOAD_MAX_BYTES_IMAGE: Joi.number().integer().min(1).max(5 * 1024 ** 3).default(DEFAULT_UPLOAD_LIMITS.image),
  UPLOAD_MAX_BYTES_VIDEO: Joi.number().integer().min(1).max(5 * 1024 ** 3).default(DEFAULT_UPLOAD_LIMITS.video),
  UPLOAD_MAX_BYTES_AUDIO: Joi.number().integer().min(1).max(5 * 1024 ** 3).default(DEFAULT_UPLOAD_LIMITS.audio),
  UPLOAD_URL_TTL_SECONDS: Joi.number().integer().min(60).max(7 * 24 * 3600).default(900),
  SPEC_DIR: Joi.string(),
  // one directory or a comma-separated list; each must exist
  MODELS_DIR: Joi.string().custom((value: string) => {
    for (const dir of value.split(',').map((d) => d.trim()).filter((d) => d !== '')) {
      if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`${dir} is not a directory`);
    }
    return value;
  }),
  SIGNUP_CREDIT: Joi.number().integer().min(0).max(1e12).default(0),
  WORKER_CONCURRENCY: Joi.number().integer().min(1).max(1000).default(8),
  MAX_BODY_BYTES: Joi.number().integer().min(1024).max(100 * 1024 * 1024).default(1024 * 1024),
  // below the 30 s server timeout, which would otherwise answer 503 first
  PAYLOAD_TIMEOUT_MS: Joi.number().integer().min(100).max(25_000).default(10_000),
  SESSION_TTL_SECONDS: Joi.number().integer().min(60).max(365 * 24 * 3600).default(7 * 24 * 3600),
  DISPATCH_GRACE_MS: Joi.number().integer().min(100).max(3_600_000).default(15_000),
  // how long a confirmed publish waits before it is marked pending (workers/dispatch.ts): a worker
  // that claims the row meanwhile spares the marker's write; used up to half DISPATCH_GRACE_MS
  DISPATCH_MARK_DELAY_MS: Joi.number().integer().min(0).max(60_000).default(2_000),
  PENDING_REPUBLISH_AFTER_MS: Joi.number().integer().min(1000).max(7 * 24 * 3_600_000).default(600_000),
  SHUTDOWN_GRACE_MS: Joi.number().integer().min(0).max(3_600_000).default(25_000),
  RETRY_DELAYS_MS: Joi.string().pattern(/^\d{1,9}(,\d{1,9}){0,9}$/).default('2000,10000,30000'),
  UPSTREAM_POLL_DELAYS_MS: Joi.string().pattern(/^\d{1,9}(,\d{1,9}){0,9}$/).default('1000,2000,4000,8000,15000,30000'),
  UPSTREAM_MAX_WAIT_MS: Joi.number().integer().min(1000).max(7 * 24 * 3_600_000).default(3_600_000),
  UPSTREAM_BREAKER_FAILURES: Joi.number().integer().min(1).max(1000).default(5),
  UPSTREAM_BREAKER_WINDOW_MS: Joi.number().integer().min(100).max(3_600_000).default(60_000),
  UPSTREAM_BREAKER_COOLDOWN_MS: Joi.number().integer().min(100).max(3_600_000).default(30_000),
  ENCRYPTION_KEY: Joi.string().pattern(/^([0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)$/).messages({ 'string.pattern.base': 'must be 32 bytes as 64 hex characters or base64' }),
  WEBHOOK_TIMEOUT_MS: Joi.number().integer().min(100).max(120_000).default(15_000),
  WEBHOOK_BACKOFF_MS: Joi.number().integer().min(10).max(3_600_000).default(10_000),
  WEBHOOK_MAX_RETRY_AFTER_MS: Joi.number().integer().min(1000).max(86_400_000).default(3_600_000),
  WEBHOOK_ALLOW_INSECURE: Joi.boolean().truthy('1').falsy('0').default(false),
  UPSTREAM_ALLOW_PRIVATE_OUTPUTS: Joi.boolean().truthy('1').falsy('0').default(false),
  // provider callbacks: the token in the address is derived from ENCRYPTION_KEY, sent to PUBLIC_URL
  UPSTREAM_CALLBACKS: Joi.boolean().truthy('1').falsy('0').default(false),
  REPLICATE_WEBHOOK_SECRET: Joi.string().pattern(/^whsec_[A-Za-z0-9+/=]{16,}$/).messages({ 'string.pattern.base': 'must be the whsec_... signing secret Replicate shows (GET /v1/webhooks/default/secret)' }),
  FAL_WEBHOOK_JWKS_URL: Joi.string().uri({ scheme: ['http', 'https'] }).default('https://rest.fal.ai/.well-known/jwks.json'),
  WAVESPEED_WEBHOOK_SECRET: Joi.string().pattern(/^whsec_[A-Za-z0-9+/=_-]{16,}$/).messages({ 'string.pattern.base': 'must be the whsec_... webhook secret WaveSpeed returns (GET /api/v3/webhook/secret)' }),
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
  SMTP_URL: Joi.string().uri({ scheme: ['smtp', 'smtps'] }),
  MAIL_FROM: Joi.string().max(320),
  GOOGLE_CLIENT_ID: Joi.string().max(512),
  GOOGLE_CLIENT_SECRET: Joi.string().max(512).when('GOOGLE_CLIENT_ID', { is: Joi.exist(), then: Joi.required() }),
  STRIPE_SECRET_KEY: Joi.string().pattern(/^(sk|rk)_(test|live)_[A-Za-z0-9_]{8,}$/).messages({ 'string.pattern.base': 'must be a Stripe secret key (sk_live_…, sk_test_…, or a restricted rk_…)' }),
  STRIPE_WEBHOOK_SECRET: Joi.string().pattern(/^whsec_[A-Za-z0-9+/=_]{8,}$/).messages({ 'string.pattern.base': 'must be the whsec_… signing secret of the webhook endpoint (Stripe dashboard, Developers, Webhooks)' }),
  STRIPE_CURRENCY: Joi.string().lowercase().pattern(/^[a-z]{3}$/).default('usd').messages({ 'string.pattern.base': 'must be a three-letter ISO 4217 currency code, e.g. usd' }),
  STRIPE_CREDITS_PER_UNIT: Joi.number().integer().min(1).max(1_000_000_000).default(1000),
  GOOGLE_ISSUER: Joi.string().uri({ scheme: ['http', 'https'] }).default('https://accounts.google.com'),
  GOOGLE_REDIRECT_URL: Joi.string().uri({ scheme: ['http', 'https'] }),
  AUTH_RATE_WINDOW_SECONDS: Joi.number().integer().min(1).max(24 * 3600).default(900),
  AUTH_RATE_PER_EMAIL: Joi.number().integer().min(1).max(1_000_000).default(10),
  AUTH_RATE_PER_ADDRESS: Joi.number().integer().min(1).max(1_000_000).default(50),
  AUTH_RATE_MAILS_PER_EMAIL: Joi.number().integer().min(1).max(1_000_000).default(10),
  REGISTER_RATE_PER_ADDRESS: Joi.number().integer().min(1).max(1_000_000).default(10),
  // generation limits; 0 turns one off
  GENERATE_RATE_PER_KEY: Joi.number().integer().min(0).max(1_000_000).default(60),
  GENERATE_RATE_PER_ACCOUNT: Joi.number().integer().min(0).max(1_000_000).default(120),
  GENERATE_CONCURRENT_PER_KEY: Joi.number().integer().min(0).max(1_000_000).default(10),
  GENERATE_CONCURRENT_PER_ACCOUNT: Joi.number().integer().min(0).max(1_000_000).default(20),
  // a shared secret of the scraper; short ones are guessable
  METRICS_TOKEN: Joi.string().min(16).max(512).pattern(/^[\x21-\x7e]+$/).messages({ 'string.pattern.base': 'must be printable ASCII without spaces' }),
  WORKER_HEALTH_PORT: Joi.number().integer().min(0).max(65535),
  WORKER_HEALTH_HOST: Joi.string().default('0.0.0.0'),
  TRUSTED_PROXIES: Joi.string().custom((value: string) => {
    for (const entry of value.split(',').map((e) => e.trim())) {
      if (!isAddressOrRange(entry)) throw new Error(`"${entry}" is not an IP address or CIDR range`);
    }
    return value;
  }),
  REGISTRATION: Joi.string().valid('open', 'closed').default('open'),
  CORS_ORIGINS: Joi.string().custom((value: string) => { corsOrigins(value); return value; }),
  // README "Retention": a number of days, or 0 / off = kept forever
  OUTPUT_RETENTION_DAYS: days().default(30),
  WEBHOOK_ATTEMPT_RETENTION_DAYS: days().default(30),
  UPLOAD_RETENTION_DAYS: days().default(30),
  EXPIRED_RECORD_GRACE_DAYS: Joi.number().integer().min(0).max(3650).default(1),
  ACCOUNT_DELETION_GRACE_DAYS: Joi.number().integer().min(0).max(365).default(14),
  RETENTION_INTERVAL_SECONDS: Joi.alternatives(Joi.number().integer().min(10).max(7 * 24 * 3600), Joi.string().valid('off'))
    .default(3600).messages({ 'alternatives.match': 'must be a number of seconds (10-604800) or "off"' }),
  // README "Subscriptions": a JSON object of plans, or the path of a file holding one
  SUBSCRIPTION_PLANS: Joi.string().custom((value: string) => { subscriptionPlans(value); return value; }),
  SUBSCRIPTION_INTERVAL_SECONDS: Joi.alternatives(Joi.number().integer().min(10).max(24 * 3600), Joi.string().valid('off'))
    .default(300).messages({ 'alternatives.match': 'must be a number of seconds (10-86400) or "off"' }),
})
  .pattern(/^UPSTREAM_[A-Z0-9_]+_URL$/, Joi.string().uri({ scheme: ['http', 'https'] }))
  .pattern(/^UPSTREAM_[A-Z0-9_]+_KEY$/, Joi.string().min(1))
  .unknown(true);

/** A lifetime in days: a whole number (0 = forever) or `off` (forever). */
function days() {
  return Joi.alternatives(Joi.number().integer().min(0).max(36_500), Joi.string().valid('off'))
    .messages({ 'alternatives.match': 'must be a number of days (0-36500) or "off" (0 and off keep forever)' });
}

/** SUBSCRIPTION_PLANS: inline JSON (starts with `{`), else the path of a JSON file. */
function subscriptionPlans(value: string | undefined): SubscriptionPlans {
  if (value === undefined) return parsePlans(DEFAULT_SUBSCRIPTION_PLANS);
  let text = value.trim();
  if (!text.startsWith('{')) {
    try {
      text = fs.readFileSync(text, 'utf8');
    } catch (err) {
      throw new Error(`cannot read the plans file ${value}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`is not valid JSON: ${(err as Error).message}`);
  }
  return parsePlans(raw);
}

const lifetime = (v: unknown): number | null => (v === 'off' || v === 0 ? null : (v as number));

/**
 * CORS_ORIGINS: `*` alone, or origins as a browser sends them (`scheme://host[:port]`, no path or
 * trailing slash; `*` may stand for part of the host, e.g. `https://*.example.com`).
 */
function corsOrigins(value: string): string[] {
  const entries = value.split(',').map((e) => e.trim()).filter((e) => e !== '');
  if (entries.includes('*')) {
    if (entries.length > 1) throw new Error('"*" allows every origin and cannot be combined with other entries');
    return ['*'];
  }
  for (const entry of entries) {
    if (!/^https?:\/\/[a-z0-9*.-]+(:\d{1,5})?$/i.test(entry)) throw new Error(`"${entry}" is not an origin such as https://app.example.com (scheme, host and optional port; no path)`);
  }
  return entries;
}

/**
 * Public providers whose base URL is known: setting UPSTREAM_<NAME>_KEY alone configures them
 * (README "Providers"). Self-hosted OpenAI-compatible servers set their own name and URL.
 */
export const PROVIDER_DEFAULT_URLS: Readonly<Record<string, string>> = {
  openai: 'https://api.openai.com/v1',
  replicate: 'https://api.replicate.com/v1',
  fal: 'https://queue.fal.run',
  wavespeed: 'https://api.wavespeed.ai/api/v3',
};

const repoRoot = path.dirname(new URL(import.meta.url).pathname);

function parseKey(raw: string): Buffer {
  return /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
}

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
  // A public provider is configured by its key alone; its URL may still be set (a proxy, a mirror).
  for (const [name, url] of Object.entries(PROVIDER_DEFAULT_URLS)) {
    const apiKey = present[`UPSTREAM_${name.toUpperCase()}_KEY`];
    if (!upstreams.has(name) && apiKey) upstreams.set(name, { url, key: apiKey });
  }

  const callbacksOn = (v.UPSTREAM_CALLBACKS as unknown) === true;
  if (callbacksOn && (v.PUBLIC_URL === undefined || v.ENCRYPTION_KEY === undefined)) {
    throw new ConfigError('invalid configuration: UPSTREAM_CALLBACKS: needs PUBLIC_URL (the address providers call) and ENCRYPTION_KEY (the callback tokens are derived from it)');
  }

  return {
    role: v.ROLE as Role,
    port,
    host: String(v.HOST),
    publicUrl,
    databaseUrl: v.DATABASE_URL as string | undefined,
    amqpUrl: v.AMQP_URL as string | undefined,
    amqpPrefix: String(v.AMQP_PREFIX),
    credentialCache: (v.CREDENTIAL_CACHE as unknown) === true,
    credentialCacheLeaseMs: v.CREDENTIAL_CACHE_LEASE_MS as number,
    dataDir,
    sqliteFile: path.join(dataDir, 'mediagate.sqlite'),
    dbPoolMax: v.DB_POOL_MAX as number,
    dbPreparedPerConnection: v.DB_PREPARED_PER_CONNECTION as number,
    storageDir: path.resolve(String(v.STORAGE_DIR ?? path.join(dataDir, 'files'))),
    storageS3: v.STORAGE_URL === undefined ? null : {
      ...parseStorageUrl(String(v.STORAGE_URL)),
      accessKeyId: v.STORAGE_S3_ACCESS_KEY_ID as string | undefined,
      secretAccessKey: v.STORAGE_S3_SECRET_ACCESS_KEY as string | undefined,
    },
    uploadLimits: { image: v.UPLOAD_MAX_BYTES_IMAGE as number, video: v.UPLOAD_MAX_BYTES_VIDEO as number, audio: v.UPLOAD_MAX_BYTES_AUDIO as number },
    uploadUrlTtlSeconds: v.UPLOAD_URL_TTL_SECONDS as number,
    specDir: path.resolve(String(v.SPEC_DIR ?? path.join(repoRoot, 'spec', 'v1'))),
    modelsDirs: v.MODELS_DIR === undefined ? [] : String(v.MODELS_DIR).split(',').map((d) => d.trim()).filter((d) => d !== '').map((d) => path.resolve(d)),
    signupCredit: v.SIGNUP_CREDIT as number,
    workerConcurrency: v.WORKER_CONCURRENCY as number,
    maxBodyBytes: v.MAX_BODY_BYTES as number,
    payloadTimeoutMs: v.PAYLOAD_TIMEOUT_MS as number,
    sessionTtlSeconds: v.SESSION_TTL_SECONDS as number,
    dispatchGraceMs: v.DISPATCH_GRACE_MS as number,
    dispatchMarkDelayMs: v.DISPATCH_MARK_DELAY_MS as number,
    pendingRepublishAfterMs: v.PENDING_REPUBLISH_AFTER_MS as number,
    shutdownGraceMs: v.SHUTDOWN_GRACE_MS as number,
    retryDelaysMs: String(v.RETRY_DELAYS_MS).split(',').map(Number),
    logLevel: String(v.LOG_LEVEL),
    encryptionKey: v.ENCRYPTION_KEY === undefined ? undefined : parseKey(String(v.ENCRYPTION_KEY)),
    webhookTimeoutMs: v.WEBHOOK_TIMEOUT_MS as number,
    webhookBackoffMs: v.WEBHOOK_BACKOFF_MS as number,
    webhookMaxRetryAfterMs: v.WEBHOOK_MAX_RETRY_AFTER_MS as number,
    webhookAllowInsecure: (v.WEBHOOK_ALLOW_INSECURE as unknown) === true,
    upstreamAllowPrivateOutputs: (v.UPSTREAM_ALLOW_PRIVATE_OUTPUTS as unknown) === true,
    upstreams,
    upstreamPollDelaysMs: String(v.UPSTREAM_POLL_DELAYS_MS).split(',').map(Number).filter((d) => d > 0),
    upstreamMaxWaitMs: v.UPSTREAM_MAX_WAIT_MS as number,
    upstreamCallbacks: {
      enabled: callbacksOn,
      publicUrl,
      key: v.ENCRYPTION_KEY === undefined ? undefined : parseKey(String(v.ENCRYPTION_KEY)),
      replicateSecret: v.REPLICATE_WEBHOOK_SECRET as string | undefined,
      falJwksUrl: String(v.FAL_WEBHOOK_JWKS_URL),
      ...(v.WAVESPEED_WEBHOOK_SECRET !== undefined ? { wavespeedSecret: String(v.WAVESPEED_WEBHOOK_SECRET) } : {}),
    },
    upstreamBreaker: { failures: v.UPSTREAM_BREAKER_FAILURES as number, windowMs: v.UPSTREAM_BREAKER_WINDOW_MS as number, cooldownMs: v.UPSTREAM_BREAKER_COOLDOWN_MS as number },
    mail: {
      smtpUrl: v.SMTP_URL as string | undefined,
      from: String(v.MAIL_FROM ?? `mediagate <no-reply@${new URL(publicUrl).hostname}>`),
    },
    google: v.GOOGLE_CLIENT_ID === undefined ? null : {
      clientId: String(v.GOOGLE_CLIENT_ID),
      clientSecret: String(v.GOOGLE_CLIENT_SECRET),
      issuer: String(v.GOOGLE_ISSUER),
      redirectUrl: String(v.GOOGLE_REDIRECT_URL ?? `${publicUrl}/auth/google_callback`),
    },
    stripe: {
      secretKey: v.STRIPE_SECRET_KEY as string | undefined,
      webhookSecret: v.STRIPE_WEBHOOK_SECRET as string | undefined,
      currency: String(v.STRIPE_CURRENCY),
      creditsPerUnit: v.STRIPE_CREDITS_PER_UNIT as number,
    },
    authRateLimit: {
      windowSeconds: v.AUTH_RATE_WINDOW_SECONDS as number,
      perEmail: v.AUTH_RATE_PER_EMAIL as number,
      perAddress: v.AUTH_RATE_PER_ADDRESS as number,
      mailsPerEmail: v.AUTH_RATE_MAILS_PER_EMAIL as number,
      registerPerAddress: v.REGISTER_RATE_PER_ADDRESS as number,
    },
    generateRateLimit: {
      perKeyPerMinute: v.GENERATE_RATE_PER_KEY as number,
      perAccountPerMinute: v.GENERATE_RATE_PER_ACCOUNT as number,
      concurrentPerKey: v.GENERATE_CONCURRENT_PER_KEY as number,
      concurrentPerAccount: v.GENERATE_CONCURRENT_PER_ACCOUNT as number,
    },
    trustedProxies: v.TRUSTED_PROXIES === undefined ? [] : String(v.TRUSTED_PROXIES).split(',').map((e) => e.trim()),
    metricsToken: v.METRICS_TOKEN as string | undefined,
    workerHealthPort: v.WORKER_HEALTH_PORT as number | undefined,
    workerHealthHost: String(v.WORKER_HEALTH_HOST),
    corsOrigins: v.CORS_ORIGINS === undefined ? [] : corsOrigins(String(v.CORS_ORIGINS)),
    retention: {
      intervalMs: v.RETENTION_INTERVAL_SECONDS === 'off' ? null : (v.RETENTION_INTERVAL_SECONDS as number) * 1000,
      outputDays: lifetime(v.OUTPUT_RETENTION_DAYS),
      webhookAttemptDays: lifetime(v.WEBHOOK_ATTEMPT_RETENTION_DAYS),
      uploadDays: lifetime(v.UPLOAD_RETENTION_DAYS),
      expiredGraceDays: v.EXPIRED_RECORD_GRACE_DAYS as number,
    },
    registration: v.REGISTRATION as 'open' | 'closed',
    accountDeletionGraceMs: (v.ACCOUNT_DELETION_GRACE_DAYS as number) * 86_400_000,
    subscriptions: {
      plans: subscriptionPlans(v.SUBSCRIPTION_PLANS as string | undefined),
      intervalMs: v.SUBSCRIPTION_INTERVAL_SECONDS === 'off' ? null : (v.SUBSCRIPTION_INTERVAL_SECONDS as number) * 1000,
    },
  };
}
