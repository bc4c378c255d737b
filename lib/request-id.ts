// Request ids (X-Request-Id): accepted from a client when short and plain, else generated; carried
// from the API into queue messages so a prediction's worker and webhook log lines share it.
import crypto from 'node:crypto';

const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** true for a value safe to log and pass on as a request id (1-128 of A-Z a-z 0-9 . _ : -) */
export function isRequestId(value: unknown): value is string {
  return typeof value === 'string' && ACCEPTABLE_ID.test(value);
}

/** The request id of an incoming header value: kept when acceptable, otherwise a fresh UUID. */
export function acceptRequestId(header: unknown): string {
  return isRequestId(header) ? header : crypto.randomUUID();
}
