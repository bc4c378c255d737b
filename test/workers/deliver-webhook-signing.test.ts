// Standard Webhooks signing (workers/deliver-webhook.ts, part 4), checked against the package receivers use.
import test from 'ava';
import { Webhook } from 'standardwebhooks';
import { signatureFor, webhookHeaders } from '../../workers/deliver-webhook.ts';

test('signatures verify with the standardwebhooks package, with either secret during a rotation', (t) => {
  const oldSecret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
  const newSecret = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
  const body = JSON.stringify({ id: 'abc', status: 'completed' });
  const ts = Math.floor(Date.now() / 1000);
  const headers = webhookHeaders([newSecret, oldSecret], 'msg_1', ts, body);
  t.is(headers['webhook-signature']!.split(' ').length, 2);
  t.deepEqual(new Webhook(newSecret).verify(body, headers), JSON.parse(body));
  t.deepEqual(new Webhook(oldSecret).verify(body, headers), JSON.parse(body));
  t.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 3).toString('base64')}`).verify(body, headers));
  t.regex(signatureFor(newSecret, 'msg_1', ts, body), /^v1,[A-Za-z0-9+/]+=*$/);
});
