import test from 'ava';
import { loadConfig, ConfigError } from '../config.ts';
import { mysqlAddress } from '../db/knex.ts';

test('an empty environment gives the embedded defaults', (t) => {
  const c = loadConfig({});
  t.is(c.role, 'all');
  t.is(c.port, 8080);
  t.is(c.databaseUrl, undefined);
  t.is(c.amqpUrl, undefined);
  t.is(c.publicUrl, 'http://localhost:8080');
  t.is(c.signupCredit, 0);
  t.true(c.sqliteFile.endsWith('data/mediagate.sqlite'));
});

test('a bad variable stops start-up with one line naming it', (t) => {
  for (const [key, value] of [['PORT', 'eighty'], ['DATABASE_URL', 'postgres://x/y'], ['ROLE', 'both'], ['SIGNUP_CREDIT', '-5'], ['AMQP_URL', 'http://x']] as const) {
    const err = t.throws(() => loadConfig({ [key]: value }), { instanceOf: ConfigError });
    t.true(err.message.startsWith(`invalid configuration: ${key}:`), err.message);
    t.false(err.message.includes('\n'));
  }
});

test('upstream providers are read from UPSTREAM_<NAME>_URL and _KEY', (t) => {
  const c = loadConfig({ UPSTREAM_AURORA_URL: 'https://api.aurora.example/', UPSTREAM_AURORA_KEY: 'k', UPSTREAM_LUMEN_URL: 'http://10.0.0.1:9000' });
  t.deepEqual(c.upstreams.get('aurora'), { url: 'https://api.aurora.example', key: 'k' });
  t.deepEqual(c.upstreams.get('lumen'), { url: 'http://10.0.0.1:9000' });
});

test('a URL setting the gateway fetches stops start-up when it carries a user name or password, naming the setting but not the credentials', (t) => {
  // Node's fetch refuses such a URL: accepted, every call to it would fail
  const cases: Array<[Record<string, string>, string, RegExp]> = [
    [{ UPSTREAM_AURORA_URL: 'https://aurora-user:s3cret-word@api.aurora.example/v1', UPSTREAM_AURORA_KEY: 'k' }, 'UPSTREAM_AURORA_URL', /put the secret in UPSTREAM_AURORA_KEY instead/],
    [{ UPSTREAM_SELF_HOSTED_URL: 'http://s3cret-word@10.0.0.1:8000/v1' }, 'UPSTREAM_SELF_HOSTED_URL', /put the secret in UPSTREAM_SELF_HOSTED_KEY instead/],
    [{ UPSTREAM_OPENAI_KEY: 'k', UPSTREAM_OPENAI_URL: 'https://aurora-user:s3cret-word@proxy.example/v1' }, 'UPSTREAM_OPENAI_URL', /UPSTREAM_OPENAI_KEY/],
    [{ FAL_WEBHOOK_JWKS_URL: 'https://aurora-user:s3cret-word@rest.fal.ai/.well-known/jwks.json' }, 'FAL_WEBHOOK_JWKS_URL', /remove them/],
    [{ GOOGLE_ISSUER: 'https://aurora-user:s3cret-word@accounts.google.com' }, 'GOOGLE_ISSUER', /GOOGLE_CLIENT_SECRET/],
    [{ PUBLIC_URL: 'https://aurora-user:s3cret-word@gw.example.com' }, 'PUBLIC_URL', /remove them/],
  ];
  for (const [env, name, hint] of cases) {
    const err = t.throws(() => loadConfig(env), { instanceOf: ConfigError });
    t.true(err.message.startsWith(`invalid configuration: ${name}: must not carry a user name or password`), err.message);
    t.regex(err.message, hint);
    t.false(err.message.includes('\n'));
    t.false(/aurora-user|s3cret-word/.test(err.message), `the credentials are not printed: ${err.message}`);
  }
  // the same settings without credentials start
  t.deepEqual(loadConfig({ UPSTREAM_AURORA_URL: 'https://api.aurora.example/v1', UPSTREAM_AURORA_KEY: 's3cret-word' }).upstreams.get('aurora'), { url: 'https://api.aurora.example/v1', key: 's3cret-word' });
  t.is(loadConfig({ PUBLIC_URL: 'https://gw.example.com', FAL_WEBHOOK_JWKS_URL: 'https://rest.fal.ai/keys', GOOGLE_ISSUER: 'https://accounts.google.com' }).publicUrl, 'https://gw.example.com');
});

