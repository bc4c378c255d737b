// Configuration: read once from the environment and validated. The schema below is also the
// documentation: each variable's `description` (and, where the schema's default does not say it,
// `meta.default`) is rendered into docs/operating/configuration.md by `npm run docs:gen`, and a
// test fails when that page is stale. Bad configuration stops start-up with one line naming the
// variable.
import Joi from 'joi';
import path from 'node:path';
import net from 'node:net';
import { isAddressOrRange } from './lib/addresses.ts';
import type { UpstreamConfig } from './workers/adapters/types.ts';
import { parseStorageUrl } from './lib/storage-s3-url.ts';
import { mysqlAddress } from './db/knex.ts';
import type { S3StorageConfig } from './lib/storage-s3-url.ts';
import { DEFAULT_UPLOAD_LIMITS } from './lib/uploads.ts';
import type { UploadLimits } from './lib/uploads.ts';
import type { CallbackConfig } from './lib/upstream-callbacks.ts';
import { DEFAULT_SUBSCRIPTION_PLANS, parsePlans } from './lib/subscription-plans.ts';
import type { SubscriptionPlans } from './lib/subscription-plans.ts';
import fs from 'node:fs';
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS, parseRetrySchedule } from './workers/webhook-backoff.ts';

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
  /** CREDENTIAL_CACHE: API processes cache API-key lookups (docs/operating/security.md "Credential cache") */
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
  /** RUN_PROGRESS_WRITE_MS: a local run's progress is written at most this often */
  runProgressWriteMs: number;
  /** WEBHOOK_EVENTS_INTERVAL_MS: a prediction's webhook gets at most one progress or logs event this often */
  webhookEventsIntervalMs: number;
  /** ms after the first failed attempt at which each of the three retries is due */
  webhookRetryScheduleMs: number[];
  /** CHAT_UPSTREAM_TIMEOUT_MS: an inline chat call's longest wait for its provider (answer, first or next chunk) */
  chatUpstreamTimeoutMs: number;
  /** IMAGES_WAIT_MS: how long POST /v1/images/generations waits for its prediction */
  imagesWaitMs: number;
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
  /** provider callbacks (docs/operating/providers.md "Providers"): UPSTREAM_CALLBACKS, REPLICATE_WEBHOOK_SECRET, FAL_WEBHOOK_JWKS_URL, WAVESPEED_WEBHOOK_SECRET */
  upstreamCallbacks: CallbackConfig;
  /** the per-provider circuit breaker of each worker process (workers/circuit-breaker.ts) */
  upstreamBreaker: { failures: number; windowMs: number; cooldownMs: number };
  mail: MailConfig;
  /** STAFF_ACCESS_NOTICES: mail an account's verified address when staff sign in as it or make a support link for it */
  staffAccessNotices: boolean;
  /** null when GOOGLE_CLIENT_ID is unset: the Google sign-in routes answer 503 */
  google: GoogleConfig | null;
  /** the payment processor (docs/operating/billing.md "Payments (Stripe)"); unset keys: its routes answer 503 naming the variable */
  stripe: StripeConfig;
  /** CHECKOUT_PRESETS, CHECKOUT_MIN_AMOUNT, CHECKOUT_MAX_AMOUNT: the amounts "Buy credits" offers and accepts */
  checkout: CheckoutConfig;
  /** attempt budgets of the login, one-time-code and reset routes */
  authRateLimit: AuthRateLimitConfig;
  /** model submits per key and per account (docs/api/rate-limits.md "Rate limits on generation"); 0 = no limit */
  generateRateLimit: GenerateRateLimitConfig;
  /** peers (IPs or CIDR ranges) whose X-Forwarded-For is believed when finding a client's address */
  trustedProxies: string[];
  /** STUDIO_DNS_SERVERS: resolvers for studio domain checks (lib/domain-verification.ts); empty: the machine's */
  studioDnsServers: string[];
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
  /** docs/api/credentials.md "Deleting an account": how long a requested deletion waits, in ms */
  accountDeletionGraceMs: number;
  /** scrypt's N for new password hashes: 2 ** PASSWORD_HASH_COST (lib/secrets.ts) */
  passwordScryptN: number;
  /** docs/operating/billing.md "Subscriptions": the plans (SUBSCRIPTION_PLANS) and the renewal job's period (null: off) */
  subscriptions: { plans: SubscriptionPlans; intervalMs: number | null };
}

/** docs/operating/retention.md "Retention": lifetimes in days, null = kept forever; the job's period in ms, null = never runs. */
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
  /** smtp(s)://... or undefined: mail is written to the log (toLog) or dropped */
  smtpUrl: string | undefined;
  from: string;
  /** MAIL_TO_LOG: without smtpUrl, each mail, code included, is written to the log; otherwise it is dropped with a warning that leaves its text out */
  toLog: boolean;
}

export interface StripeConfig {
  /** STRIPE_SECRET_KEY (sk_… or a restricted rk_…): charges, refunds, the refunds of a charge, an erased account's subscriptions */
  secretKey: string | undefined;
  /** STRIPE_WEBHOOK_SECRET (whsec_…): verifies the webhook ingress */
  webhookSecret: string | undefined;
  /** the one currency purchases are converted at (lowercase ISO 4217) */
  currency: string;
  /** credits one unit of that currency buys (1000: 1000 credits = 1 USD) */
  creditsPerUnit: number;
}

