// Names for the generated types (generated/v1.ts, from the document the gateway serves).
import type { components, ModelMap } from './generated/v1.ts';

export type { components, operations, paths, webhooks, ModelMap } from './generated/v1.ts';

export type Schemas = components['schemas'];

/** The slug of a model this client was generated with, e.g. `canvas-v1-fast-text-to-image`. */
export type ModelSlug = keyof ModelMap;

/**
 * The body a model takes: typed for a known slug; any JSON object for a slug this client does not
 * know (a model added to the gateway after this client was built).
 */
export type ModelInput<S extends string> = S extends ModelSlug ? ModelMap[S]['input'] : Record<string, unknown>;

/** The kind of file a model makes: `image`, `video`, `audio`, `model3d` or `text`. */
export type ModelOutputKind<S extends string> = S extends ModelSlug ? ModelMap[S]['output'] : string;

export type PredictionStatus = Schemas['PredictionStatus'];

/** A prediction as the result route (and each stream event) shows it; `model` is its slug. */
export type Prediction<S extends string = string> = Omit<Schemas['PredictionResult'], 'model'> & {
  model: S;
  /** the provider's queue position while processing (stream events only; null when unknown) */
  queue_position?: number | null;
  /** 0..1 while processing at a provider that reports it (stream events only) */
  progress?: number | null;
};

/** The answer to a submit: the id, the state it was accepted in, its URLs and the credits held. */
export type Submitted = Schemas['PredictionSubmitted'];

export type WebhookPayload = Schemas['WebhookPayload'];
export type Balance = Schemas['Balance'];
export type Quote = Schemas['DynamicCostResponse'];
export type UploadAddress = Schemas['FileUploadUrlResponse'];
export type ModelEntry = Schemas['ModelEntry'];
export type ApiKey = Schemas['APIKeyResponse'];
export type CreatedApiKey = Schemas['APIKeyCreatedResponse'];
export type CreateApiKeyRequest = Schemas['APIKeyCreateRequest'];
export type UpdateApiKeyRequest = Schemas['APIKeyUpdateRequest'];
export type UserDetails = Schemas['UserDetails'];
export type TransactionPage = Schemas['PaginatedTransactionResponse'];
export type HistoryPage = Schemas['PaginatedUsageLogResponse'];
export type PredictionDetail = Schemas['UsageLogDetailResponse'];
export type WebhookSecret = Schemas['WebhookSecret'];
/** What a receiver answered to a test event (`webhooks.sendTest`). */
export type WebhookTestResult = Schemas['WebhookTestResult'];

/** The terminal states: a prediction in one of them never changes again. */
export const TERMINAL_STATUSES: ReadonlySet<PredictionStatus> = new Set<PredictionStatus>(['completed', 'failed', 'cancelled']);

export function isTerminal(status: string): boolean {
  return TERMINAL_STATUSES.has(status as PredictionStatus);
}