test('PUBLIC_URL loses its trailing slash', (t) => {
  t.is(loadConfig({ PUBLIC_URL: 'https://gw.example.com/' }).publicUrl, 'https://gw.example.com');
});

test('operations settings: no metrics token and no worker health port by default; a short token or a bad port is refused', (t) => {
  const c = loadConfig({});
  t.is(c.metricsToken, undefined);
  t.is(c.workerHealthPort, undefined);
  t.is(c.workerHealthHost, '0.0.0.0');
  const set = loadConfig({ METRICS_TOKEN: 'a-long-enough-token-123', WORKER_HEALTH_PORT: '9464', WORKER_HEALTH_HOST: '10.0.0.5' });
  t.is(set.metricsToken, 'a-long-enough-token-123');
  t.is(set.workerHealthPort, 9464);
  t.is(set.workerHealthHost, '10.0.0.5');
  for (const [key, value] of [['METRICS_TOKEN', 'short'], ['METRICS_TOKEN', 'has spaces in it, sixteen+'], ['WORKER_HEALTH_PORT', '70000']] as const) {
    const err = t.throws(() => loadConfig({ [key]: value }), { instanceOf: ConfigError });
    t.true(err.message.startsWith(`invalid configuration: ${key}:`), err.message);
  }
});

test('CORS_ORIGINS takes origins, wildcard hosts or "*" alone; anything else names the bad entry', (t) => {
  t.deepEqual(loadConfig({}).corsOrigins, []);
  t.deepEqual(loadConfig({ CORS_ORIGINS: 'https://app.example.com, http://localhost:3000,https://*.example.org' }).corsOrigins,
    ['https://app.example.com', 'http://localhost:3000', 'https://*.example.org']);
  t.deepEqual(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins, ['*']);
  for (const bad of ['https://app.example.com/', 'app.example.com', '*,https://a.example', 'https://a.example/path']) {
    const err = t.throws(() => loadConfig({ CORS_ORIGINS: bad }), { instanceOf: ConfigError });
    t.true(err.message.startsWith('invalid configuration: CORS_ORIGINS:'), err.message);
  }
});

test('Stripe is off by default; its keys are checked and named when malformed (README "Payments (Stripe)")', (t) => {
  t.deepEqual(loadConfig({}).stripe, { secretKey: undefined, webhookSecret: undefined, currency: 'usd', creditsPerUnit: 1000 });
  const c = loadConfig({ STRIPE_SECRET_KEY: 'sk_live_abcdefgh123', STRIPE_WEBHOOK_SECRET: 'whsec_abcdefgh', STRIPE_CURRENCY: 'EUR', STRIPE_CREDITS_PER_UNIT: '900' });
  t.deepEqual(c.stripe, { secretKey: 'sk_live_abcdefgh123', webhookSecret: 'whsec_abcdefgh', currency: 'eur', creditsPerUnit: 900 });
  for (const [key, value] of [['STRIPE_SECRET_KEY', 'pk_live_abcdefgh123'], ['STRIPE_WEBHOOK_SECRET', 'wh_abcdefgh123'], ['STRIPE_CURRENCY', 'dollars'], ['STRIPE_CREDITS_PER_UNIT', '0']] as const) {
    const err = t.throws(() => loadConfig({ [key]: value }), { instanceOf: ConfigError });
    t.true(err.message.startsWith(`invalid configuration: ${key}:`), err.message);
    if (key.endsWith('_KEY') || key.endsWith('_SECRET')) t.false(err.message.includes(value), 'a secret is not echoed');
  }
});