/** "Buy credits" in the dashboard (createCheckoutSession): amounts in the currency's minor unit */
export interface CheckoutConfig {
  presets: number[];
  minAmount: number;
  maxAmount: number;
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

/** STUDIO_DNS_SERVERS's entries: IP addresses with an optional port (`1.1.1.1`, `127.0.0.1:5353`, `[::1]:53`). */
function dnsServers(value: string): string[] {
  const entries = value.split(',').map((e) => e.trim()).filter((e) => e !== '');
  for (const e of entries) {
    const m = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(e) ?? /^([^:]+)(?::(\d{1,5}))?$/.exec(e) ?? [e, e, undefined];
    const port = m[2] === undefined ? 53 : Number(m[2]);
    if (net.isIP(m[1]!) === 0 || port < 1 || port > 65535) throw new Error(`"${e}" is not an IP address with an optional port`);
  }
  return entries;
}

export const configSchema = Joi.object({
  ROLE: Joi.string().valid('api', 'worker', 'all', 'migrate').default('all')
    .description('`api`, `worker`, `all` (both in one process), or `migrate` (apply the database migrations and exit; see [Upgrading](upgrading.md)). `api` and `worker` need `AMQP_URL`'),
  PORT: Joi.number().integer().min(0).max(65535).default(8080)
    .description('HTTP port'),
  HOST: Joi.string().default('0.0.0.0')
    .description('HTTP bind address'),
  PUBLIC_URL: Joi.string().uri({ scheme: ['http', 'https'] })
    .meta({ default: '`http://localhost:$PORT`' })
    .description('absolute base of every URL the gateway hands out (output files, `urls.get`); also the OAuth issuer and protected-resource identifier. With `https`, every answer carries `Strict-Transport-Security` (see [Security model](security.md#https-hsts)). No user name or password in it (start-up refuses one)'),
  DATABASE_URL: Joi.string().uri({ scheme: ['mysql', 'mariadb'] }).custom((value: string) => { mysqlAddress(value); return value; })
    .meta({ default: 'unset: SQLite file `$DATA_DIR/mediagate.sqlite`' })
    .description('`mysql://user:pass@host:port/db` selects MariaDB/MySQL. With the database on the same machine, `mysql://user:pass@localhost/db?socketPath=/run/mysqld/mysqld.sock` connects over the server\'s unix socket instead of TCP (host and port are then ignored; the path is the server\'s `@@socket`; no other query parameter is accepted): less CPU per round trip on both sides (see [Running in production](production.md))'),
  AMQP_URL: Joi.string().uri({ scheme: ['amqp', 'amqps'] })
    .meta({ default: 'unset: in-process queue' })
    .description('`amqp://user:pass@host:port/vhost` selects RabbitMQ'),
  DB_POOL_MAX: Joi.number().integer().min(1).max(500).default(20)
    .description('MariaDB/MySQL connections per process (SQLite always uses one)'),
  DB_PREPARED_PER_CONNECTION: Joi.number().integer().min(0).max(10_000).default(64)
    .description('MariaDB/MySQL: the prepared statements each connection keeps, least recently used closed first; `0`: every statement as text (see [Prepared statements](production.md#processes))'),
  AMQP_PREFIX: Joi.string().pattern(/^[a-z][a-z0-9_-]{0,40}$/).default('mediagate')
    .messages({ 'string.pattern.base': 'must be 1-41 lowercase letters, digits, _ and -, starting with a letter (e.g. mediagate-staging)' })
    .description('prefix of every exchange and queue name (1-41 lowercase letters, digits, `_` and `-`, starting with a letter), so that several deployments can share one broker (see [RabbitMQ topology](production.md#rabbitmq-topology))'),
  CREDENTIAL_CACHE: onOff().default(true)
    .description('`on`/`off`: API processes cache API-key lookups (see [Credential cache](security.md#credential-cache)). On only with RabbitMQ (invalidated across processes) or the embedded default (one process); MariaDB without `AMQP_URL` never caches'),
  CREDENTIAL_CACHE_LEASE_MS: Joi.number().integer().min(500).max(60_000).default(5000)
    .description('how long an API process may serve keys from its cache without renewing its lease (500-60000); an invalidation waits at most about this long (twice, for a process that holds a lease but does not answer)'),
  DATA_DIR: Joi.string().default('./data')
    .description('where the SQLite file and (by default) the output files live'),
  STORAGE_DIR: Joi.string()
    .meta({ default: '`$DATA_DIR/files`' })
    .description('where output files and uploads are stored; served under `/files/`. With `STORAGE_URL` it holds only temporary downloads'),
  STORAGE_URL: Joi.string().custom((value: string) => { parseStorageUrl(value); return value; })
    .meta({ default: 'unset: local files under `STORAGE_DIR`' })
    .description('`s3://bucket[/prefix]?endpoint=https://host[:port]&region=us-east-1&force_path_style=true`: outputs and uploads on an S3-compatible bucket (see [Storage and uploads](../api/uploads.md#storage-and-uploads)). `endpoint` unset: AWS S3; `force_path_style` defaults to true with an `endpoint`, false without. Neither address carries credentials (start-up refuses them: the bucket\'s go in the two settings below)'),
  STORAGE_S3_ACCESS_KEY_ID: Joi.string()
    .meta({ default: 'unset: the AWS SDK\'s default chain (environment, profile, instance role)' })
    .description('the bucket\'s credentials (never in `STORAGE_URL`, which refuses them)'),
  STORAGE_S3_SECRET_ACCESS_KEY: Joi.string()
    .meta({ default: 'unset: the AWS SDK\'s default chain (environment, profile, instance role)' })
    .description('the bucket\'s credentials (never in `STORAGE_URL`, which refuses them)'),
  UPLOAD_MAX_BYTES_IMAGE: Joi.number().integer().min(1).max(5 * 1024 ** 3).default(DEFAULT_UPLOAD_LIMITS.image)
    .meta({ default: '`20971520` (20 MiB)' })
    .description('largest image upload'),
  UPLOAD_MAX_BYTES_VIDEO: Joi.number().integer().min(1).max(5 * 1024 ** 3).default(DEFAULT_UPLOAD_LIMITS.video)
    .meta({ default: '`524288000` (500 MiB)' })
    .description('largest video upload'),
  UPLOAD_MAX_BYTES_AUDIO: Joi.number().integer().min(1).max(5 * 1024 ** 3).default(DEFAULT_UPLOAD_LIMITS.audio)
    .meta({ default: '`104857600` (100 MiB)' })
    .description('largest audio upload'),
  UPLOAD_URL_TTL_SECONDS: Joi.number().integer().min(60).max(7 * 24 * 3600).default(900)
    .description('how long an upload address accepts its PUT (60-604800)'),
  SPEC_DIR: Joi.string()
    .meta({ default: '`spec/v1`' })
    .description('the spec to serve (operators can point this at a copy with extra models)'),
  MODELS_DIR: Joi.string().custom((value: string) => {
    // one directory or a comma-separated list; each must exist
    for (const dir of value.split(',').map((d) => d.trim()).filter((d) => d !== '')) {
      if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new Error(`${dir} is not a directory`);
    }
    return value;
  })
    .meta({ default: 'unset: the shipped catalog alone' })
    .description('one directory or a comma-separated list of operator model files, read in order on top of the shipped catalog: a file may add models or replace a shipped one by its slug (see [Model files](model-files.md))'),
  SIGNUP_CREDIT: Joi.number().integer().min(0).max(1e12).default(0)
    .description('credits given to an account when its email is first verified (a one-time code, or Google with a verified email), once per account (1000 credits = 1 USD)'),
  WORKER_CONCURRENCY: Joi.number().integer().min(1).max(1000).default(8)
    .description('predictions one worker process runs at once (RabbitMQ prefetch)'),
  MAX_BODY_BYTES: Joi.number().integer().min(1024).max(100 * 1024 * 1024).default(1024 * 1024)
    .description('largest request body; bigger bodies get 413'),
  // below the 30 s server timeout, which would otherwise answer 503 first
  PAYLOAD_TIMEOUT_MS: Joi.number().integer().min(100).max(25_000).default(10_000)
    .description('a request body must arrive in full within this long after its headers (100-25000); a slower one gets 408 and the connection is closed (logged at info, not as an error). An upload to `PUT /uploads/…` may take longer while its body keeps arriving (up to its size at 100 KiB a second, at least 5 minutes): 408 when nothing of it has come for this long'),
  SESSION_TTL_SECONDS: Joi.number().integer().min(60).max(365 * 24 * 3600).default(7 * 24 * 3600)
    .description('lifetime of a login session'),
  DISPATCH_GRACE_MS: Joi.number().integer().min(100).max(3_600_000).default(15_000)
    .description('how long a request may wait for its queue confirm before the sweeper publishes it again'),
  // how long a confirmed publish waits before it is marked pending (workers/dispatch.ts): a worker
  // that claims the row meanwhile spares the marker's write; used up to half DISPATCH_GRACE_MS
  DISPATCH_MARK_DELAY_MS: Joi.number().integer().min(0).max(60_000).default(2_000)
    .description('how long a confirmed request stays `queued` before it is marked `pending` (at most half `DISPATCH_GRACE_MS`; `0`: at once): a worker that claims it meanwhile spares MariaDB the write'),
  PENDING_REPUBLISH_AFTER_MS: Joi.number().integer().min(1000).max(7 * 24 * 3_600_000).default(600_000)
    .meta({ default: '`600000` (10 minutes)' })
    .description('a request confirmed by the queue (`pending`) but unclaimed for this long may have lost its message: the sweeper publishes it again. Keep it above the longest `RETRY_DELAYS_MS` entry and above how long a request may wait in a backlog, or a duplicate is published (harmless, but it restarts the retry count)'),
  SHUTDOWN_GRACE_MS: Joi.number().integer().min(0).max(3_600_000).default(25_000)
    .description('on SIGTERM/SIGINT, how long a worker lets running predictions finish before handing them back to the queue. The process exits by this plus 10 s (plus 10 s more with the API) whatever it still waits for: keep your orchestrator\'s kill timeout above that (Kubernetes: 30 s; see [Running in production](production.md#processes))'),
  RETRY_DELAYS_MS: Joi.string().pattern(/^\d{1,9}(,\d{1,9}){0,9}$/).default('2000,10000,30000')
    .messages({ 'string.pattern.base': 'must be up to ten numbers of milliseconds, comma-separated without spaces (e.g. 2000,10000,30000)' })
    .description('waits before the 1st, 2nd and 3rd retry of a prediction whose upstream failed retryably (one RabbitMQ delay queue each)'),
  UPSTREAM_POLL_DELAYS_MS: Joi.string().pattern(/^\d{1,9}(,\d{1,9}){0,9}$/).default('1000,2000,4000,8000,15000,30000')
    .messages({ 'string.pattern.base': 'must be up to ten numbers of milliseconds, comma-separated without spaces (e.g. 2000,10000,30000)' })
    .description('waits between polls of an upstream job: the n-th poll waits the n-th entry, then the last; a provider\'s longer `Retry-After` wins up to the last entry (one RabbitMQ delay queue each)'),
  UPSTREAM_MAX_WAIT_MS: Joi.number().integer().min(1000).max(7 * 24 * 3_600_000).default(3_600_000)
    .meta({ default: '`3600000` (1 hour)' })
    .description('an upstream job not finished this long after its submit is cancelled at the provider and the prediction fails (not charged)'),
  UPSTREAM_BREAKER_FAILURES: Joi.number().integer().min(1).max(1000).default(5)
    .description('retryable failures in a row that open a provider\'s circuit in a worker ([Providers](providers.md#providers), circuit breaker)'),
  UPSTREAM_BREAKER_WINDOW_MS: Joi.number().integer().min(100).max(3_600_000).default(60_000)
    .description('failures further apart than this do not add up'),
  UPSTREAM_BREAKER_COOLDOWN_MS: Joi.number().integer().min(100).max(3_600_000).default(30_000)
    .description('how long an open circuit is skipped before one trial call'),
  ENCRYPTION_KEY: Joi.string().pattern(/^([0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)$/).messages({ 'string.pattern.base': 'must be 32 bytes as 64 hex characters or base64' })
    .meta({ default: 'embedded default: generated into `$DATA_DIR/encryption.key`' })
    .description('32 bytes (64 hex characters or base64) sealing secrets the gateway must read back (webhook signing secrets). **Required with `DATABASE_URL`**, the same on every process; `openssl rand -hex 32`'),
  CHAT_UPSTREAM_TIMEOUT_MS: Joi.number().integer().min(100).max(600_000).default(120_000)
    .description('an inline call\'s (`POST /v1/chat/completions`) longest wait for its provider: the whole answer, a stream\'s first chunk, or its next one; past it the call fails (504 `upstream_timeout` or an error event), charged nothing. A model with several providers tries the next one after a timeout; the whole call waits at most twice this for its answer or first chunk, so the first two providers get this each and a third only what is left'),
  IMAGES_WAIT_MS: Joi.number().integer().min(100).max(600_000).default(120_000)
    .description('how long `POST /v1/images/generations` waits for its prediction before answering an error that names it, to be polled'),
  WEBHOOK_TIMEOUT_MS: Joi.number().integer().min(100).max(120_000).default(15_000)
    .description('one delivery attempt\'s deadline (connect, headers and body)'),
  RUN_PROGRESS_WRITE_MS: Joi.number().integer().min(0).max(60_000).default(1000)
    .description('a prediction run by a local adapter has its progress and log lines written at most this often (a run shorter than this writes none); `0` writes every update (tests)'),
  WEBHOOK_EVENTS_INTERVAL_MS: Joi.number().integer().min(0).max(3_600_000).default(5000)
    .description('a prediction submitted with `webhook_events_filter` naming `progress` or `logs` sends its webhook at most one of those events this often (the start and the result are never held back); `0` sends one per update (tests)'),
  WEBHOOK_RETRY_SCHEDULE_MS: Joi.string().custom((value: string) => { parseRetrySchedule(value); return value; }).default(DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS.join(','))
    .meta({ default: '`60000,900000,14400000` (1 min, 15 min, 4 h)' })
    .description('when the three retries of a failed webhook delivery go out, in ms after the first failed attempt (three increasing numbers); each wait between two retries varies by ±20%. After the third the delivery is dead'),
  WEBHOOK_BACKOFF_MS: Joi.any().forbidden().messages({ 'any.unknown': 'is replaced by WEBHOOK_RETRY_SCHEDULE_MS (the three retry times after the first failure, e.g. 60000,900000,14400000)' })
    .meta({ default: 'unset' })
    .description('no longer read: start-up refuses it and names `WEBHOOK_RETRY_SCHEDULE_MS`, which replaced it'),
  WEBHOOK_MAX_RETRY_AFTER_MS: Joi.number().integer().min(1000).max(86_400_000).default(3_600_000)
    .description('longest `Retry-After` honoured'),
  WEBHOOK_ALLOW_INSECURE: onOff().default(false)
    .description('development and tests only: permits `http://` and loopback/private webhook URLs'),
  UPSTREAM_ALLOW_PRIVATE_OUTPUTS: onOff().default(false)
    .description('development and tests only: upstream output URLs may point at loopback/private addresses (a local fake upstream). **Never set it in production**: it lets an upstream make the worker fetch internal resources'),
  // provider callbacks: the token in the address is derived from ENCRYPTION_KEY, sent to PUBLIC_URL
  UPSTREAM_CALLBACKS: onOff().default(false)
    .description('ask fal and Replicate to call back when a job changes (see [Providers](providers.md#providers), callbacks); needs `PUBLIC_URL` (reachable by the providers) and `ENCRYPTION_KEY` (start-up refuses it without them). Polling goes on either way'),
  REPLICATE_WEBHOOK_SECRET: Joi.string().pattern(/^whsec_[A-Za-z0-9+/=]{16,}$/).messages({ 'string.pattern.base': 'must be the whsec_... signing secret Replicate shows (GET /v1/webhooks/default/secret)' })
    .meta({ default: 'unset' })
    .description('Replicate\'s webhook signing secret (`whsec_...`, from `GET https://api.replicate.com/v1/webhooks/default/secret`); without it Replicate is never asked to call back'),
  FAL_WEBHOOK_JWKS_URL: Joi.string().uri({ scheme: ['http', 'https'] }).default('https://rest.fal.ai/.well-known/jwks.json')
    .description('where fal publishes the ED25519 keys its callbacks are signed with (kept a day; fetched again when a callback\'s key is unknown). No user name or password in it (start-up refuses one)'),
  WAVESPEED_WEBHOOK_SECRET: Joi.string().pattern(/^whsec_[A-Za-z0-9+/=_-]{16,}$/).messages({ 'string.pattern.base': 'must be the whsec_... webhook secret WaveSpeed returns (GET /api/v3/webhook/secret)' })
    .meta({ default: 'unset' })
    .description('WaveSpeed\'s webhook secret (`whsec_...`, from `GET https://api.wavespeed.ai/api/v3/webhook/secret`); without it WaveSpeed is never asked to call back'),
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info')
    .description('`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`; logs are JSON lines (pino), one per request among them (see [Operations](observability.md))'),
  SMTP_URL: Joi.string().uri({ scheme: ['smtp', 'smtps'] })
    .meta({ default: 'unset: mail is not sent (see `MAIL_TO_LOG`)' })
    .description('`smtp://user:pass@host:587` or `smtps://…:465`: where one-time codes are sent (nodemailer)'),
  MAIL_TO_LOG: onOff()
    .meta({ default: '`on` on the embedded default, `off` with `DATABASE_URL`' })
    .description('without `SMTP_URL`: `on` writes each mail, its code or link included, to the log at `info` under `MAIL NOT SENT`, so that someone trying the gateway on their own machine can read it; `off` drops the mail and logs a warning without its text. A logged code signs in to its account: keep it `off` wherever others can read the logs. Ignored when `SMTP_URL` is set'),
  MAIL_FROM: Joi.string().max(320)
    .meta({ default: '`mediagate <no-reply@<PUBLIC_URL\'s host>>`' })
    .description('sender of those mails'),
  STAFF_ACCESS_NOTICES: onOff().default(true)
    .meta({ default: '`on`' })
    .description('`on` mails an account\'s address, when verified, each time staff open an impersonated session as it (`virtual_login`) or make a support sign-in or password reset link for it: what was done, when, the reason given and the staff role (never who, nor a token or link). `off` sends none; the account\'s owner still sees every such action on the dashboard\'s Account page'),
  GOOGLE_CLIENT_ID: Joi.string().max(512)
    .meta({ default: 'unset: Google sign-in answers 503' })
    .description('OAuth client id of the Google sign-in; also the audience `google/mobile` requires'),
  GOOGLE_CLIENT_SECRET: Joi.string().max(512).when('GOOGLE_CLIENT_ID', { is: Joi.exist(), then: Joi.required() })
    .meta({ default: 'unset' })
    .description('its secret; required with `GOOGLE_CLIENT_ID`'),
  STRIPE_SECRET_KEY: Joi.string().pattern(/^(sk|rk)_(test|live)_[A-Za-z0-9_]{8,}$/).messages({ 'string.pattern.base': 'must be a Stripe secret key (sk_live_…, sk_test_…, or a restricted rk_…)' })
    .meta({ default: 'unset: the Stripe admin routes and the dashboard\'s checkout and billing portal answer 503 naming it' })
    .description('Stripe secret key (`sk_live_…`, or a restricted `rk_…` with read on charges, customers, refunds and invoices, write on refunds, and, to sell in the dashboard, write on Checkout Sessions and the customer portal, and write on subscriptions): lists charges, makes refunds, opens checkouts and the billing portal, cancels the Stripe subscriptions of erased accounts and deleted teams (see [Payments (Stripe)](billing.md#payments-stripe)). Never logged'),
  STRIPE_WEBHOOK_SECRET: Joi.string().pattern(/^whsec_[A-Za-z0-9+/=_]{8,}$/).messages({ 'string.pattern.base': 'must be the whsec_… signing secret of the webhook endpoint (Stripe dashboard, Developers, Webhooks)' })
    .meta({ default: 'unset: the Stripe webhook answers 503 naming it' })
    .description('signing secret (`whsec_…`) of the webhook endpoint `$PUBLIC_URL/api/v1/payment-webhooks/stripe`'),
  STRIPE_CURRENCY: Joi.string().lowercase().pattern(/^[a-z]{3}$/).default('usd').messages({ 'string.pattern.base': 'must be a three-letter ISO 4217 currency code, e.g. usd' })
    .description('the currency purchases are converted to credits at; a checkout in another currency credits only with `metadata.credits`'),
  STRIPE_CREDITS_PER_UNIT: Joi.number().integer().min(1).max(1_000_000_000).default(1000)
    .description('credits one unit of `STRIPE_CURRENCY` buys (1000: 1 USD buys 1,000 credits, the gateway\'s own rate)'),
  CHECKOUT_PRESETS: Joi.string().pattern(/^\d{1,9}(,\d{1,9}){0,9}$/).default('500,2000,5000,10000')
    .messages({ 'string.pattern.base': 'must be up to ten amounts in minor units (cents), comma-separated, e.g. 500,2000,5000' })
    .description('the amounts the dashboard\'s "Buy credits" offers, in the minor unit of `STRIPE_CURRENCY` (cents), comma-separated; each within the two limits below (see [Using the dashboard](../api/dashboard.md#buying-credit))'),
  CHECKOUT_MIN_AMOUNT: Joi.number().integer().min(1).max(100_000_000).default(500)
    .description('the smallest amount "Buy credits" accepts (minor units)'),
  CHECKOUT_MAX_AMOUNT: Joi.number().integer().min(1).max(100_000_000).default(100_000)
    .description('the largest amount "Buy credits" accepts (minor units)'),
  GOOGLE_ISSUER: Joi.string().uri({ scheme: ['http', 'https'] }).default('https://accounts.google.com')
    .description('OpenID issuer whose discovery document, keys and endpoints are used (tests point it at a local provider). No user name or password in it (start-up refuses one)'),
  GOOGLE_REDIRECT_URL: Joi.string().uri({ scheme: ['http', 'https'] })
    .meta({ default: '`$PUBLIC_URL/auth/google_callback`' })
    .description('the redirect URI registered for the client'),
  AUTH_RATE_WINDOW_SECONDS: Joi.number().integer().min(1).max(24 * 3600).default(900)
    .description('window of the login, code, reset, code-mail and Google sign-in start budgets (see [Rate limits](../api/credentials.md#rate-limits))'),
  AUTH_RATE_PER_EMAIL: Joi.number().integer().min(1).max(1_000_000).default(10)
    .description('failed attempts per (email address, client address) per window, for each route group'),
  AUTH_RATE_PER_ADDRESS: Joi.number().integer().min(1).max(1_000_000).default(50)
    .description('failed attempts per client address (IPv6: per /64) per window, for each route group; also code mails and Google sign-in starts per client address'),
  AUTH_RATE_MAILS_PER_EMAIL: Joi.number().integer().min(1).max(1_000_000).default(10)
    .description('code mails (`request-otp`, `forgot-password`) per email address per window'),
  REGISTER_RATE_PER_ADDRESS: Joi.number().integer().min(1).max(1_000_000).default(10)
    .description('registrations per client address (IPv6: per /64) per hour'),
  // generation limits; 0 turns one off
  GENERATE_RATE_PER_KEY: Joi.number().integer().min(0).max(1_000_000).default(60)
    .description('model submits per minute per API key (a key\'s own `rate_limit_per_minute` replaces it); `0`: no limit. See [Rate limits on generation](../api/rate-limits.md#rate-limits-on-generation)'),
  GENERATE_RATE_PER_ACCOUNT: Joi.number().integer().min(0).max(1_000_000).default(120)
    .description('model submits per minute per account (a user\'s own predictions, or a team\'s)'),
  GENERATE_CONCURRENT_PER_KEY: Joi.number().integer().min(0).max(1_000_000).default(10)
    .description('unfinished (queued, pending, processing) predictions per API key (a key\'s own `max_concurrent` replaces it); `0`: no limit'),
  GENERATE_CONCURRENT_PER_ACCOUNT: Joi.number().integer().min(0).max(1_000_000).default(20)
    .description('unfinished predictions per account'),
  // a shared secret of the scraper; short ones are guessable
  METRICS_TOKEN: Joi.string().min(16).max(512).pattern(/^[\x21-\x7e]+$/).messages({ 'string.pattern.base': 'must be printable ASCII without spaces' })
    .meta({ default: 'unset: `/metrics` on the API port answers 401 to everyone' })
    .description('16-512 printable characters; a scraper sends `Authorization: Bearer <token>` to `/metrics` (API port and worker health port)'),
  WORKER_HEALTH_PORT: Joi.number().integer().min(0).max(65535)
    .meta({ default: 'unset: no health port' })
    .description('`ROLE=worker` only: a second, small HTTP listener serving `/livez`, `/readyz` and `/metrics` (open there unless `METRICS_TOKEN` is set). Kubernetes convention: `9464`'),
  WORKER_HEALTH_HOST: Joi.string().default('0.0.0.0')
    .description('bind address of that listener; a private interface when its `/metrics` has no token'),
  TRUSTED_PROXIES: Joi.string().custom((value: string) => {
    for (const entry of value.split(',').map((e) => e.trim())) {
      if (!isAddressOrRange(entry)) throw new Error(`"${entry}" is not an IP address or CIDR range`);
    }
    return value;
  })
    .meta({ default: 'unset' })
    .description('comma-separated IPs or CIDR ranges of your load balancers; from them, the client address is the nearest `X-Forwarded-For` hop that is not itself a trusted proxy; from any other peer `X-Forwarded-For` is ignored. That one address is used for everything: key IP restrictions, rate limits and logs. Set it behind a proxy, or every client shares the proxy\'s budget and a key restricted to a client\'s address is refused'),
  STUDIO_DNS_SERVERS: Joi.string().custom((value: string) => { dnsServers(value); return value; })
    .meta({ default: 'unset: the machine\'s resolvers' })
    .description('comma-separated DNS resolvers (`ip` or `ip:port`, IPv6 as `[ip]:port`) used to check the TXT records that verify whitelabel studios\' domains (see [Studios](../partners/studios.md#domains)). Set it when the machine\'s resolvers cache answers for long or cannot see public DNS'),
  REGISTRATION: Joi.string().valid('open', 'closed').default('open')
    .description('`open`: anyone may create an account. `closed`: `/auth/register` (and a first Google sign-in) creates an account only for an address holding a pending team invite; any other gets 403 `registration is closed on this gateway: …`. Either way the sign-up credit comes only with a verified address (see [Registration policy](administration.md#registration-policy))'),
  CORS_ORIGINS: Joi.string().custom((value: string) => { corsOrigins(value); return value; })
    .meta({ default: 'unset: same-origin only' })
    .description('comma-separated browser origins allowed to call the API (`https://app.example.com`, `https://*.example.com`), or `*` for any; see [Browser clients (CORS)](security.md#browser-clients-cors)'),
  // docs/operating/retention.md "Retention": a number of days, or 0 / off = kept forever
  OUTPUT_RETENTION_DAYS: days().default(30)
    .description('output files of a completed prediction are removed this many days after it completed (the prediction stays; see [Retention](retention.md)); `0` or `off` keeps them forever'),
  WEBHOOK_ATTEMPT_RETENTION_DAYS: days().default(30)
    .description('webhook attempt records, and finished deliveries, older than this are removed; `0` or `off` keeps them'),
  UPLOAD_RETENTION_DAYS: days().default(30)
    .description('uploads that no media library took (used only as a prediction\'s input, or never used), and a deleted team\'s, are removed, file and row, this many days after their address was issued (see [Retention](retention.md)); `0` or `off` keeps them'),
  EXPIRED_RECORD_GRACE_DAYS: Joi.number().integer().min(0).max(3650).default(1)
    .description('expired or used sessions, OAuth states and tokens, one-time and reset codes, idempotency records and team invites are removed this many days after they ended (`0`: at the next run)'),
  ACCOUNT_DELETION_GRACE_DAYS: Joi.number().integer().min(0).max(365).default(14)
    .description('days between an account deletion request and its erasure ([Deleting an account](../api/credentials.md#deleting-an-account))'),
  PASSWORD_HASH_COST: Joi.number().integer().min(10).max(18).default(15)
    .description('the cost of new password hashes, as a power of two: scrypt\'s N is 2 to this power (r 8, p 1). At 15, one hash takes 32 MiB and 0.05 to 0.2 s of one core, at every registration, sign-in and password reset; each step up doubles both (OWASP asks for 17). A hash keeps the cost it was made with, so existing passwords still sign in after a change, and the new cost applies as passwords are set. Lower values make a stolen database\'s passwords cheaper to guess: go below 15 only on a gateway that holds no real accounts, such as a test run'),
  RETENTION_INTERVAL_SECONDS: Joi.alternatives(Joi.number().integer().min(10).max(7 * 24 * 3600), Joi.string().valid('off'))
    .default(3600).messages({ 'alternatives.match': 'must be a number of seconds (10-604800) or "off"' })
    .description('how often the retention job runs (worker processes; once per period across all of them); `off` disables it'),
  // docs/operating/billing.md "Subscriptions": a JSON object of plans, or the path of a file holding one
  SUBSCRIPTION_PLANS: Joi.string().custom((value: string) => { subscriptionPlans(value); return value; })
    .meta({ default: '`starter`, `pro`, `scale` (see [Subscriptions](billing.md#subscriptions))' })
    .description('the subscription plans: a JSON object, or the path of a JSON file holding one: `{"pro": {"credits": 50000, "rollover_cap": 25000, "period": "month"}}`. `credits` per period (≥ 1), `rollover_cap` (0 to `credits`, default 0), `period` `month` (default), `year` or days (`30d`, 1-366). A bad plan stops start-up naming it'),
  SUBSCRIPTION_INTERVAL_SECONDS: Joi.alternatives(Joi.number().integer().min(10).max(24 * 3600), Joi.string().valid('off'))
    .default(300).messages({ 'alternatives.match': 'must be a number of seconds (10-86400) or "off"' })
    .description('how often the subscription job renews due periods, expires grant credit, and tries again the cancels still due at Stripe and at the providers of an erased account\'s jobs (worker processes; once per period across all of them); `off` disables it, and those cancels are then tried only once (10-86400)'),
})
  .pattern(/^UPSTREAM_[A-Z0-9_]+_URL$/, Joi.string().uri({ scheme: ['http', 'https'] })
    .meta({ name: 'UPSTREAM_<NAME>_URL', default: 'unset' })
    .description('base URL of upstream provider `<name>` (e.g. `UPSTREAM_AURORA_URL`); for `openai`, `replicate`, `fal` and `wavespeed` it defaults to the public API (`https://api.openai.com/v1`, `https://api.replicate.com/v1`, `https://queue.fal.run`, `https://api.wavespeed.ai/api/v3`) once their key is set. No user name or password in it (`https://user:pass@host`): start-up refuses one, since the call would fail; the secret goes in `UPSTREAM_<NAME>_KEY`'))
  .pattern(/^UPSTREAM_[A-Z0-9_]+_KEY$/, Joi.string().min(1)
    .meta({ name: 'UPSTREAM_<NAME>_KEY', default: 'unset' })
    .description('its bearer key; never logged and never echoed in errors. `UPSTREAM_OPENAI_KEY`, `UPSTREAM_REPLICATE_KEY`, `UPSTREAM_FAL_KEY` or `UPSTREAM_WAVESPEED_KEY` alone configures that provider (see [Providers](providers.md#providers))'))
  .unknown(true);

/** A switch: `on`/`off`, or `true`/`false`, `1`/`0` (every switch takes all three spellings). */
function onOff() {
  return Joi.boolean().truthy('1', 'on').falsy('0', 'off').messages({ 'boolean.base': 'must be on or off (or true/false, 1/0)' });
}

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

/** The checkout presets and limits: every preset within [min, max], min not above max. */
function checkoutLimits(presets: string, minAmount: number, maxAmount: number): CheckoutConfig {
  if (minAmount > maxAmount) throw new ConfigError(`invalid configuration: CHECKOUT_MIN_AMOUNT: ${minAmount} is above CHECKOUT_MAX_AMOUNT (${maxAmount})`);
  const list = [...new Set(presets.split(',').map(Number))].sort((a, b) => a - b);
  const outside = list.find((n) => n < minAmount || n > maxAmount);
  if (outside !== undefined) throw new ConfigError(`invalid configuration: CHECKOUT_PRESETS: ${outside} is outside CHECKOUT_MIN_AMOUNT..CHECKOUT_MAX_AMOUNT (${minAmount}..${maxAmount})`);
  return { presets: list, minAmount, maxAmount };
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
 * (docs/operating/providers.md "Providers"). Self-hosted OpenAI-compatible servers set their own name and URL.
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

/**
 * The URL settings the gateway fetches itself (a provider's base, fal's key set, the Google
 * issuer's discovery, its own files at PUBLIC_URL) and what to do instead of credentials in them;
 * undefined for any other variable. Node's fetch refuses a URL with a user name or password, so
 * such a setting would pass start-up and fail every call.
 */
function credentialsHint(key: string): string | undefined {
  const upstream = /^UPSTREAM_([A-Z0-9_]+)_URL$/.exec(key);
  if (upstream) return `put the secret in UPSTREAM_${upstream[1]}_KEY instead`;
  if (key === 'FAL_WEBHOOK_JWKS_URL') return 'fal\'s key set is public: remove them';
  if (key === 'GOOGLE_ISSUER') return 'the issuer\'s address is public and the client\'s secret goes in GOOGLE_CLIENT_SECRET: remove them';
  if (key === 'PUBLIC_URL') return 'every address the gateway hands out starts with it: remove them';
  return undefined;
}

/** A URL setting with a user name or password stops start-up, naming the setting but never the credentials. */
function refuseCredentials(key: string, value: string, hint: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`invalid configuration: ${key}: is not a URL`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new ConfigError(`invalid configuration: ${key}: must not carry a user name or password (the part before @); ${hint}`);
  }
}

/** Builds the configuration from an environment; throws ConfigError naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings mean "unset": that is how most deploy tools express an absent variable.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const { value, error } = configSchema.validate(present, { abortEarly: true, convert: true });
  if (error) {
    const detail = error.details[0];
    const key = detail?.path[0] ?? 'environment';
    // a custom check's own reason, without Joi's "failed custom validation because"
    const own = detail?.type === 'any.custom' ? (detail.context?.error as Error | undefined)?.message : undefined;
    throw new ConfigError(`invalid configuration: ${String(key)}: ${own ?? detail?.message.replace(/^"[^"]*" /, '') ?? error.message}`);
  }
  for (const [key, val] of Object.entries(present)) {
    const hint = credentialsHint(key);
    if (hint !== undefined && typeof val === 'string') refuseCredentials(key, val, hint);
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
    runProgressWriteMs: v.RUN_PROGRESS_WRITE_MS as number,
    webhookEventsIntervalMs: v.WEBHOOK_EVENTS_INTERVAL_MS as number,
    webhookRetryScheduleMs: parseRetrySchedule(String(v.WEBHOOK_RETRY_SCHEDULE_MS)),
    chatUpstreamTimeoutMs: v.CHAT_UPSTREAM_TIMEOUT_MS as number,
    imagesWaitMs: v.IMAGES_WAIT_MS as number,
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
      // the embedded default is someone's own machine; with MariaDB the logs are usually shared
      toLog: v.MAIL_TO_LOG === undefined ? v.DATABASE_URL === undefined : (v.MAIL_TO_LOG as unknown) === true,
    },
    staffAccessNotices: (v.STAFF_ACCESS_NOTICES as unknown) === true,
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
    checkout: checkoutLimits(String(v.CHECKOUT_PRESETS), v.CHECKOUT_MIN_AMOUNT as number, v.CHECKOUT_MAX_AMOUNT as number),
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
    studioDnsServers: v.STUDIO_DNS_SERVERS === undefined ? [] : dnsServers(String(v.STUDIO_DNS_SERVERS)),
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
    passwordScryptN: 2 ** (v.PASSWORD_HASH_COST as number),
    subscriptions: {
      plans: subscriptionPlans(v.SUBSCRIPTION_PLANS as string | undefined),
      intervalMs: v.SUBSCRIPTION_INTERVAL_SECONDS === 'off' ? null : (v.SUBSCRIPTION_INTERVAL_SECONDS as number) * 1000,
    },
  };
}
