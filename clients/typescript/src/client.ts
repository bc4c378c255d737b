// The client: a gateway's documented routes as typed calls. Models are run by slug with the input
// the spec declares for them; a submit carries an Idempotency-Key (so its retries are safe), and a
// run follows the prediction over its event stream (polling when it cannot) to the end.
import { authenticator } from './auth.ts';
import type { Credentials, OAuthClientCredentials } from './auth.ts';
import { AbortError, MediagateError, NotFoundError, PredictionFailedError } from './errors.ts';
import { DEFAULT_RETRY, Transport } from './http.ts';
import type { Query, RetryPolicy } from './http.ts';
import { streamPrediction, waitForPrediction } from './follow.ts';
import type { StreamOptions, WaitOptions } from './follow.ts';
import { isTerminal } from './types.ts';
import type {
  ApiKey, Balance, CreateApiKeyRequest, CreatedApiKey, HistoryPage, ModelEntry, ModelInput, Prediction,
  PredictionDetail, Quote, Submitted, TransactionPage, UpdateApiKeyRequest, UploadAddress, UserDetails, WebhookSecret,
  WebhookTestResult,
} from './types.ts';
import { uploadBody } from './upload.ts';
import type { UploadSource } from './upload.ts';

export interface MediagateOptions {
  /** the gateway, e.g. `https://gateway.example.com` */
  baseUrl: string;
  /** an API key (`mg_live_…` or a sandbox `mg_test_…`) */
  apiKey?: string | undefined;
  /** OAuth client credentials; the client fetches and renews its access token */
  oauth?: OAuthClientCredentials | undefined;
  /** a bearer token already held (a dashboard session, or a token obtained elsewhere) */
  bearerToken?: string | undefined;
  /** a publishable embed code (`emb_…` or `aemb_…`), for web pages */
  embedCode?: string | undefined;
  /** the visitor id an embed code's first answer gave, kept by the page (e.g. in localStorage) */
  embedVisitor?: string | undefined;
  /** act for a team (`team_id`) on every call that takes one */
  teamId?: number | undefined;
  /** time limit of one HTTP attempt, ms (default 60,000) */
  timeoutMs?: number | undefined;
  retry?: Partial<RetryPolicy> | undefined;
  /** a fetch to use instead of the global one */
  fetch?: typeof fetch | undefined;
  /** headers sent on every request (e.g. `x-request-id`) */
  headers?: Record<string, string> | undefined;
  /** the clock (ms), for tests */
  now?: (() => number) | undefined;
}

export interface CallOptions {
  signal?: AbortSignal | undefined;
  /** overrides the client's team for this call */
  teamId?: number | undefined;
}

export interface SubmitOptions extends CallOptions {
  /** an https URL the gateway POSTs the finished prediction to (signed; see verifyWebhook) */
  webhook?: string | undefined;
  /**
   * the events `webhook` receives (default: the result only): `start`, `progress` and `logs` while
   * it runs, `completed` for the result, always last (leave it out and no result is sent)
   */
  webhookEvents?: ReadonlyArray<'start' | 'progress' | 'logs' | 'completed'> | undefined;
  /** default: a new random UUID per submit, kept across this submit's retries */
  idempotencyKey?: string | undefined;
}

export interface RunOptions extends SubmitOptions, Omit<WaitOptions, 'signal' | 'teamId'> {
  /** cancel the prediction on the gateway when `signal` aborts (default true) */
  cancelOnAbort?: boolean | undefined;
  /** called once the gateway accepted the submit, before waiting */
  onSubmitted?: ((submitted: Submitted) => void) | undefined;
}

export interface WebhookSecretOptions extends CallOptions {
  /**
   * `true`: the sandbox secret, which signs sandbox predictions' deliveries; `false` or left out:
   * the production one, which signs production predictions' and alerts' (a sandbox key is
   * refused `false`, and always gets the sandbox secret)
   */
  sandbox?: boolean | undefined;
}

export interface UploadOptions extends CallOptions {
  /** the file's name; its extension selects the content type (required unless `file` is a File) */
  filename?: string | undefined;
}

export interface Uploaded {
  /** the stored file's URL: use it as a model input (`image_url`, `audio_url`, …) */
  url: string;
  contentType: string;
  mediaType: UploadAddress['media_type'];
  bytes: number;
}

export interface HistoryQuery extends CallOptions {
  page?: number | undefined;
  pageSize?: number | undefined;
  status?: string | undefined;
  model?: string | undefined;
  reviewStatus?: 'unreviewed' | 'approved' | 'rejected' | 'flagged' | undefined;
}

