// The sign-in settings: defaults, and bad values stopping start-up with one line naming them.
import test from 'ava';
import { loadConfig, ConfigError } from '../config.ts';

test('sign-in defaults: mail to the log, Google off, 10 failures per email and address, 50 per address, 10 mails per email per 15 minutes, 10 registrations per address per hour', (t) => {
  const c = loadConfig({});
  t.deepEqual(c.mail, { smtpUrl: undefined, from: 'mediagate <no-reply@localhost>', toLog: true });
  t.is(c.google, null);
  t.deepEqual(c.authRateLimit, { windowSeconds: 900, perEmail: 10, perAddress: 50, mailsPerEmail: 10, registerPerAddress: 10 });
  t.deepEqual(c.trustedProxies, []);
  t.is(c.passwordScryptN, 2 ** 15);
  t.is(loadConfig({ PASSWORD_HASH_COST: '17' }).passwordScryptN, 2 ** 17);
});

test('mail goes to the log only on the embedded default or when MAIL_TO_LOG says so; with DATABASE_URL it is off', (t) => {
  const mysql = { DATABASE_URL: 'mysql://gw:pw@db.local/gateway', ENCRYPTION_KEY: 'ab'.repeat(32) };
  t.false(loadConfig(mysql).mail.toLog);
  t.true(loadConfig({ ...mysql, MAIL_TO_LOG: 'on' }).mail.toLog);
  t.false(loadConfig({ MAIL_TO_LOG: 'off' }).mail.toLog);
  t.true(loadConfig({ MAIL_TO_LOG: '1' }).mail.toLog);
});

test('Google settings: issuer defaults to Google, redirect URL to the public callback', (t) => {
  const c = loadConfig({ PUBLIC_URL: 'https://gw.example.com/', GOOGLE_CLIENT_ID: 'id.apps.googleusercontent.com', GOOGLE_CLIENT_SECRET: 's' });
  t.deepEqual(c.google, {
    clientId: 'id.apps.googleusercontent.com', clientSecret: 's', issuer: 'https://accounts.google.com', redirectUrl: 'https://gw.example.com/auth/google_callback',
  });
  t.is(c.mail.from, 'mediagate <no-reply@gw.example.com>');
});

test('a bad sign-in setting stops start-up with one line naming it', (t) => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ SMTP_URL: 'http://mail.example.com' }, 'SMTP_URL'],
    [{ MAIL_TO_LOG: 'yes please' }, 'MAIL_TO_LOG'],
    [{ GOOGLE_CLIENT_ID: 'id' }, 'GOOGLE_CLIENT_SECRET'],
    [{ GOOGLE_ISSUER: 'accounts.google.com' }, 'GOOGLE_ISSUER'],
    [{ AUTH_RATE_PER_EMAIL: '0' }, 'AUTH_RATE_PER_EMAIL'],
    [{ AUTH_RATE_MAILS_PER_EMAIL: 'many' }, 'AUTH_RATE_MAILS_PER_EMAIL'],
    [{ REGISTER_RATE_PER_ADDRESS: '-1' }, 'REGISTER_RATE_PER_ADDRESS'],
    [{ TRUSTED_PROXIES: '10.0.0.1,not-an-ip' }, 'TRUSTED_PROXIES'],
    [{ PASSWORD_HASH_COST: '9' }, 'PASSWORD_HASH_COST'],
    [{ PASSWORD_HASH_COST: '19' }, 'PASSWORD_HASH_COST'],
    [{ PASSWORD_HASH_COST: '32768' }, 'PASSWORD_HASH_COST'],
  ];
  for (const [env, name] of cases) {
    const err = t.throws(() => loadConfig(env), { instanceOf: ConfigError });
    t.true(err.message.startsWith(`invalid configuration: ${name}:`), err.message);
    t.false(err.message.includes('\n'));
  }
});
