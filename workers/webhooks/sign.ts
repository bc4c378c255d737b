// Standard Webhooks v1 signing (https://www.standardwebhooks.com): HMAC-SHA256 over
// "<webhook-id>.<webhook-timestamp>.<body>" with the base64-decoded part of each `whsec_`
// secret; several signatures, space-separated, let receivers rotate secrets without downtime.
// Pure: the caller passes the clock's timestamp and the exact bytes it will send.
import crypto from 'node:crypto';

export function signatureFor(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const mac = crypto.createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64');
  return `v1,${mac}`;
}

export function webhookHeaders(secrets: readonly string[], id: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => signatureFor(s, id, timestampSeconds, body)).join(' '),
  };
}