/** A fresh Idempotency-Key: one per submit, the same on each of its retries. */
function newIdempotencyKey(): string {
  return crypto.randomUUID();
}

export class Mediagate {
  readonly baseUrl: string;
  readonly teamId: number | undefined;
  private readonly transport: Transport;

  constructor(options: MediagateOptions) {
    if (!options || typeof options.baseUrl !== 'string' || !/^https?:\/\//.test(options.baseUrl)) {
      throw new MediagateError('baseUrl must be the gateway\'s http(s) address, e.g. https://gateway.example.com');
    }
    const given = [options.apiKey, options.oauth, options.bearerToken, options.embedCode].filter((x) => x !== undefined);
    if (given.length > 1) throw new MediagateError('give one credential: apiKey, oauth, bearerToken or embedCode');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.teamId = options.teamId;
    // the global fetch called late, so a runtime (or a test) that replaces it later is honoured
    const fetchImpl = options.fetch ?? ((...args: Parameters<typeof fetch>) => fetch(...args));
    const now = options.now ?? (() => Date.now());
    const credentials: Credentials | undefined = options.apiKey !== undefined ? { apiKey: options.apiKey }
      : options.oauth !== undefined ? { oauth: options.oauth }
        : options.bearerToken !== undefined ? { bearerToken: options.bearerToken }
          : options.embedCode !== undefined ? { embedCode: options.embedCode, ...(options.embedVisitor ? { embedVisitor: options.embedVisitor } : {}) }
            : undefined;
    this.transport = new Transport({
      baseUrl: this.baseUrl,
      fetch: fetchImpl,
      auth: authenticator(credentials, { baseUrl: this.baseUrl, fetch: fetchImpl, now }),
      timeoutMs: options.timeoutMs ?? 60_000,
      retry: { ...DEFAULT_RETRY, ...options.retry },
      now,
      random: Math.random,
      headers: options.headers ?? {},
    });
  }

  /** The embed visitor id the gateway gave this client (embed codes only); keep it for the next visit. */
  get embedVisitor(): string | undefined {
    return this.transport.options.auth?.visitor;
  }

  private team(opts: CallOptions | undefined): Query {
    const team = opts?.teamId ?? this.teamId;
    return team === undefined ? {} : { team_id: team };
  }

  private secretQuery(opts: WebhookSecretOptions): Query {
    return { ...this.team(opts), sandbox: opts.sandbox };
  }

  // ------------------------------------------------------------------------------------------
  // predictions

  /** Submits a model run; answers at once with its id (`request_id`), state and price held. */
  async submit<S extends string>(model: S, input: ModelInput<S>, opts: SubmitOptions = {}): Promise<Submitted> {
    const { body } = await this.transport.request<Submitted>({
      method: 'POST',
      path: `/api/v1/${encodeURIComponent(model)}`,
      query: { ...this.team(opts), webhook: opts.webhook, webhook_events_filter: opts.webhookEvents?.join(',') },
      body: input,
      headers: { 'idempotency-key': opts.idempotencyKey ?? newIdempotencyKey() },
      idempotent: true,
      signal: opts.signal,
    });
    return body;
  }

  /** The prediction as it is now. */
  async get<S extends string = string>(id: string, opts: CallOptions = {}): Promise<Prediction<S>> {
    const { body } = await this.transport.request<Prediction<S>>({
      method: 'GET', path: `/api/v1/predictions/${encodeURIComponent(id)}/result`, query: this.team(opts), signal: opts.signal,
    });
    return body;
  }

  /** Cancels a queued or running prediction (409 ConflictError once it has finished). */
  async cancel(id: string, opts: CallOptions = {}): Promise<Prediction> {
    const { body } = await this.transport.request<Prediction>({
      method: 'POST', path: `/app/cancel_prediction/${encodeURIComponent(id)}`, query: this.team(opts), idempotent: true, signal: opts.signal,
    });
    return body;
  }

  /** Each state of the prediction from now to its end, from the gateway's event stream. */
  stream(id: string, opts: Omit<StreamOptions, 'teamId'> & CallOptions = {}): AsyncGenerator<Prediction> {
    return streamPrediction(this.transport, id, { ...opts, teamId: opts.teamId ?? this.teamId });
  }

  /** Follows the prediction to completed, failed or cancelled, and returns it (whichever it is). */
  wait(id: string, opts: WaitOptions = {}): Promise<Prediction> {
    return waitForPrediction(this.transport, id, { ...opts, teamId: opts.teamId ?? this.teamId });
  }

