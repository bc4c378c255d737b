// The preflight of an embed code (db/embed-codes.ts anyCodeAllowsOrigin) asks the origin index for
// the exact entries originCandidates names; originAllowed decides a request with the code. They
// must agree on every entry and origin, or a preflight would be answered where the request is
// refused, or refused where it is allowed.
import test from 'ava';
import { normaliseOriginPattern, originAllowed, originCandidates } from '../../lib/embed-origins.ts';

const ENTRIES = [
  'shop.example.com', 'https://shop.example.com', 'http://shop.example.com', 'shop.example.com:8443', 'https://shop.example.com:8443',
  'https://shop.example.com:443', 'http://shop.example.com:80', '*.example.com', 'https://*.example.com', '*.example.com:8443',
  '*.shop.example.com', 'example.com', '*.com', 'localhost:5173', 'http://localhost:5173', '127.0.0.1:8080', 'xn--bcher-kva.example',
  'evil-example.com', '*.evil-example.com',
];
const ORIGINS = [
  'https://shop.example.com', 'http://shop.example.com', 'https://shop.example.com:8443', 'http://shop.example.com:8443',
  'https://a.shop.example.com', 'https://example.com', 'https://evil-example.com', 'https://shop.evil-example.com',
  'https://shop.example.com.evil.net', 'http://localhost:5173', 'http://localhost:5174', 'http://127.0.0.1:8080',
  'https://xn--bcher-kva.example', 'https://bücher.example', 'https://SHOP.Example.com', 'https://shop.example.com.',
];

test('an entry is among the candidates of an origin exactly when it allows that origin', (t) => {
  for (const raw of ENTRIES) {
    const entry = normaliseOriginPattern(raw);
    t.truthy(entry, raw);
    for (const origin of ORIGINS) {
      const url = new URL(origin).origin;
      t.is(originCandidates(url).includes(entry!), originAllowed(url, [entry!]), `${raw} and ${origin}`);
    }
  }
});

test('an origin that is no URL has no candidates', (t) => {
  t.deepEqual(originCandidates('not a url'), []);
});