test('DATABASE_URL may name the server\'s unix socket (?socketPath=, an absolute path) and nothing else in its query', (t) => {
  t.is(loadConfig({ DATABASE_URL: 'mysql://gw:pw@localhost/gateway?socketPath=/run/mysqld/mysqld.sock', ENCRYPTION_KEY: 'ab'.repeat(32) }).databaseUrl, 'mysql://gw:pw@localhost/gateway?socketPath=/run/mysqld/mysqld.sock');
  t.deepEqual(mysqlAddress('mysql://gw:pw@db:3307/gateway'), { host: 'db', port: 3307 });
  t.deepEqual(mysqlAddress('mysql://gw:pw@localhost/gateway?socketPath=%2Frun%2Fmysqld%2Fmysqld.sock'), { socketPath: '/run/mysqld/mysqld.sock' });
  for (const bad of ['mysql://gw:pw@localhost/gateway?socketPath=mysqld.sock', 'mysql://gw:pw@localhost/gateway?socket=/run/mysqld/mysqld.sock', 'mysql://gw:pw@db/gateway?ssl=true']) {
    const err = t.throws(() => loadConfig({ DATABASE_URL: bad }), { instanceOf: ConfigError });
    t.true(err.message.startsWith('invalid configuration: DATABASE_URL:'), err.message);
    t.false(err.message.includes('\n'));
    t.false(err.message.includes(':pw@'), 'the password is not echoed');
  }
});

test('DB_PREPARED_PER_CONNECTION: 64 prepared statements per connection by default, 0 for none; a negative or fractional count is refused', (t) => {
  t.is(loadConfig({}).dbPreparedPerConnection, 64);
  t.is(loadConfig({ DB_PREPARED_PER_CONNECTION: '0' }).dbPreparedPerConnection, 0);
  t.is(loadConfig({ DB_PREPARED_PER_CONNECTION: '256' }).dbPreparedPerConnection, 256);
  for (const value of ['-1', '1.5', 'many']) {
    const err = t.throws(() => loadConfig({ DB_PREPARED_PER_CONNECTION: value }), { instanceOf: ConfigError });
    t.true(err.message.startsWith('invalid configuration: DB_PREPARED_PER_CONNECTION:'), err.message);
  }
});

test('every on/off setting takes on and off as well as true/false and 1/0, and a bad value says which', (t) => {
  const switches = {
    CREDENTIAL_CACHE: (c: ReturnType<typeof loadConfig>) => c.credentialCache,
    WEBHOOK_ALLOW_INSECURE: (c: ReturnType<typeof loadConfig>) => c.webhookAllowInsecure,
    UPSTREAM_ALLOW_PRIVATE_OUTPUTS: (c: ReturnType<typeof loadConfig>) => c.upstreamAllowPrivateOutputs,
    STAFF_ACCESS_NOTICES: (c: ReturnType<typeof loadConfig>) => c.staffAccessNotices,
  };
  for (const [name, read] of Object.entries(switches)) {
    for (const [value, expected] of [['on', true], ['off', false], ['true', true], ['false', false], ['1', true], ['0', false]] as const) {
      t.is(read(loadConfig({ [name]: value })), expected, `${name}=${value}`);
    }
    const err = t.throws(() => loadConfig({ [name]: 'yes' }), { instanceOf: ConfigError });
    t.is(err.message, `invalid configuration: ${name}: must be on or off (or true/false, 1/0)`);
  }
});

test('a bad AMQP_PREFIX says what a prefix may hold, not a pattern', (t) => {
  for (const value of ['My.Prefix', '1gateway', 'a'.repeat(42)]) {
    const err = t.throws(() => loadConfig({ AMQP_PREFIX: value }), { instanceOf: ConfigError });
    t.is(err.message, 'invalid configuration: AMQP_PREFIX: must be 1-41 lowercase letters, digits, _ and -, starting with a letter (e.g. mediagate-staging)');
  }
  t.is(loadConfig({ AMQP_PREFIX: 'gw_2-staging' }).amqpPrefix, 'gw_2-staging');
});

test('a bad list of delays says what the list may hold, not a pattern', (t) => {
  for (const name of ['RETRY_DELAYS_MS', 'UPSTREAM_POLL_DELAYS_MS']) {
    for (const value of ['2s,10s', '1000, 2000', '1,2,3,4,5,6,7,8,9,10,11']) {
      const err = t.throws(() => loadConfig({ [name]: value }), { instanceOf: ConfigError });
      t.is(err.message, `invalid configuration: ${name}: must be up to ten numbers of milliseconds, comma-separated without spaces (e.g. 2000,10000,30000)`);
    }
  }
});