  /**
   * Submits and waits: the completed prediction, with its `outputs`. Throws PredictionFailedError
   * when it fails or is cancelled, TimeoutError when it outlasts `timeoutMs` (it keeps running),
   * AbortError when `signal` aborts (it is cancelled on the gateway unless `cancelOnAbort` is false).
   */
  async run<S extends string>(model: S, input: ModelInput<S>, opts: RunOptions = {}): Promise<Prediction<S> & { price: number }> {
    const submitted = await this.submit(model, input, opts);
    opts.onSubmitted?.(submitted);
    let prediction: Prediction;
    try {
      if (isTerminal(submitted.status)) {
        // born finished (a sandbox key): the progress callback still sees the end
        prediction = await this.get(submitted.request_id, opts);
        opts.onProgress?.(prediction);
      } else {
        prediction = await this.wait(submitted.request_id, { ...opts, teamId: opts.teamId ?? this.teamId });
      }
    } catch (err) {
      if (err instanceof AbortError && (opts.cancelOnAbort ?? true)) {
        // Replicate's run does the same: a run the caller gave up on should not go on costing
        await this.cancel(submitted.request_id, { teamId: opts.teamId }).catch(() => {});
      }
      throw err;
    }
    if (prediction.status !== 'completed') throw new PredictionFailedError(prediction);
    return { ...(prediction as Prediction<S>), price: submitted.price };
  }

  // ------------------------------------------------------------------------------------------
  // files

  /**
   * Uploads a file through the gateway's upload address (one PUT of the bytes) and returns the
   * stored file's URL, to pass as a model input. The extension of `filename` selects the type.
   */
  async upload(file: UploadSource, opts: UploadOptions = {}): Promise<Uploaded> {
    const { body: bytes, size, name } = uploadBody(file, opts.filename);
    const { body: address } = await this.transport.request<UploadAddress>({
      method: 'GET', path: '/app/get_file_upload_url', query: { ...this.team(opts), filename: name, size_bytes: size || undefined }, signal: opts.signal,
    });
    await this.transport.put(address.upload_url, address.method, address.headers, bytes, opts.signal);
    return { url: address.file_url, contentType: address.content_type, mediaType: address.media_type, bytes: size };
  }

  // ------------------------------------------------------------------------------------------
  // models and prices

  readonly models = {
    /** Every model of the gateway (public: no credential needed). */
    list: async (filter: { category?: string; tier?: string } & CallOptions = {}): Promise<ModelEntry[]> => {
      const { body } = await this.transport.request<{ models: ModelEntry[] }>({
        method: 'GET', path: '/api/v1/models', query: { category: filter.category, tier: filter.tier }, anonymous: true, signal: filter.signal,
      });
      return body.models;
    },
    /** One model: its input schema, price rule and whether production keys can run it here. */
    get: async (slug: string, opts: CallOptions = {}): Promise<ModelEntry> => {
      const found = (await this.models.list(opts)).find((m) => m.slug === slug);
      if (!found) throw new NotFoundError({ status: 404, code: 'not_found', detail: `the gateway has no model "${slug}"` });
      return found;
    },
  };

  /** The price of a run with this input (the gateway's own price rule, discounts included) and whether the balance covers it. */
  async quote<S extends string>(model: S, input: ModelInput<S>, opts: CallOptions = {}): Promise<Quote> {
    const { body } = await this.transport.request<Quote>({
      method: 'POST', path: '/app/calculate_dynamic_cost', query: this.team(opts), body: { model, input }, idempotent: true, signal: opts.signal,
    });
    return body;
  }

  // ------------------------------------------------------------------------------------------
  // account

  readonly account = {
    /** Credits available and held by running predictions (1000 credits = 1 USD). */
    balance: async (opts: CallOptions = {}): Promise<Balance> =>
      (await this.transport.request<Balance>({ method: 'GET', path: '/account/balance', query: this.team(opts), signal: opts.signal })).body,
    /** The account the credential acts for. */
    details: async (opts: CallOptions = {}): Promise<UserDetails> =>
      (await this.transport.request<UserDetails>({ method: 'GET', path: '/app/user_details', signal: opts.signal })).body,
    /** The wallet's ledger, newest first. */
    transactions: async (opts: CallOptions & { page?: number; pageSize?: number } = {}): Promise<TransactionPage> =>
      (await this.transport.request<TransactionPage>({
        method: 'GET', path: '/app/credit_transactions', query: { ...this.team(opts), page: opts.page, page_size: opts.pageSize }, signal: opts.signal,
      })).body,
  };

