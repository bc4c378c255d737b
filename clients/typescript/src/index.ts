// @mediagate/client: a typed client for a mediagate gateway. Web APIs only (fetch, AbortSignal,
// ReadableStream, TextDecoder, crypto.subtle): Node 20+, browsers and edge runtimes.
export { Mediagate } from './client.ts';
export type { MediagateOptions, CallOptions, SubmitOptions, RunOptions, UploadOptions, Uploaded, HistoryQuery, WebhookSecretOptions } from './client.ts';
export type { OAuthClientCredentials } from './auth.ts';
export type { RetryPolicy } from './http.ts';
export type { StreamOptions, WaitOptions } from './follow.ts';
export type { UploadSource } from './upload.ts';
export { verifyWebhook } from './webhooks.ts';
export type { VerifyOptions, HeaderSource } from './webhooks.ts';
export {
  MediagateError, GatewayError, AuthenticationError, PermissionError, InsufficientCreditError, NotFoundError,
  ConflictError, ValidationError, RateLimitError, ServerError, ConnectionError, TimeoutError, AbortError,
  PredictionFailedError, WebhookVerificationError,
} from './errors.ts';
export type { ErrorCode, ValidationIssue } from './errors.ts';
export { isTerminal, TERMINAL_STATUSES } from './types.ts';
export type * from './types.ts';
