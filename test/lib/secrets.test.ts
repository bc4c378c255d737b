import test from 'ava';
import { hashPassword, newSecret, sha256Hex, verifyPassword, KEY_PREFIX_LIVE } from '../../lib/secrets.ts';

test('a password verifies against its own hash only', async (t) => {
  const stored = await hashPassword('correct horse battery');
  t.regex(stored, /^scrypt\$32768\$8\$1\$/);
  t.false(stored.includes('correct horse'));
  t.true(await verifyPassword('correct horse battery', stored));
  t.false(await verifyPassword('correct horse batterz', stored));
  t.false(await verifyPassword('anything', null));
});

test('a password hash keeps the cost it was made with: one made at another cost still verifies, whatever the cost of new hashes', async (t) => {
  const cheap = await hashPassword('correct horse battery', 2 ** 10);
  t.regex(cheap, /^scrypt\$1024\$8\$1\$/);
  t.true(await verifyPassword('correct horse battery', cheap));
  t.true(await verifyPassword('correct horse battery', cheap, 2 ** 16));
  t.false(await verifyPassword('correct horse batterz', cheap, 2 ** 16));
  const usual = await hashPassword('correct horse battery');
  t.true(await verifyPassword('correct horse battery', usual, 2 ** 10));
});

test('API keys carry a recognisable prefix and 256 random bits', (t) => {
  const a = newSecret(KEY_PREFIX_LIVE);
  const b = newSecret(KEY_PREFIX_LIVE);
  t.true(a.startsWith('mg_live_'));
  t.is(Buffer.from(a.slice(KEY_PREFIX_LIVE.length), 'base64url').length, 32);
  t.not(a, b);
  t.regex(sha256Hex(a), /^[0-9a-f]{64}$/);
});