  readonly keys = {
    list: async (opts: CallOptions = {}): Promise<ApiKey[]> => {
      const team = opts.teamId ?? this.teamId;
      const path = team === undefined ? '/app/get_user_keys' : `/app/teams/${team}/keys`;
      return (await this.transport.request<ApiKey[]>({ method: 'GET', path, signal: opts.signal })).body;
    },
    /** Creates a key; its secret (`key`) is in this answer only. */
    create: async (request: CreateApiKeyRequest = {}, opts: CallOptions = {}): Promise<CreatedApiKey> => {
      const team = opts.teamId ?? this.teamId;
      const path = team === undefined ? '/api/v1/keys' : `/app/teams/${team}/keys`;
      return (await this.transport.request<CreatedApiKey>({ method: 'POST', path, body: request, signal: opts.signal })).body;
    },
    update: async (id: number, changes: UpdateApiKeyRequest, opts: CallOptions = {}): Promise<ApiKey> => {
      const team = opts.teamId ?? this.teamId;
      const path = team === undefined ? `/app/update_api_key/${id}` : `/app/teams/${team}/keys/${id}`;
      return (await this.transport.request<ApiKey>({ method: team === undefined ? 'PUT' : 'PATCH', path, body: changes, idempotent: true, signal: opts.signal })).body;
    },
    /** Revokes a key; it is refused from its next use on. */
    revoke: async (id: number, opts: CallOptions = {}): Promise<void> => {
      const team = opts.teamId ?? this.teamId;
      const path = team === undefined ? `/app/delete_api_keys/${id}` : `/app/teams/${team}/keys/${id}`;
      await this.transport.request({ method: 'DELETE', path, signal: opts.signal });
    },
  };

  readonly history = {
    /** Past predictions, newest first; `status` or `model` filter them. */
    list: async (query: HistoryQuery = {}): Promise<HistoryPage> => {
      const filtered = query.status !== undefined || query.model !== undefined;
      const { body } = await this.transport.request<HistoryPage>({
        method: 'GET',
        path: filtered ? '/app/get_run_history_data_by_search' : '/app/get_run_history_data',
        query: {
          ...this.team(query), page: query.page, page_size: query.pageSize, review_status: query.reviewStatus,
          ...(filtered ? { status: query.status, model_name: query.model } : {}),
        },
        signal: query.signal,
      });
      return body;
    },
    /** One prediction with its input, cost and webhook deliveries. */
    get: async (id: string, opts: CallOptions = {}): Promise<PredictionDetail> =>
      (await this.transport.request<PredictionDetail>({ method: 'GET', path: `/app/prediction_response/${encodeURIComponent(id)}`, query: this.team(opts), signal: opts.signal })).body,
  };

  readonly webhooks = {
    /**
     * The signing secret of the account (or the team's) that verifyWebhook needs: the production
     * one, or with `{ sandbox: true }` the one sandbox predictions' deliveries are signed with
     * (`sandbox` in the answer says which). A sandbox key always gets the sandbox one.
     */
    secret: async (opts: WebhookSecretOptions = {}): Promise<WebhookSecret> =>
      (await this.transport.request<WebhookSecret>({ method: 'GET', path: '/app/webhook_secret', query: this.secretQuery(opts), signal: opts.signal })).body,
    /** Issues a new secret of the same kind (`{ sandbox: true }`: the sandbox one; the other is unchanged); for a while deliveries carry a signature for each of the two. */
    rotateSecret: async (opts: WebhookSecretOptions = {}): Promise<WebhookSecret> =>
      (await this.transport.request<WebhookSecret>({ method: 'POST', path: '/app/webhook_secret/rotate', query: this.secretQuery(opts), signal: opts.signal })).body,
    /**
     * Sends one signed `webhook.test` event to `url` at once and answers what the receiver did:
     * signed with the production secret, or with `{ sandbox: true }` the sandbox one (as sandbox
     * predictions' deliveries are). A sandbox key always signs with the sandbox one.
     */
    sendTest: async (url: string, opts: WebhookSecretOptions = {}): Promise<WebhookTestResult> =>
      (await this.transport.request<WebhookTestResult>({ method: 'POST', path: '/app/webhook_test', query: this.secretQuery(opts), body: { url }, signal: opts.signal })).body,
  };
}
