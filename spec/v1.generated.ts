// GENERATED from spec/v1 by `npm run gen:types` (spec/generate-types.ts). Do not edit.
export interface paths {
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Service health
         * @description Reports whether the API process, its database and its work queue are reachable.
         */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the models
         * @description The model catalog of this gateway: every model endpoint with its slug (operationId), path,
         *     category, tier, family, output kind, price rule and input schema, and whether production
         *     keys can run it here (`available`: a local model, or an upstream provider the operator has
         *     configured; sandbox keys can call every model). Filter with `category` and `tier`; an
         *     unknown value is 422 listing the known ones. Public, like the API document itself: it
         *     says nothing the served `/openapi.json` does not, except availability. In a whitelabel
         *     studio's context it lists the studio's models only, and `price` is the studio's price at
         *     the defaults alone (calculateDynamicCost prices any other input).
         */
        get: operations["listModels"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chat/completions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a chat completion (OpenAI-compatible)
         * @description OpenAI's chat completions for every model of the `llm` category, named by its slug
         *     (`GET /v1/models` lists them). The call runs while the client waits: the answer is OpenAI's
         *     `chat.completion` object with `usage`, or with `stream: true` a `text/event-stream` of
         *     `chat.completion.chunk` events relayed as the provider produces them, then `data: [DONE]`
         *     (with `stream_options.include_usage`, a last chunk carries `usage`: the provider's, or the
         *     tokens counted when it reports none). The stream is sent uncompressed, each event as it is relayed, and ends once the call is settled: by the time
         *     the response ends, its charge and its run-history record are written. A client that
         *     disconnects mid-stream stops the provider's call.
         *
         *     `messages` (system, developer, user, assistant and tool roles; text, image and audio parts where
         *     the provider takes them; any other part, such as a `file`, is 400: its cost cannot be
         *     held before the call), `max_tokens` or `max_completion_tokens`, `temperature`, `top_p`,
         *     `stop`, `seed`, `response_format`, `tools`, `tool_choice`, `parallel_tool_calls`,
         *     `frequency_penalty`, `presence_penalty`, `logit_bias`, `logprobs`, `top_logprobs`,
         *     `reasoning_effort` and `user` are passed to the provider as they are (a field sent as `null`
         *     is as absent). `store`, `metadata` and `service_tier` are taken and not passed on. `n` must
         *     be 1; a field OpenAI does not define is 400.
         *
         *     Billing: the call holds the most it can cost (its messages' UTF-8 bytes counted as tokens,
         *     each image part as the most the provider bills for one image, the model's `image_tokens`
         *     (a model without one takes no image parts), plus `max_tokens`, or the model's longest
         *     answer when absent, which is then asked of the provider), and is charged the price of the usage the provider reports, never more than
         *     the hold; the rest is released in the same transaction. A failed call is charged nothing;
         *     a stream the client left is charged for the tokens generated until then (counted from the
         *     chunks relayed when the provider reports none). Every call is a prediction in the run
         *     history: its id is the `id` of the answer (`chatcmpl-<request_id>`) and the
         *     `X-Prediction-Id` header; `X-Request-Id` names the HTTP request.
         *
         *     Credentials: an API key as `Authorization: Bearer <key>` (as the OpenAI SDKs send it) or
         *     `x-api-key`, a session, or an OAuth token with `generate:write`; `team_id` makes a team pay.
         *     An embed code (`x-embed-code` or `x-agent-embed-code`) is taken for the models it is bound
         *     to, from its allowed origins, with its caps (cost per call, daily and monthly spend,
         *     requests per minute per visitor address, calls at once) as on the model's own endpoint;
         *     a code that presets or restricts the model's input fields is refused here (400
         *     `embed_field_not_allowed`: a conversation cannot be held to them; its model's own endpoint
         *     takes it), and so is a model it is not bound to (403 `embed_model_not_allowed`). A sandbox key answers an instant mock completion (streamed
         *     when asked), free. In a whitelabel studio the call is held and charged at the studio's
         *     price, its markup paid to the studio's owner. Errors are OpenAI's body `{"error":
         *     {"message", "type", "code", "param"}}` with the gateway's statuses (a validation error is
         *     400, a model of another category is 400 naming the endpoint to use, 429 carries
         *     `Retry-After`).
         */
        post: operations["createChatCompletion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/images/generations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Generate images (OpenAI-compatible)
         * @description OpenAI's image generation for every model of the `text-to-image` category, named by its
         *     slug. `prompt` is the model's prompt, `n` its number of images (where the model takes one),
         *     `size` (`<width>x<height>`) its width and height (where it takes them). The request is a
         *     prediction like `POST /api/v1/<slug>` (held, charged on completion, in the run history),
         *     and the answer waits for it as `Prefer: wait` does, up to the gateway's bound
         *     (`IMAGES_WAIT_MS`): then `{"created", "data": [{"url"} | {"b64_json"}]}` by
         *     `response_format` (`url` by default: the gateway's own address of each file). Past the
         *     bound, a 504 whose message names the prediction (`request_id`), which keeps running: poll
         *     `GET /api/v1/predictions/{request_id}/result`. A failed prediction is a 502, charged nothing.
         *     Sandbox keys answer a sample image, free. An embed code (`x-embed-code` or
         *     `x-agent-embed-code`) is taken for the models it is bound to (any other is 403
         *     `embed_model_not_allowed`), with its origins, input rules and caps, as on the model's own
         *     endpoint.
         */
        post: operations["createImage"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the models (OpenAI-compatible)
         * @description The catalog in OpenAI's format: `{"object": "list", "data": [{"id", "object": "model",
         *     "created", "owned_by"}]}`, the id being the model's slug. Every model is listed, whatever
         *     its category (`category` says it): language models are called with `POST
         *     /v1/chat/completions`, text-to-image models with `POST /v1/images/generations`, the others
         *     on their own endpoint (`/api/v1/<slug>`). Public, like `GET /api/v1/models`; in a whitelabel
         *     studio's context, its models only.
         */
        get: operations["listOpenAIModels"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/models/{model}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a model (OpenAI-compatible)
         * @description One model of `GET /v1/models` by its slug; an unknown slug is 404 with OpenAI's error body (`model_not_found`).
         */
        get: operations["getOpenAIModel"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/predictions/{request_id}/result": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the status and outputs of a prediction
         * @description Returns the current state of a generation request. `outputs` holds the URLs of the produced
         *     files once `status` is `completed`; `error` holds the reason once it is `failed`.
         *
         *     State machine:
         *     - `queued`: the request is persisted but the work queue has not yet confirmed it;
         *     - `pending`: the request is in the work queue, waiting for a worker;
         *     - `processing`: a worker is running the model;
         *     - `completed` or `failed`: terminal states (only these are delivered to webhooks, unless
         *       the submit's `webhook_events_filter` also asks for `start`, `progress` or `logs` events).
         *
         *     `queued`, `pending` and `processing` move to `cancelled` (terminal) through `cancelPrediction`.
         *
         *     With an embed code (`x-embed-code` or `x-agent-embed-code`) a visitor reads
         *     only the predictions it made with that code (send back the `X-Embed-Visitor` id the submit
         *     answered); any other id is 404.
         */
        get: operations["getPredictionResult"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/predictions/{request_id}/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Follow a prediction's state changes (Server-Sent Events)
         * @description A `text/event-stream` with one event per state change, the current state first:
         *     `event: <status>` (`queued`, `pending`, `processing`, then `completed`, `failed` or
         *     `cancelled`) and `data:` the body getPredictionResult would return at that moment, plus
         *     `queue_position` (integer, 0 = next to run) and `progress` (number 0..1), each null unless
         *     the prediction is `processing` at a provider that reports it (fal reports its queue
         *     position, Replicate's log its progress, the local models their steps). While processing,
         *     another `processing` event comes each time either changes. With `logs=true`, an
         *     `event: logs` with `data: {"id": "…", "lines": [{"at": "…", "message": "…"}]}` also comes
         *     each time the provider wrote new log lines (the lines already written come first, in one
         *     `logs` event, when the stream opens); it is never the last event.
         *     The stream ends after the terminal state's event; a finished prediction gives that one event
         *     at once. A comment line (`: keep-alive`) comes every 15 seconds; the stream closes after
         *     10 minutes even if the prediction still runs (reconnect to go on). The gateway reads the
         *     prediction again with backoff (0.1 s doubling to 2 s), so a change shows within 2 s.
         *     Same access as getPredictionResult: another owner's id is 404.
         */
        get: operations["streamPrediction"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/payment-webhooks/stripe": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Stripe webhook ingress (called by Stripe, not by clients)
         * @description Where Stripe sends the events of the gateway's account (configure this URL as a webhook
         *     endpoint in Stripe). No credential: the `Stripe-Signature`
         *     header, verified with `STRIPE_WEBHOOK_SECRET` by the Stripe SDK over the exact body bytes
         *     (5 minutes of tolerance), is the proof; a missing or wrong signature is 400. An event of a
         *     connected account (`account` set) or, with a live `STRIPE_SECRET_KEY`, a test-mode one
         *     (`livemode: false`) moves nothing (`ignored`, logged as an error).
         *     `checkout.session.completed` (paid) and `checkout.session.async_payment_succeeded` credit the
         *     account the session names (`client_reference_id` or `metadata.user_id`: the account id;
         *     else the recorded Stripe customer; else the customer's email) with a `purchase` ledger row,
         *     once per Checkout Session. `charge.refunded`, `refund.created` and `refund.updated` (a
         *     succeeded or pending refund) take back the credits of a refunded purchase with a
         *     `payment_refund` row, once per Stripe refund id, whether the refund was made with
         *     adminStripeRefund or in Stripe's dashboard. A refund that fails or is cancelled afterwards
         *     (`refund.failed`, or any of those events with status `failed` or `canceled`) gives the credits
         *     it took back, once (`refund_reversed`); one reported failed before its creation (Stripe does
         *     not keep the order of events) takes nothing when its creation arrives (`duplicate`). A purchase made with createCheckoutSession for a team
         *     credits the team's wallet (`metadata.team_id`). A subscription checkout made with
         *     createCheckoutSession starts the plan named in its metadata on its wallet
         *     (`subscription_started`); `customer.subscription.updated` with another plan's price changes
         *     the plan from the next renewal, and `customer.subscription.deleted` (or a subscription
         *     Stripe reports `canceled`) cancels it. Each later period of such a plan is granted when
         *     `invoice.paid` reports that period's invoice paid, once per period (`subscription_renewed`),
         *     never by the clock; a payment owed (`invoice.payment_failed`, or the subscription `past_due`,
         *     `unpaid`, `incomplete` or `paused`) holds the plan (`subscription_held`) until Stripe reports
         *     it paid (`subscription_resumed`); an event older than the newest one applied to the plan
         *     changes nothing; an event of an earlier Stripe subscription of
         *     the wallet (one whose plan a later checkout started again) is `ignored`. Any other event is answered `ignored`.
         *     `unmatched`: a paid checkout names no account of this gateway, names an erased account or a
         *     deleted team, is in another currency without `metadata.credits`, or buys more credits than
         *     the wallet can hold (2^53 - 1 in all); nothing moves and an error is logged (`stripe_payment_unmatched`) for the operator. 503 naming the variable when `STRIPE_WEBHOOK_SECRET` (or, for
         *     `charge.refunded`, `STRIPE_SECRET_KEY`) is not set, so Stripe retries later.
         */
        post: operations["receiveStripeWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/upstream-webhooks/{provider}/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Provider callback ingress (called by fal, Replicate and WaveSpeed, not by clients)
         * @description Where an upstream provider reports a job's progress when callbacks are on
         *     (`UPSTREAM_CALLBACKS=true`). No credential: the address and the
         *     provider's signature are the proof. `token` is `<prediction id>.<mac>`, the mac an
         *     HMAC-SHA256 keyed by a sub-key of `ENCRYPTION_KEY`, so the address of one prediction's
         *     callbacks cannot be guessed or reused for another. The body must carry the provider's
         *     signature: Replicate's Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
         *     `webhook-signature`, verified with `REPLICATE_WEBHOOK_SECRET`), or fal's ED25519 headers
         *     (`X-Fal-Webhook-Request-Id`, `-User-Id`, `-Timestamp`, `-Signature`, verified with the
         *     keys at `FAL_WEBHOOK_JWKS_URL`), or WaveSpeed's (`webhook-id`, `webhook-timestamp`,
         *     `webhook-signature: v3,<hex HMAC-SHA256>`, verified with `WAVESPEED_WEBHOOK_SECRET`); a
         *     timestamp more than 5 minutes off is refused.
         *     A verified callback makes the worker ask the provider for the job's state at once, through
         *     the same poll step polling uses, so duplicates and callbacks arriving out of order are
         *     harmless and the prediction is finished and charged once. `accepted`: a poll was queued;
         *     `ignored`: the prediction is not running that job any more (finished, cancelled, or a
         *     poll is already on its way).
         */
        post: operations["receiveUpstreamWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/account/balance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the wallet balance
         * @description Returns the remaining credit of the caller's wallet and the credit held by predictions still running (1000 credits = 1 USD). With `team_id` (or a team's API key), the team wallet's (needs `read_balance`).
         */
        get: operations["getBalance"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an API key
         * @description Creates an API key for the caller. The full key value is returned once, in `key`, and cannot be retrieved later. `is_test` true creates a sandbox key that returns mock outputs instantly and is never billed. A sandbox key may only create sandbox keys (403 otherwise). A key created with an OAuth access token carries at most that token's scopes (`scopes`).
         */
        post: operations["createApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/scopes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List OAuth scopes
         * @description Machine-readable list of the scopes an OAuth client may be granted, with what each grants.
         */
        get: operations["listScopes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-authorization-server": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Authorization-server metadata (RFC 8414)
         * @description The OAuth 2.0 authorization-server metadata of this gateway. `issuer` is the gateway's public address; only the client-credentials grant is offered.
         */
        get: operations["getAuthorizationServerMetadata"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-protected-resource": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Protected-resource metadata (RFC 9728)
         * @description The OAuth 2.0 protected-resource metadata of this gateway. A 401 on a bearer-protected route points here with `WWW-Authenticate: Bearer resource_metadata="..."`.
         */
        get: operations["getProtectedResourceMetadata"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/clients": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List OAuth clients
         * @description Lists the caller's OAuth clients. Secrets are never returned here.
         */
        get: operations["listOAuthClients"];
        put?: never;
        /**
         * Create an OAuth client
         * @description Creates a client for the client-credentials grant. `client_secret` is returned once, in this response only. The client's tokens may carry at most the scopes given here. Not available with an API key.
         */
        post: operations["createOAuthClient"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/clients/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an OAuth client
         * @description Deletes the client. All of its outstanding access tokens stop working immediately.
         */
        delete: operations["deleteOAuthClient"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Issue an access token (client credentials)
         * @description OAuth 2.0 token endpoint (RFC 6749 section 4.4), client-credentials grant only. The access token is
         *     used as `Authorization: Bearer <token>` and expires after 1 hour (`expires_in` 3600); request
         *     a new one then. `scope` (space-separated) may narrow the client's allowed scopes; by default
         *     the token carries all of them. The authorization_code grant is not supported.
         *     The client authenticates with HTTP Basic (`client_secret_basic`) or with `client_id` and
         *     `client_secret` in the body (`client_secret_post`). Form-encoded and JSON bodies are accepted.
         */
        post: operations["issueToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Register an account
         * @description Creates an account with an email and a password (at least 8 characters). The email is trimmed and compared case-insensitively, so `Me@Example.com` and `me@example.com` are the same account. An address in the reserved `.invalid` domain, which can never receive mail, is 422. A six-digit one-time code is mailed to the address to verify it (see verifyOtp); the sign-up credit (`SIGNUP_CREDIT`) is granted when the address is verified, once per account. Passwords are stored as scrypt hashes (N=2^15, r=8, p=1). Registrations are rate-limited per client address, before any hashing (`REGISTER_RATE_PER_ADDRESS` per hour, default 10). With `REGISTRATION=closed` only an address holding a pending team invite may register; any other gets 403.
         */
        post: operations["register"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Log in with email and password
         * @description Exchanges email and password for a session token, used as `Authorization: Bearer <token>` on dashboard routes. An unknown email, a wrong password and an account without a password (created by Google sign-in) get the same 401. Failures are rate-limited per (email, client address) and per client address (see TooManyAttempts).
         */
        post: operations["login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Log out
         * @description Ends the session whose token authenticates the request, at once; other sessions of the account stay valid. A dashboard cookie session also has its cookie cleared.
         */
        post: operations["logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Describe the presenting session
         * @description The presenting login session: its account, when it expires, whether it came as the dashboard's cookie and, for a cookie session, the CSRF token that every state-changing request made with that cookie must send in the `X-CSRF-Token` header (403 `csrf_token_invalid` without it). A page loads this first: a 401 means it is signed out. The token is derived from the session and ends with it; it is not a credential on its own.
         */
        get: operations["getSession"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/verify-otp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Verify an email address with a one-time code
         * @description Marks the account's email address as verified when the one-time code sent to it (by register or requestOtp) is correct and unexpired, and grants the sign-up credit the first time the address is verified. Uses the code up. A wrong, expired, used or locked code and an unknown email all get the same 401.
         */
        post: operations["verifyOtp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/request-otp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Request a one-time login code
         * @description Sends a six-digit one-time code to the email address, for loginOtp or verifyOtp. A code expires after 10 minutes, works once, stops working after 5 wrong attempts, and stays valid after the next request until either code is used (mails can arrive out of order; the last two codes are kept, and using one uses up both). The answer is the same whether or not an account exists, so it reveals nothing about registered addresses.
         */
        post: operations["requestOtp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/login-otp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Log in with a one-time code
         * @description Exchanges the email address and a one-time code (from requestOtp) for a session token. Uses the code up and marks the address verified. When this code is the first proof of the mailbox of an account that was never verified, the account is taken back from whoever registered it, in the transaction that uses the code (as resetPassword does for such an account) - its password is removed (resetPassword sets one), every session, API key, OAuth client and token ends, every Google identity linked before is unlinked, and the webhook signing secrets (production and sandbox) are replaced - and the answer's `detail` says so. A wrong, expired, used or locked code and an unknown email all get the same 401.
         */
        post: operations["loginOtp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/forgot-password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a password reset
         * @description Sends a six-digit one-time code for resetPassword to the email address (same rules as requestOtp's codes, but usable only for resetPassword). The answer is the same whether or not an account exists.
         */
        post: operations["forgotPassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/reset-password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reset a password with a one-time code
         * @description Sets a new password when the one-time code from forgotPassword is correct and unexpired, uses the code up and marks the address verified. All sessions of the account are ended; with `revoke_all_credentials` (or always, when the address had never been verified) so are its API keys, personal embed and agent embed codes, OAuth clients and tokens, and the webhook signing secrets (production and sandbox) are replaced. A wrong, expired, used or locked code and an unknown email all get the same 401.
         */
        post: operations["resetPassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/support-login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Log in with a support login token
         * @description Exchanges the single-use token of a support login link (adminSupportLoginLink) for an impersonated session of the linked account on behalf of the staff member who made the link (see virtualLogin), lasting 30 minutes. An unknown token is 404; a used or expired one 410. 403 `impersonation_forbidden` when the link's maker no longer holds the support or admin role, or the account now holds a staff role.
         */
        post: operations["supportLogin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/support-reset-password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reset a password with a support reset token
         * @description Sets a new password with the single-use token of a password reset link (adminPasswordResetLink), ends every session of the account and marks its email address verified (the link reached its owner through staff who checked who they are; the sign-up credit is granted then, once per account, as with verifyOtp). When the address had never been verified before, the account is taken back from whoever registered it, as resetPassword does for such an account: every API key, embed code, OAuth client and token is revoked, the webhook signing secrets (production and sandbox) replaced, Google identities unlinked, personal studios disabled, pending invites revoked and the alert webhook URL removed; the answer's `detail` says so. An unknown token is 404; a used or expired one 410.
         */
        post: operations["supportResetPassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/get-google-url": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the Google sign-in URL
         * @description Returns the URL that starts Google sign-in (OpenID Connect authorization-code flow with `state`, `nonce` and PKCE `S256`; the gateway keeps the state, nonce and code verifier for 10 minutes). Google redirects back to googleCallback with `code` and `state`. Starts are rate-limited per client address (`AUTH_RATE_PER_ADDRESS` per `AUTH_RATE_WINDOW_SECONDS`, default 50 per 15 minutes); past that, the answer is 429 with `Retry-After`. With `session=cookie` it also sets an HttpOnly, `SameSite=Lax` cookie holding the state, for 10 minutes, so that only this browser can finish the sign-in. 503 when Google sign-in is not configured (`GOOGLE_CLIENT_ID`, `GOOGLE_CLIENT_SECRET`) or Google cannot be reached.
         */
        get: operations["getGoogleUrl"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/google_callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Google sign-in callback
         * @description Completes Google sign-in: redeems the code (with the PKCE verifier) at Google and validates the ID token (signature, issuer, audience, expiry, nonce). The account linked to the Google identity signs in; on first sign-in the account with the same email is linked when Google has verified that email (an unverified local account then loses its password and sessions, since whoever set them never proved the address), or else a new account without a password is created. Returns a session token; when the sign-in was started with `session=cookie`, sets the session cookie instead and redirects (302) the browser to the page named at the start (started on a studio's own domain: to googleHandoff on that domain, which sets the cookie there). A cookie sign-in ends only in the browser that started it: getGoogleUrl with `session=cookie` sets an HttpOnly cookie holding the state, which this route (or googleHandoff) requires. A state that is unknown, expired (10 minutes) or already used is 400, and so is a cookie sign-in's callback opened in a browser without that cookie; a code or ID token that does not validate, or an error from Google, is 401.
         */
        get: operations["googleCallback"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/google_handoff": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Finish a Google sign-in on a studio's own domain
         * @description Google returns every sign-in to the gateway's own address, where a cookie cannot reach a whitelabel studio's own domain. A sign-in started with `session=cookie` on a studio's domain therefore ends with googleCallback redirecting the browser here, on that domain, with a single-use code valid for one minute; this route sets the studio's session cookie and redirects (302) to the dashboard, only for the browser that started the sign-in on this domain (it holds the state cookie getGoogleUrl set). A code that is unknown, expired, already used, meant for another studio's domain, or opened in another browser is 400: sign in again.
         */
        get: operations["googleHandoff"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/google/mobile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Google sign-in from a mobile app
         * @description Exchanges a Google ID token obtained by a mobile app for a session token. The token must be signed by a key in the issuer's published key set, issued by `GOOGLE_ISSUER`, for the audience `GOOGLE_CLIENT_ID`, and unexpired; otherwise 401. Accounts are linked or created as in googleCallback.
         */
        post: operations["googleMobileLogin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/cli/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Log in from a command-line tool
         * @description Exchanges email and password for a new production API key, for command-line tools and agents. The key value is returned once. Same checks and rate limits as login.
         */
        post: operations["cliLogin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin_topup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Add credit to a user's wallet
         * @description Adds `amount` credits (1000 credits = 1 USD) to the wallet of the user with `email`, or with `team_id` to that team's wallet (`email` then names a member, recorded on the ledger row), as one `topup` row of the ledger. `reason` is the row's description and goes to the audit log. Roles: billing, admin. Send an `Idempotency-Key`: a retry then tops up once.
         */
        post: operations["adminTopup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin_deduct_credits": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Remove credit from a user's wallet
         * @description Removes `amount` credits from the spendable balance of the user with `email` (or with `team_id` of that team, `email` naming a member) as one `deduction` row of the ledger. Credit held by running predictions is never taken. When the balance is smaller than `amount` the answer is 409 and nothing moves, unless `allow_negative` is true, which lets the balance go below zero (a debt later credit pays first). Roles: billing, admin. Send an `Idempotency-Key`: a retry then deducts once.
         */
        post: operations["adminDeductCredits"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin_user_info": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Look up a user
         * @description Returns the user with `email`: profile, role, wallet (`balance`, `held`), open holds (unfinished predictions and what each holds), the first 100 teams with the user's role (the live ones, then the deleted ones with their `deleted_at`), the 100 newest API keys (never a key value) with `api_key_count` counting every key not revoked, last sign-in, subscription, and the 20 newest rows of the personal ledger. 404 for an unknown email. Roles: support, billing, admin.
         */
        get: operations["adminUserInfo"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin_users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List and search users
         * @description The operator console's user list: every account matching the filters, sorted, 25 a page (at most 100). `q` matches part of the email, or an account id. Filters: `role`, `studio_id` (the studio the account signed up in), `in_team` (members of that team), `verified`, `deleted` (erased accounts). Sorting by `created_at` (default, newest first), `email` or `balance`. `total` counts every match. Roles: support, billing, admin; every call is in the audit log.
         */
        get: operations["adminListUsers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin_user_runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A user's recent runs
         * @description The 20 newest predictions of the user with `email`, whichever wallet paid (their own or a team's), with the provider that ran each and, for a failed one, the provider's error. 404 for an unknown email. Roles: support, billing, admin.
         */
        get: operations["adminUserRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin_stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Totals across the gateway
         * @description The gateway's figures over the last `days` UTC days (today included; default 14, at most 90): accounts (all, verified, erased, new in the window), runs per day by outcome and the credits charged for production runs, and failures per day by model and provider. Roles: support, billing, admin.
         */
        get: operations["adminStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin_failures": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Failed runs with the provider's error
         * @description Failed predictions of the last `days` UTC days (default 7), newest first, 50 a page, with the account, the model, the provider and its model, and the error the provider gave. Filter by `model` or `provider`. Roles: support, billing, admin.
         */
        get: operations["adminFailures"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin_manage_subscription": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Activate, change or cancel a user's subscription
         * @description Sets the subscription plan of the user with `email` (or with `team_id` of that team, `email` naming a member), or cancels it. Plans come from the gateway's configuration (`SUBSCRIPTION_PLANS`): each grants its `credits` at the start of every period as expiring credit, spent before purchased credit. `activate` starts a period now (ending at `current_period_end`, default one period later) and grants its credit at once; 409 when a subscription is already active. `change` takes effect at the next renewal (the current period and its grant stay; the answer shows it as `next_plan`); 409 without an active subscription. `cancel` ends it at once: no further grants, credit already granted stays until it expires; 409 without an active subscription. An unknown plan is 422. Roles: billing, admin. Send an `Idempotency-Key`: a retried activation then grants once.
         */
        post: operations["adminManageSubscription"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin_model_discounts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List model discounts
         * @description Lists model discounts, newest first, expired ones included: every one, 100 at a time (pass the last one's `id` as `before` for the next 100; an empty list is the end), or with `email` all of that user's own wallet, or with `team_id` all of that team's wallet (a wallet has at most one per model and one for `*`). 404 for an unknown email or team. Roles: billing, admin.
         */
        get: operations["listModelDiscounts"];
        put?: never;
        /**
         * Create or update model discounts
         * @description Creates or updates discounts, one per (wallet, model) pair: the wallet of the user with `email`, or with `team_id` that team's (each `email` must then name a member, 404 otherwise). An existing discount for the same pair is replaced (its id kept). `model` is a model endpoint slug (422 for one this gateway does not have) or `*` for every model; `percent_off` 1-100; `expires_at` in the future, or null for never. All or nothing: one bad item and none is stored. Which discount applies to a price: the one on the exact model wins over `*`, the larger percent among equally specific ones; discounts never stack; an expired one is ignored; the discounted price is rounded down to a whole credit, but never below 1 credit (for a list price of at least 1) unless the discount is 100 %. `reason` is stored with each discount and goes to the audit log; in both, an email address in it is written as the account it names, `user:<id>`, or `[address]` (a discount outlives the erasure of a person its reason names; the stored reason is then cut to 255 characters). Roles: billing, admin.
         */
        post: operations["upsertModelDiscounts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin_model_discounts/{discount_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a model discount
         * @description Deletes one discount; later submits pay the list price (or another discount of the wallet that still applies). Predictions already held keep the price they were held at. 404 for an unknown id. Roles: billing, admin.
         */
        delete: operations["deleteModelDiscount"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/my_model_discounts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the caller's model discounts
         * @description Lists the discounts, not expired, of the wallet that pays the caller's predictions: the caller's own, or with `team_id` (or a team's key) the team's. Which one applies to a given price: the discount on the exact model wins over one on every model (`*`), and discounts do not stack; the cost quote (calculateDynamicCost) shows the one applied.
         */
        get: operations["myModelDiscounts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/subscription": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the caller's subscription
         * @description The subscription of the wallet that pays the caller's predictions: the caller's own, or with `team_id` (or a team's key) the team's (needs `read_balance`, like getBalance). The same answer as adminManageSubscription's; `status: none` (and null plan and period) when the wallet never had one. Plans are shown by name only; no route lists the configured plans.
         */
        get: operations["getMySubscription"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/checkout_sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start buying credit or a plan with Stripe Checkout
         * @description Creates a Stripe Checkout Session and answers its payment page (`url`) to send the
         *     browser to. `amount` buys credit for that many of the currency's minor units (cents),
         *     within the operator's limits (`CHECKOUT_MIN_AMOUNT`..`CHECKOUT_MAX_AMOUNT`; getSiteInfo
         *     lists them and the presets), at the configured rate; `plan` buys a subscription plan that
         *     the operator sells online (a plan with a `stripe_price`). For the caller's own wallet, or
         *     with `team_id` a team's (needs `top_up`: owners, admins and billing members). Nothing is
         *     credited here: Stripe's webhook credits the paid checkout once (or starts the plan), and
         *     the browser returns to the billing page with `checkout=done`. On a studio's storefront
         *     only a studio whose users pay for their runs sells credit (403 otherwise). 503 when
         *     payments are not configured (`STRIPE_SECRET_KEY`) or Stripe cannot be reached; 409 when
         *     the wallet already has an active plan.
         */
        post: operations["createCheckoutSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/purchases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the credit bought for a wallet
         * @description The purchases (paid Checkout Sessions) that credited the caller's own wallet, or with `team_id` the team's (`read_balance`), newest first, 25 a page; `before` is the last `id` of the previous page. Refunds show as `refunded_amount` and the credits they took back.
         */
        get: operations["listPurchases"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/invoices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a wallet's Stripe invoices
         * @description The Stripe invoices of the wallet's Stripe customer (the caller's own, or with `team_id` the team's), newest first, at most 24, with links to Stripe's invoice page and PDF. Empty before a first purchase or when payments are not configured; 503 when Stripe cannot be reached.
         */
        get: operations["listInvoices"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/billing_portal_sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Open Stripe's billing portal for a wallet
         * @description Answers the address of a Stripe billing portal session for the wallet's Stripe customer (the caller's own, or with `team_id` the team's, needing `top_up`), where the customer changes or cancels a plan, updates the card and downloads invoices. Changes come back through Stripe's webhook. 409 before a first purchase or plan (there is no customer yet); 503 when payments are not configured or Stripe cannot be reached.
         */
        post: operations["createBillingPortalSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin_stripe_charges": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a user's payment charges
         * @description Lists the card charges Stripe holds for the user with `email`, newest first: the charges of the Stripe customer a completed checkout recorded for the account, or, when none was recorded, of the Stripe customers whose email is exactly the account's (Stripe compares it as written). Each charge says how many credits it bought (`credits`, from the gateway's own record of the purchase; 0 for a charge that bought none here) and how many its refunds took back (`credits_removed`). The newest 1,000 charges per customer (Stripe's pages followed in turn). 404 for an unknown email; 503 naming `STRIPE_SECRET_KEY` when Stripe is not configured, or when Stripe cannot be reached. Roles: support, billing, admin.
         */
        get: operations["adminStripeCharges"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin_stripe_refund": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Refund a payment charge
         * @description Refunds a charge that bought credit on this gateway, fully or `amount` (minor units) of it, through Stripe, and takes back the credits it bought: all of them for the whole charge, in proportion for a part (refunds of one charge together take back exactly what it bought), as one `payment_refund` row of the ledger naming the Stripe refund. When the wallet's balance is smaller than those credits the answer is 409 and nothing is refunded, unless `allow_negative` is true (the balance then goes below zero: a debt later credit pays first). 404 when Stripe does not know the charge or no purchase of credit is recorded for it; 409 when it is already refunded, `amount` is more than what is left, or Stripe refuses the refund. The refund is sent to Stripe with an idempotency key derived from this request's `Idempotency-Key` (or, without one, from the charge, the amount and what Stripe had refunded of it), and recorded once per Stripe refund id, so the `charge.refunded` webhook that follows does not take the credits twice. 503 naming `STRIPE_SECRET_KEY` when Stripe is not configured. Roles: billing, admin.
         */
        post: operations["adminStripeRefund"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin_refund": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Refund the credits of a prediction
         * @description Returns credits charged for one prediction to the wallet that paid it (the user's, or the team's for a team prediction) as a `refund` row of the ledger naming the prediction. `amount` defaults to what is left to refund; several partial refunds are allowed, together at most what the prediction was charged (409 beyond that, and for a prediction that was never charged: unfinished, failed, cancelled or sandbox). 404 for an unknown `request_id`. A whitelabel studio's `end_user_pays` run: the studio owner gives back its markup in the same proportion, in the same transaction (a negative `studio_revenue` row). Roles: billing, admin, and support for refunds of at most 5000 credits (5 USD) per call (403 `role_required` above). Send an `Idempotency-Key`: a retry then refunds once.
         */
        post: operations["adminRefund"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/virtual_login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Open a session as another user
         * @description Opens a session acting as the user with `email` on behalf of the calling staff member, so they can see the dashboard as that user, and answers its token as `text/plain` (shown once: only its SHA-256 is stored). The session lasts `minutes` (1 to 60, default 30). `reason` is required and recorded. Never for oneself, nor for an account holding a staff role (support, billing, admin): 403 `impersonation_forbidden`. While it lasts, every request made with it is recorded in the audit log with both identities (actor: the staff member; target: the user; credential `impersonation`), every answer carries `X-Impersonated-By: <staff user id>`, and whatever could outlive the session or hand others a way in is refused (403 `impersonation_forbidden`): every API key, OAuth client and embed code operation (reads included), the webhook signing secret, team membership (invites, accepting one, roles, removal, leaving, deleting a team), studios' creation and settings, exporting or deleting the account, and every administrative operation. The session may read and use the account as its owner would: generate, follow and cancel predictions, read history, ledger and balance, manage media, LoRAs and reviews. Each operation's `x-impersonation` (`allowed` or `forbidden`) says which. `team_id` is ignored.
         */
        post: operations["virtualLogin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin_support_login_link": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a support login link
         * @description Creates a single-use link, valid 15 minutes, that logs its holder in as the user with `email` (through supportLogin) in an impersonated session of the staff member who made it (see virtualLogin: the same limits, audit and refusals). `url` is `PUBLIC_URL/dashboard#/support-login?token=…`; the token is random (256 bits) and stored as its SHA-256 only. `reason` is required. Never for oneself nor for a staff account (403 `impersonation_forbidden`). `team_id` is ignored.
         */
        post: operations["adminSupportLoginLink"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin_password_reset_link": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a password reset link
         * @description Creates a single-use link, valid 60 minutes, with which the user with `email` sets a new password (through supportResetPassword). `url` is `PUBLIC_URL/dashboard#/support-reset-password?token=…`; the token is random (256 bits) and stored as its SHA-256 only. `reason` is required. Not for a staff account (support, billing, admin), one's own included (403 `impersonation_forbidden`). `team_id` is ignored.
         */
        post: operations["adminPasswordResetLink"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin_delete_user": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Delete a user permanently
         * @description Permanently erases the account of the user with `email` at once, with the eraser the retention job uses after a requested deletion's grace period: API keys, sessions, OAuth clients and their tokens, personal predictions and their stored files, media library and uploads, team memberships, invitations, personal embed codes, support links. The users row stays as an anonymised tombstone and every ledger and audit row is kept. 409 when the user is the only owner of a team (until ownership moves) and when it is the last administrator. Cannot be undone. `team_id` is ignored.
         */
        post: operations["adminDeleteUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin_audit_log": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the audit log of administrative calls
         * @description Every call of an operation with `x-required-role` by a signed-in caller is recorded: who (user, role, credential), the operation, the target user or team, the query and body with secrets redacted, `reason`, the answer's status (refusals by role included), client address, request id and time. Records are never updated or deleted. Newest first, filtered by actor, target, action and time range, 50 per page. Roles: admin.
         */
        get: operations["adminAuditLog"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin_usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Usage across all accounts by day, model and provider
         * @description Runs, failures and spend of every account for each UTC day from `from` to `to` (both included, at most 366 days), grouped by one or two of `day`, `model` and `provider` (the upstream provider that ran the prediction; null for the gateway's local models and runs that never reached one). `runs` counts production predictions submitted, `failed_runs` those of them that failed, `sandbox_runs` the free sandbox ones; `spend` is the credits charged less the credits refunded, read from every wallet's ledger. Credits: 1000 = 1 USD. Roles: support, billing, admin.
         */
        get: operations["adminUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin_model_margins": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Revenue, provider cost and margin by model and day
         * @description For each model and UTC day from `from` to `to` (both included, at most 366 days): the runs a provider (or the gateway itself) made, how many completed and were charged, the credits the gateway was paid (`revenue`: the charges less any studio owner's markup), what the providers charged for them (`provider_cost`: the cost a provider's answer reports, else the model's declared provider cost rule), and `margin` (`revenue` - `provider_cost`). A run whose provider cost is unknown counts in `unknown_cost_runs` and adds nothing to `provider_cost`. A run the provider finished that the gateway then failed counts its cost with no revenue. Sandbox runs are not counted. Credits: 1000 = 1 USD. Roles: billing, admin.
         */
        get: operations["adminModelMargins"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/admin_reload_catalog": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reload the model catalog without a restart
         * @description Reads the shipped model files and MODELS_DIR again and, when they load, makes the new catalog the one in use, in this process and (through RabbitMQ) in every API and worker process of the deployment; sending SIGHUP to a process does the same. Requests already in progress finish on the catalog they started with. New models answer at once; a removed model answers 404. A catalog that does not load changes nothing: 422 with the reason, naming the file and the key, as start-up would. The root openapi.yaml (routes, security, the parts every model endpoint shares) and an existing model's route settings (security, parameters, rate limit, team permission) apply at start-up only: a reload that changes them is refused with 422, and a restart applies them. Role: admin.
         */
        post: operations["adminReloadCatalog"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/lora-data": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get one LoRA
         * @description Returns the public registry entry of one LoRA by name and type. Public,
         *     like the model list: entries a user or team registered for itself (`POST /app/loras`)
         *     are never shown here; their owners list them with `GET /app/loras`. An unknown name, or
         *     a name of another type, is 404.
         */
        get: operations["getLoraData"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/lora-models-data": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List LoRAs
         * @description Lists the public LoRAs of one type, 20 a page, ordered by name; `q` matches name, title
         *     and trigger words (case-insensitive substring). A page past the end is an empty `items`
         *     with `has_more: false`; `page` 0 is 422.
         */
        get: operations["getLoraModelsData"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/loras": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the caller's own LoRAs
         * @description The LoRAs the caller (or the team named by `team_id`, with `read_history`) registered,
         *     20 a page, ordered by name; `lora_type` and `q` filter as in getLoraModelsData. A page
         *     past the end is an empty `items`; `page` 0 is 422.
         */
        get: operations["listOwnLoras"];
        put?: never;
        /**
         * Register a LoRA
         * @description Registers a LoRA owned by the caller (or by the team named by `team_id`, which needs the
         *     `generate` permission). It is usable as a `loras` entry of the model families whose
         *     `base_model` it names, by its owner only; it never appears in the public registry
         *     (getLoraData, getLoraModelsData). A name is unique per owner (409 when taken); an owner
         *     may reuse the name of a public LoRA, and then its own entry wins at submit.
         */
        post: operations["createLora"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/site": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What a sign-in page needs to know about this site
         * @description Public. The site a browser is on: the gateway itself, or a whitelabel studio's storefront (in the studio's context: its domain or `x-whitelabel-studio`), with the studio's name and branding and who pays for its runs; whether new accounts may register here; which sign-in methods are offered; and whether credit can be bought here, with the operator's presets and limits. Nothing in it is secret, and it names no other studio. A disabled studio's storefront still answers (`disabled: true`): its users may only sign in, export their account and delete it there, so it offers no registration, no Google sign-in and nothing for sale.
         */
        get: operations["getSiteInfo"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/user_details": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the caller's profile
         * @description Returns the caller's profile and wallet balance.
         */
        get: operations["getUserDetails"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/generate-api-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create an API key (dashboard)
         * @description Same as createApiKey, for the dashboard. The full key value is returned once, in `key`.
         */
        post: operations["generateApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/get_user_keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List API keys
         * @description Lists the caller's API keys, newest first. Key values are never returned; `prefix` identifies a key.
         */
        get: operations["getUserKeys"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/delete_api_keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API key
         * @description Deletes one of the caller's API keys; requests carrying it are refused at once.
         */
        delete: operations["deleteApiKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/update_api_key/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Change an API key's name, IP restriction, expiry, spend limit or generation limits
         * @description Updates one of the caller's personal keys (team keys: the team key routes); an absent
         *     field is left as it is.
         *     - `ip_whitelist` replaces the list (IPv4/IPv6 addresses and CIDR ranges, at most 50,
         *       stored normalised: `::ffff:1.2.3.4` as `1.2.3.4`, `10.1.2.3/8` as `10.0.0.0/8`,
         *       duplicates dropped). An empty list removes the restriction. An invalid entry is 422
         *       with `loc` `["body", "ip_whitelist", <index>]`. A request with a key from an address
         *       outside its list is 403 before any rate-limit counter or credit hold moves.
         *     - `expires_at`: after it the key answers 401 `api_key_expired`; null removes it. A past
         *       instant is 422.
         *     - `spend_limit` (credits) per `spend_limit_period` (`day` or `month`, UTC): a submit
         *       whose price would take the key's spend in the period past it is 402
         *       `key_spend_limit_exceeded` (held and settled prices count; failed and cancelled ones
         *       do not). null removes it.
         *     - `rate_limit_per_minute` and `max_concurrent`: the key's own generation limits; null
         *       returns to the gateway's defaults. A call made with an API key may not set them above
         *       its own (403).
         *     No credential widens itself: when the call is made with an API key, the key may not
         *     remove or widen the IP restriction of any key beyond its own list (403), and on itself
         *     it may only narrow: it may not remove or postpone its own expiry, nor remove or raise
         *     its own spend limit or lengthen its period (403). A session or an OAuth token with
         *     `keys:manage` may change anything. A sandbox key updates only sandbox keys. Another
         *     account's key, a team's key or a revoked key is 404.
         */
        put: operations["updateApiKey"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/api_keys/{key_id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Give an API key a new secret, keeping the old one for a grace period
         * @description Replaces the key's secret with a new one, shown once in the answer; the key keeps its id,
         *     name, restrictions, limits, spend so far and history. The replaced secret keeps working
         *     for `grace_seconds` (default one day, at most 30 days; 0 ends it at once), so a deployment
         *     can switch to the new secret without downtime; after that it is refused with 401
         *     `api_key_expired`. Rotating again during a grace period ends the older secret at once.
         *     A sandbox key rotates only sandbox keys. Another account's key, a team's key or a revoked key is 404.
         */
        post: operations["rotateApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/account/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Export the caller's account data
         * @description Returns everything the gateway holds about the caller as one JSON document: the profile (`user`), the personal wallet (`balance`) and its
         *     alert settings, live personal API keys (never their values or digests), OAuth clients (never their secrets),
         *     team memberships, personal embed codes (never the code itself), whitelabel studios, the subscription and
         *     model discounts, and every personal ledger row, prediction (with its input and output
         *     URLs; those hidden by bulk_delete too, with `outputs_expired`), media asset, LoRA and alert (with its
         *     webhook deliveries), oldest first. The key, OAuth client, embed code and studio lists are empty for a credential without `keys:manage`
         *     (an OAuth token with `account:read` alone), as getUserKeys, listOAuthClients, listEmbedCodes and listStudios refuse it. Personal data only: a team's wallet, keys, embed codes, studios, subscription, discounts, predictions and assets belong to the
         *     team (its members read them through the team routes), so they are not in it; a
         *     membership is. No hash, digest, sealed secret or token is ever included.
         *     The body is streamed (`Content-Disposition: attachment; filename="mediagate-export-<YYYY-MM-DD>.json"`)
         *     and read from the database in pages of 500 rows (and at most 8 MiB of prediction inputs, outputs and logs), so a large account exports in bounded
         *     memory; it is not a point-in-time snapshot (a prediction finishing during the export may
         *     appear in either state). If the database fails mid-way the connection is cut, so a
         *     truncated body never parses as a complete export. A sandbox key exports sandbox
         *     predictions only, and no alerts; a team key is 403 (an export is personal).
         */
        get: operations["exportAccount"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/account/request-deletion": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Request deletion of the caller's account
         * @description Schedules the caller's account for permanent deletion after a grace period (ACCOUNT_DELETION_GRACE_DAYS, default 14). From the request on, the account's API keys and OAuth clients are refused (401); it can still sign in and cancel with cancelAccountDeletion. When the period ends, the account's profile, credentials, personal predictions with their files, and memberships are erased; ledger rows are kept, anonymised. 409 when a deletion is already scheduled, or while the caller is the only owner of a team (the message names the teams; ownership must move first). Session only: deleting an account is not an API action, so no OAuth scope grants it (account:read is read-only) and an API key, which acts with exactly the five scopes, may not either.
         */
        post: operations["requestAccountDeletion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/account/cancel-deletion": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a scheduled account deletion
         * @description Cancels the pending deletion of the caller's account. 409 when no deletion is scheduled. Session only: deleting an account is not an API action, so no OAuth scope grants it (account:read is read-only) and an API key, which acts with exactly the five scopes, may not either.
         */
        post: operations["cancelAccountDeletion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/account/staff-access": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the times staff acted on the caller's account
         * @description Every time a staff member (support, billing, admin) acted on or for the caller's personal account, newest first, read from the audit log of administrative calls (which is never updated or deleted): impersonated sessions opened with virtualLogin (`impersonation`) or a support login link (`support_login`), support login links and password reset links made for the account (`support_login_link`, `password_reset_link`), a password set through such a link (`password_reset`), and changes to the personal wallet: credit added (`credit`) or removed (`debit`), a prediction refunded (`refund`), a model discount set or removed (`discount_set`, `discount_removed`). Only calls that succeeded are listed, and only those on the personal account (a team wallet's credit is not). Each entry names the staff member's role and the reason they gave, never who they are, and never a token, link or other secret. For an impersonated session, `expires_at` is when it ends at the latest and `ended_at` when it was ended early (signing out, a password change), where the session is still on record. Requests made inside an impersonated session are not listed one by one. Refused to an impersonated session (403 `impersonation_forbidden`): staff acting as the user can neither read nor hide it. Personal only: a team API key is 403 and `team_id` is 422. A page past the end is an empty list.
         */
        get: operations["listStaffAccess"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/get-task-data": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get one model's catalogue entry
         * @description Returns the catalogue entry of one model endpoint, including its input schema and price rule (the same data as its entry in `GET /api/v1/models`). An unknown slug is 404.
         */
        get: operations["getTaskData"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/calculate_dynamic_cost": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Calculate the cost of a generation
         * @description Quotes what a submit of `input` to `model` would hold, without submitting it: the same price function the submit uses, after the same validation
         *     and defaults (`input` is validated against the model's input schema: a bad input is 422
         *     with `loc` `["body", "input", ...]`; an unknown model 404). `breakdown` shows the steps;
         *     `discount` is the paying wallet's discount applied (null when none), and
         *     `cost` the price after it, rounded down to a whole credit (never below 1 credit for a
         *     list price of at least 1, unless the discount is 100 %). `balance`
         *     is the spendable balance of the wallet that would pay (the team's with `team_id`, which
         *     needs `read_balance`), and `affordable` whether it covers `cost`. A production key pays
         *     `cost`; a sandbox key pays nothing.
         */
        post: operations["calculateDynamicCost"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/get_file_upload_url": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get an upload address
         * @description Returns a short-lived address to which the file is uploaded with one PUT, and the URL of the stored file on service-hosted storage (usable as `image_url`, `video_url` or `audio_url` input). The filename's extension selects the content type (png, jpg/jpeg, webp, gif; mp4, webm, mov; mp3, wav, ogg, m4a, flac; anything else is 422), and the media type its size limit (`max_bytes`; defaults 20 MiB image, 500 MiB video, 100 MiB audio). The PUT must send `content-type` exactly as in `headers` and at most `max_bytes` (exactly `size_bytes` when given). On the gateway's own storage the address is single-use: another content type is 415, a larger body 413, a second PUT 409, a PUT after `expires_at` 410, an unknown address 404. On S3-compatible storage the address is presigned by the store, which refuses a mismatch itself (its own 403); without `size_bytes` the store cannot bound the size, so the gateway reads the object when the upload is registered or its `file_url` fetched, and removes one over `max_bytes` or of another content type (the fetch is then 404). Once uploaded, register the file with createMediaAsset (`url` = `file_url`) to see it in the media library and keep it: an upload no media library takes (one used only as an input) is removed after `UPLOAD_RETENTION_DAYS` (default 30). Team uploads need the `generate` permission.
         */
        get: operations["getFileUploadUrl"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/media-library": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the media library
         * @description Lists the caller's (or, with `team_id`, the team's) media assets, newest first, optionally filtered by media type and a search term; `total` counts every match. A page past the end is empty. Team libraries need the `read_history` permission.
         */
        get: operations["listMediaAssets"];
        put?: never;
        /**
         * Add a file to the media library
         * @description Records a file (typically one uploaded through getFileUploadUrl, or a prediction output) in the caller's media library. An upload is registered by its `file_url` once its PUT completed: the gateway reads its size and content type from storage (the body's `content_type` and `size_bytes` are then ignored); an upload address of another owner, or one not uploaded yet, is 404; one already registered is 409; on S3-compatible storage an object larger than the upload's limit is removed and refused with 413, one of another content type with 415. Any other `url` is recorded as given (a reference: the gateway stores nothing). Team assets need the `generate` permission.
         */
        post: operations["createMediaAsset"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/media-library/{asset_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a file from the media library
         * @description Deletes one of the caller's media assets. An asset registered from an upload owns its file: the file is removed from storage too, and its URL stops serving. A prediction output or an external URL is left where it is (outputs follow the retention policy). Another owner's asset is 404. Team assets need the `generate` permission.
         */
        delete: operations["deleteMediaAsset"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/get_homepage_models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the featured models
         * @description Lists the models featured on the dashboard home page: one per category and tier (the
         *     first available one in spec order, else the first), in spec order, with price rules but
         *     without input schemas (getTaskData has them). Built from the same entries as
         *     `GET /api/v1/models`.
         */
        get: operations["getHomepageModels"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/get_model_name_for_embedcode": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Resolve an embed code
         * @description Returns the model an embed code (`emb_…` or `aemb_…`, a public widget identifier) is bound
         *     to, and what a widget needs to draw its form: `input_schema` is the part of the model's
         *     input schema a visitor may set (without the fields the owner locked or preset, and only the
         *     allowed fields when the code restricts them). An agent embed code lists every bound model
         *     in `models` (the first is also in `name`). Never the owner's identity or balance. The
         *     code's allowed origins apply (403 `embed_origin_not_allowed`, `embed_origin_missing`); an
         *     unknown or revoked code, or a team's code after the team's deletion, is 404. The code is
         *     matched as written: changing the case of a letter makes another, unknown, code. A personal
         *     code whose account is scheduled for deletion is refused as a submit with it is (401
         *     `embed_code_invalid`), until the owner cancels the deletion. A code never runs in a
         *     whitelabel studio's context (the `x-whitelabel-studio` header, or one of a studio's domains
         *     as `Host`), so resolving it there is refused as a submit there is (403 `studio_forbidden`),
         *     after the checks above; outside any studio, a personal code of a studio's user is 403
         *     `studio_required`. Answers carry CORS headers naming the request's origin when the code
         *     allows it.
         */
        get: operations["getModelNameForEmbedcode"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/embed-codes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List embed codes
         * @description The owner's embed and agent embed codes, newest first, revoked ones included (with `revoked_at`).
         */
        get: operations["listEmbedCodes"];
        put?: never;
        /**
         * Create an embed code
         * @description Creates a publishable credential for a web page: `kind: embed` (`emb_…`,
         *     sent as `x-embed-code`) runs exactly one model endpoint, `kind: agent_embed` (`aemb_…`,
         *     sent as `x-agent-embed-code`) a list of them. Runs are charged to the owner's wallet (the
         *     team's with `team_id`, which needs `manage_keys`). Unknown models, invalid origins, a
         *     model embed with more than one model, or a locked field the model does not declare are 422.
         *     A whitelabel studio's users run models only within their studio, so they cannot create
         *     codes (403 `forbidden`); a code one of them made earlier is refused with 403 `studio_required`.
         *     No credential widens itself through a code: an API key with a limit a code cannot carry
         *     (its own `rate_limit_per_minute` or `max_concurrent` below the gateway's default, a spend
         *     limit, an `ip_whitelist`, an expiry, or scopes without `generate:write` and
         *     `generate:read`), or an OAuth token without those two scopes, is 403 `forbidden` naming
         *     them; a session, or a key without such limits, may create it.
         */
        post: operations["createEmbedCode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/embed-codes/{embed_code_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The code's `id`. */
                embed_code_id: number;
            };
            cookie?: never;
        };
        /**
         * Get an embed code
         * @description One of the owner's codes; another owner's id is 404.
         */
        get: operations["getEmbedCode"];
        put?: never;
        post?: never;
        /**
         * Revoke an embed code
         * @description The code is refused from its next request on (401 `embed_code_invalid`). Revoking a revoked code changes nothing.
         */
        delete: operations["revokeEmbedCode"];
        options?: never;
        head?: never;
        /**
         * Change an embed code's settings
         * @description Changes any of the settings; the code itself and its kind stay. A revoked code is 404. Takes effect on the next request. A credential that may not create a code (an API key with limits a code cannot carry, an OAuth token without `generate:write` and `generate:read`: see createEmbedCode) may not change one either (403 `forbidden`), though it may revoke one.
         */
        patch: operations["updateEmbedCode"];
        trace?: never;
    };
    "/app/studios": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List whitelabel studios
         * @description The owner's studios, newest first, disabled ones included (with `disabled_at`).
         */
        get: operations["listStudios"];
        put?: never;
        /**
         * Create a whitelabel studio
         * @description Creates a whitelabel studio: a branded storefront of this gateway
         *     whose end users register and sign in within it (`x-whitelabel-studio: <slug>` on /auth routes, or a
         *     request whose `Host` is one of its verified `domains`). `slug` is lowercase letters, digits and `-` (3–40,
         *     unique: 409 when taken); `domains` are hostnames, each serving the studio once a DNS TXT record
         *     proves the owner controls it (`domain_verification` gives the record; `POST
         *     /app/studios/{studio_id}/verify-domains` checks it); `allowed_models`
         *     are model endpoint slugs (422 for an unknown one); the studio price of a run is the list price plus
         *     `markup_percent`, or `model_prices[model]` (credits per run) where set, never below the list price.
         *     `payer_mode`: `owner_pays` (the owner's wallet is charged the list price for every end user's run)
         *     or `end_user_pays` (the end user's wallet is charged the studio price and the owner's wallet is
         *     credited the markup, a `studio_revenue` ledger row of the same prediction). With `team_id` the team
         *     owns it (`manage_keys`).
         */
        post: operations["createStudio"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/studios/{studio_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The studio's `id`. */
                studio_id: number;
            };
            cookie?: never;
        };
        /**
         * Get a whitelabel studio
         * @description One of the owner's studios; another owner's id is 404.
         */
        get: operations["getStudio"];
        put?: never;
        post?: never;
        /**
         * Disable a whitelabel studio
         * @description From its next request on, the studio serves nothing but what lets its end users take their data and leave, by its slug only (its domains are freed): signing in (password, one-time code, password reset), their session, exportAccount, and requesting or cancelling their account's deletion. Everything else in its context is 403 `studio_disabled`, registration and runs included. Its history stays. Disabling a disabled studio changes nothing.
         */
        delete: operations["disableStudio"];
        options?: never;
        head?: never;
        /**
         * Change a whitelabel studio
         * @description Changes any setting but the slug; a disabled studio is 404. Takes effect on the next request.
         */
        patch: operations["updateStudio"];
        trace?: never;
    };
    "/app/studios/{studio_id}/verify-domains": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The studio's `id`. */
                studio_id: number;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Verify a studio's domains
         * @description Looks up the DNS TXT record of each of the studio's domains that does not serve it yet
         *     (`domain_verification[].record`: the name `_mediagate-challenge.<domain>`, the value
         *     `mediagate-domain-verification=<token>`, the token being this studio's own for that domain).
         *     Each domain whose record is found serves the studio from the next request (`status:
         *     verified`), taken over from any studio it served before: whoever controls the domain's DNS now
         *     decides, and that studio's entry then says so. Each other one stays `pending`, with `problem`
         *     saying what was found (no record yet, other values, or a failed lookup). The record may be
         *     removed once verified. A disabled studio is 404. Point the domain itself (a CNAME or A
         *     record) at this gateway as well: the check proves control, it does not route traffic.
         */
        post: operations["verifyStudioDomains"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/studios/{studio_id}/usage": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The studio's `id`. */
                studio_id: number;
            };
            cookie?: never;
        };
        /**
         * A studio's usage and revenue
         * @description The studio's production runs (predictions made in its context that were not failed or cancelled)
         *     created in [`from`, `to`) (default: the last 30 days, UTC): how many, what they cost the paying
         *     wallets (`spend`), and the owner's `revenue` (the `studio_revenue` credited, `end_user_pays`),
         *     in total, by UTC day and by model.
         */
        get: operations["getStudioUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Usage by day, model, API key or source
         * @description Runs and spend of the caller's wallet (or, with `team_id`, the team's) for each UTC day from `from` to `to` (both included, at most 366 days; by default the last 30 days up to today), grouped by one or two of `day`, `model`, `api_key` and `source` (`group_by=day,model` gives one row per day and model, for a chart of spend per day stacked by model). `runs` counts the production predictions submitted that day (`failed_runs` of them failed) and `sandbox_runs` the free sandbox ones; `spend` is the credits charged that day less the credits refunded, read from the ledger, so the totals over a range equal the ledger's charges less refunds in it to the credit. A sandbox API key sees its sandbox runs only and no spend. Groups with nothing in them are left out; rows are sorted by their groups. Credits: 1000 = 1 USD.
         */
        get: operations["getUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/alert_settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read the alert and budget settings
         * @description The low-balance threshold, the monthly budget and its mode, and the alert webhook URL of the caller's wallet (or, with `team_id`, the team's). Null: not set.
         */
        get: operations["getAlertSettings"];
        /**
         * Set the alert and budget settings
         * @description Sets every setting of the wallet (a field left out or null turns it off). `low_balance_threshold`: an alert when a submit leaves the spendable balance below it; it goes out once, and again only after the balance is back at or above it (any credit that brings it there, such as a purchase or a top-up, re-arms it). `monthly_budget`: an alert when the credits committed this UTC month (held or charged) reach it, once a month; with `monthly_budget_mode` `hard`, a submit whose price would take the month past the budget is also refused with 402 `budget_exceeded`, and nothing is held; the refusal names the budget to the wallet's own callers only (a user of the owner's `owner_pays` studio, or a visitor of its embed code, is told only that the paying account reached its monthly budget). Alerts are mailed to the account's owner (for a team: its owners, admins and billing members). `webhook_url`: each alert is also sent there as a signed webhook event (`alert.low_balance`, `alert.monthly_budget`, `alert.key_soft_limit`), retried and listed in the delivery log like a prediction's webhook; it must be `https://` and a public destination, as a submit's `webhook`.
         */
        put: operations["updateAlertSettings"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/alert_settings/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a signed test alert to the alert webhook URL
         * @description Sends one `alert.test` event at once to `url`, or when it is left out to the wallet's saved `webhook_url`, signed like every alert's delivery with the current production signing secret (the account's, or with `team_id` the team's). Its body has the shape of a real alert event, with a sample low-balance alert (its `id` is null: nothing was recorded). One attempt, no retries, nothing recorded; the answer says what the receiver answered. The URL is checked as a submit's `webhook` is. Test alerts and `POST /app/webhook_test` events together: at most 10 a minute per account (or team); past that, 429 with `Retry-After`. A sandbox key is refused (403): it never gets a signature made with the production secret.
         */
        post: operations["sendAlertTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/alerts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the alerts sent
         * @description The alerts sent for the caller's wallet (or, with `team_id`, the team's) and its keys, newest first, the last 100: which line was crossed (`kind`), in which period, the line (`threshold`) and the value that crossed it, in credits.
         */
        get: operations["listAlerts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/credit_transactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List credit transactions
         * @description The ledger of the caller's wallet (or, with `team_id`, the team's): every credit move (sign-up credit, top-ups, prediction charges, refunds, admin adjustments, ...) with its amount and the balance after it, newest first. The ledger is append-only: deleting predictions from the run history leaves their rows here. A page past the end is an empty list.
         */
        get: operations["listCreditTransactions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/get_run_history_data": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List past predictions
         * @description Lists the caller's predictions (or, with `team_id`, the team's, whoever submitted them), newest first, optionally filtered by review status. Each entry says where it came from (`source`) and which API key submitted it (id and name, never the secret). Predictions removed with bulk_delete are not listed. A sandbox API key sees sandbox predictions only. A page past the end is an empty list. With `include_count` false, `total` is null. `total` is exact; without a filter it comes from a per-owner counter and costs the same at any history size; a filter counts its matches, which costs more on a large history.
         */
        get: operations["getRunHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/get_run_history_data_by_search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Search past predictions
         * @description Lists the caller's (or, with `team_id`, the team's) predictions matching every given filter, newest first, as getRunHistory does. `q` is a case-insensitive substring of the request id, the model or the input (the prompt and the other input fields); `created_at` is a UTC day.
         */
        get: operations["searchRunHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/get_gallery_data": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List generated files
         * @description Lists the output files of the caller's (or, with `team_id`, the team's) completed predictions whose files are still stored, newest first, one item per file. A page holds the files of `page_size` predictions (most models make one file each), and `total` counts those predictions. `media_type` is the model's output kind. Predictions reviewed `rejected` are hidden unless `review_status=rejected` asks for them; deleted ones (bulk_delete) and those whose files retention removed are never listed. Outputs are never blacked out: a `flagged` item is listed with its URL and `has_nsfw_content`.
         */
        get: operations["getGallery"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/usage_logs/{id}/review_status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Set the review status of a prediction
         * @description Sets the review status of one of the caller's (or, with `team_id`, the team's) predictions and records who set it and when. Any status may follow any other. An unknown id, another owner's, or a deleted prediction is 404.
         */
        patch: operations["updateReviewStatus"];
        trace?: never;
    };
    "/app/usage_logs/bulk_review_status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Set the review status of several predictions
         * @description Sets one review status on 1-100 of the caller's (or, with `team_id`, the team's) predictions, recording who and when. Ids that do not exist, belong to someone else or were deleted are skipped and listed in `skipped`; the batch is never refused for them.
         */
        patch: operations["bulkUpdateReviewStatus"];
        trace?: never;
    };
    "/app/usage_logs/bulk_delete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Delete several predictions from the run history
         * @description Deletes 1-100 of the caller's (or, with `team_id`, the team's) finished predictions (completed, failed or cancelled): their output files are removed from storage and they disappear from the run history and the gallery. The ledger rows stay (money history is never deleted), and getPredictionResult / prediction_response still answer for the id, with `outputs_expired` true and no URLs. Unknown ids, other owners' ids and ids already deleted are skipped and listed in `skipped`. If any of the ids is still running (queued, pending or processing) the whole batch is refused with 409 naming them and nothing is deleted: cancel them first (POST /app/cancel_prediction/{request_id}).
         */
        post: operations["bulkDeleteUsageLogs"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/prediction_response/{request_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the full record of a prediction
         * @description Returns one of the caller's predictions with its input, outputs, cost and timings.
         */
        get: operations["getPredictionResponse"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/webhook_secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get the webhook signing secret
         * @description The account's Standard Webhooks signing secret, created on first use. Deliveries of the account's personal predictions are signed with it (and, for 24 hours after a rotation, also with the previous one). With `team_id` (or a team's API key), the team's own secret, which signs every delivery of the team's predictions whoever submitted them (needs `manage_keys`). Each owner has two secrets: the production one signs production predictions' and alerts' deliveries, the sandbox one signs sandbox predictions' deliveries only. A sandbox API key always gets the sandbox secret; anyone else gets the production one, or the sandbox one with `sandbox=true`. `sandbox` in the answer says which it is.
         */
        get: operations["getWebhookSecret"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/webhook_secret/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate the webhook signing secret
         * @description Issues a new secret: the account's, or with `team_id` (or a team's API key) the team's (needs `manage_keys`). For 24 hours every delivery carries signatures by both the new and the previous secret (space-separated in `webhook-signature`), so receivers can switch without downtime. Only the secret it replaces keeps signing; every older one is dropped, so a delivery never carries more than two signatures. Rotates the production secret, or with `sandbox=true` the sandbox one; the other is unchanged. A sandbox API key always rotates the sandbox secret, never the production one.
         */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/webhook_test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a signed test event to a webhook URL
         * @description Sends one `webhook.test` event to `url` at once, signed like every delivery with the current signing secret (the account's, or with `team_id` or a team's API key the team's, needs `manage_keys`): the production one, or with `sandbox=true` the sandbox one, which signs sandbox predictions' deliveries; a sandbox API key always signs with the sandbox secret (`sandbox=false` from it is refused, 403). The event's `message` names the secret that signed it. A receiver that verifies its signature is ready for real deliveries. One attempt, no retries, nothing recorded; the answer says what the receiver answered (its status code, or why it could not be reached) and how long it took. The URL is checked as a submit's `webhook` is: `https://` and a public destination. At most 10 test events a minute per account (or team); past that, 429 with `Retry-After`.
         */
        post: operations["sendWebhookTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/webhook_deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The delivery log of every webhook
         * @description Every webhook delivery of the account's predictions and alerts (with `team_id`, of the team's; needs `read_history`), newest first, each with its `event_type` and every attempt: when it was made, the receiver's HTTP status or why it could not be reached, the first 512 bytes of its answer, and how long it took. `status` keeps one kind (`dead` lists what needs attention; `POST /app/webhook_deliveries/{id}/redeliver` sends one again). Pages of `limit`; the next page is asked for with `before` set to the answer's `next_before`. A sandbox API key sees only the deliveries of sandbox predictions. With `team_id`, a member whose role lacks `read_balance` (viewer) sees only the deliveries of the team's predictions, none of its alerts (which tell when its balance or spending crossed a line, as `listAlerts` would); so does a credential without `account:read` (an OAuth token or an API key restricted to `generate:read`).
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/webhook_deliveries/redeliver_dead": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send every dead webhook delivery since a time again
         * @description After a receiver's outage: every `dead` delivery of the account's predictions and alerts (with `team_id`, of the team's; needs `generate`) created at or after `since` starts a new round of attempts, each with its own `webhook-id` as before. At most 1000 a call, oldest first; `more` says whether others are left (call again). A sandbox API key reaches only sandbox predictions' deliveries; a credential the delivery log shows no alert's delivery to (one without `account:read`, or a team member without `read_balance`) only predictions'.
         */
        post: operations["redeliverDeadWebhooks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/webhook_deliveries/{id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a dead-lettered or gone webhook delivery again
         * @description Starts a new round of attempts (the first at once, then up to three retries) with the same `webhook-id`. 409 while the delivery is still pending or was delivered. With `team_id`, a delivery of any of the team's predictions or alerts (needs `generate`). An alert's delivery is unknown (404) to a credential the delivery log shows no alert's delivery to.
         */
        post: operations["redeliverWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/cancel_prediction/{request_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a prediction
         * @description Moves a `queued`, `pending` or `processing` prediction to `cancelled`; nothing is charged (the held credit is released) and a worker that is already running it records nothing when it finishes. A call of `POST /v1/chat/completions` that is running has relayed part of its answer, so it stops within a minute and is charged for what it relayed until then; the rest of its hold is released. 409 when the prediction is already `completed`, `failed` or `cancelled`.
         */
        post: operations["cancelPrediction"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/teams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List my teams
         * @description The teams the caller is a member of, with the caller's role in each.
         */
        get: operations["listTeams"];
        put?: never;
        /**
         * Create a team
         * @description Creates a team with an empty wallet; the caller becomes its owner. A whitelabel studio's
         *     users run models only within their studio, so they cannot create a team, whose wallet and
         *     keys run models outside it (403 `forbidden`).
         */
        post: operations["createTeam"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/teams/{team_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
            };
            cookie?: never;
        };
        /**
         * Get a team
         * @description The team with the caller's role; `balance` and `held` are null unless the role has `read_balance`.
         */
        get: operations["getTeam"];
        put?: never;
        post?: never;
        /**
         * Delete a team
         * @description Needs the `delete_team` permission. Refused (409) while the team wallet holds credit, owes
         *     credit (a negative balance after a refund) or predictions are running on it. Deleting revokes the team's API keys and pending invites;
         *     its history stays in the ledger.
         */
        delete: operations["deleteTeam"];
        options?: never;
        head?: never;
        /**
         * Rename a team
         * @description Needs the `rename` permission.
         */
        patch: operations["renameTeam"];
        trace?: never;
    };
    "/app/teams/{team_id}/members": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
            };
            cookie?: never;
        };
        /**
         * List a team's members
         * @description Every member with their role. Needs `read_history` (every role has it).
         */
        get: operations["listTeamMembers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/teams/{team_id}/members/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
                /** @description The member's user `id`. */
                user_id: number;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a member
         * @description Needs `invite` (and `manage_owners` to remove an owner); removing oneself is leaving. The
         *     member loses access at once, and the team's API keys they created are revoked with the
         *     removal (listed in `revoked_key_ids`), so none of the team's secrets they hold keeps
         *     working; keys other members created keep working. The last owner cannot be removed (409).
         */
        delete: operations["removeTeamMember"];
        options?: never;
        head?: never;
        /**
         * Change a member's role
         * @description Needs `invite`; making someone an owner, or changing an owner's role, also needs
         *     `manage_owners`. The last owner cannot be demoted (409). A new role without `invite`
         *     revokes the member's pending invites to the team. Giving a role also takes a
         *     credential holding every scope that reaches what the role may do: `generate:read` and
         *     `account:read` for every role (they read the team's history), `keys:manage` for billing
         *     too, and `generate:write` and `files:write` besides for owner, admin and developer (they
         *     spend the team's wallet). 403 names the missing scopes and what the role uses them for;
         *     sessions and unrestricted API keys hold every scope.
         */
        patch: operations["changeTeamMemberRole"];
        trace?: never;
    };
    "/app/teams/{team_id}/leave": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Leave a team
         * @description Any member may leave, except the last owner (409). The team's API keys the caller created are revoked as they leave (listed in `revoked_key_ids`); keys other members created keep working.
         */
        post: operations["leaveTeam"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/teams/{team_id}/invites": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
            };
            cookie?: never;
        };
        /**
         * List pending invites
         * @description Invites neither accepted nor revoked (expired ones flagged `expired`). Needs `invite`.
         */
        get: operations["listTeamInvites"];
        put?: never;
        /**
         * Invite someone by email
         * @description Needs `invite` (and `manage_owners` to invite an owner). Inviting someone as a role also
         *     takes a credential holding every scope that reaches what the role may do: `generate:read`
         *     and `account:read` for every role (they read the team's history), `keys:manage` for
         *     billing too, and `generate:write` and `files:write` besides for owner, admin and
         *     developer (they spend the team's wallet). 403 names the missing scopes and what the role
         *     uses them for; sessions and unrestricted API keys hold every scope. Mails a single-use
         *     link that expires after 7 days; only an account signed in with that email address can
         *     accept it.
         *     The token is never returned here nor stored: only its SHA-256 digest is kept.
         */
        post: operations["createTeamInvite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/teams/{team_id}/invites/{invite_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
                /** @description The invite's `id`. */
                invite_id: number;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an invite
         * @description Needs `invite`. The mailed link stops working at once.
         */
        delete: operations["revokeTeamInvite"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/teams/{team_id}/keys": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
            };
            cookie?: never;
        };
        /**
         * List a team's API keys
         * @description The team's live keys, oldest first, never their values. Needs `manage_keys`.
         */
        get: operations["listTeamApiKeys"];
        put?: never;
        /**
         * Create a team API key
         * @description Creates an API key that belongs to the team: it generates on the team wallet and reads the
         *     team's predictions, and keeps working when the member who created it leaves. The full key
         *     value is returned once, in `key`. Same body and rules as createApiKey (`is_test`,
         *     `ip_whitelist`, scopes and IP restriction inherited from the creating credential). Needs
         *     `manage_keys`. A whitelabel studio's user (in a team they joined before studio users were
         *     refused teams) cannot create one: a team key runs models outside the studio (403 `forbidden`).
         */
        post: operations["createTeamApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/teams/{team_id}/keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
                /** @description The key's `id`. */
                key_id: number;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke a team API key
         * @description The key stops working on its next use. Needs `manage_keys`; a sandbox key revokes only sandbox keys.
         */
        delete: operations["revokeTeamApiKey"];
        options?: never;
        head?: never;
        /**
         * Change a team API key's name, IP restriction, expiry or spend limit
         * @description The team's counterpart of updateApiKey: the same body, the same rules (an absent field is
         *     left as it is; `ip_whitelist` normalised, an invalid entry 422 naming its index; a past
         *     `expires_at` 422; no credential widens itself, and a team key changing itself may only
         *     narrow its expiry and spend limit, 403) and the same code.
         *     Needs `manage_keys` (403 naming it); another team's key, a personal key or a revoked key
         *     is 404. A sandbox key updates only sandbox keys.
         */
        patch: operations["updateTeamApiKey"];
        trace?: never;
    };
    "/app/teams/{team_id}/keys/{key_id}/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
                /** @description The key's `id`. */
                key_id: number;
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Give a team API key a new secret, keeping the old one for a grace period
         * @description Replaces the key's secret with a new one, shown once in the answer; the key keeps its id,
         *     name, restrictions, limits, spend so far and history. The replaced secret keeps working
         *     for `grace_seconds` (default one day, at most 30 days; 0 ends it at once), so a deployment
         *     can switch to the new secret without downtime; after that it is refused with 401
         *     `api_key_expired`. Rotating again during a grace period ends the older secret at once.
         *     The rotating member (for a team key as the credential, that key's creator) becomes the
         *     key's `created_by`: they now hold its secret, so removing them, or erasing their account,
         *     revokes the key, and the member who created it before no longer takes it with them (their
         *     replaced secret still works until the grace period ends: rotate with `grace_seconds` 0 to
         *     cut them off at once).
         *     A sandbox key rotates only sandbox keys. Needs `manage_keys`; another team's key or a personal key is 404.
         */
        post: operations["rotateTeamApiKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/app/team_invites/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Accept an invite
         * @description Joins the team with the role of the invite whose `token` was mailed. The caller's email
         *     must equal the invited address (case-insensitive; 403 otherwise, and the invite stays
         *     usable). An unknown, used, revoked or expired token is 404; already a member is 409.
         *     A whitelabel studio's users run models only within their studio, so they cannot join a
         *     team (403 `forbidden`; the invite stays pending). No scope is needed: an API key whose
         *     scopes are restricted may accept, and keeps its scopes (one without `generate:write`
         *     does not spend the team's wallet).
         */
        post: operations["acceptTeamInvite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/aurora-v3-standard-text-to-video": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Aurora v3 Standard text-to-video (tier balanced)
         * @description Action: Generates a 1080p video clip with native audio from a text prompt. Input: prompt (required), negative_prompt, duration (1-15 s, default 5), aspect_ratio (default 16:9), resolution (1080p), generate_audio (default true), seed, cfg_scale. Output: one MP4 video URL. Use for: everyday text-to-video at a moderate price per second.
         */
        post: operations["aurora-v3-standard-text-to-video"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/aurora-v3-pro-text-to-video": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Aurora v3 Pro text-to-video (tier best)
         * @description Action: Generates a high-fidelity 1080p video clip with native audio from a text prompt, with more detailed motion and better prompt adherence than Standard. Input: prompt (required), negative_prompt, duration (1-15 s, default 5), aspect_ratio (default 16:9), resolution (1080p), generate_audio (default true), seed, cfg_scale. Output: one MP4 video URL. Use for: final-quality 1080p shots where fidelity matters more than cost or speed.
         */
        post: operations["aurora-v3-pro-text-to-video"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/aurora-v3-4k-text-to-video": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Aurora v3 4K text-to-video (tier best)
         * @description Action: Generates a 4K (2160p) video clip with native audio from a text prompt. Input: prompt (required), negative_prompt, duration (1-15 s, default 5), aspect_ratio (default 16:9), resolution (4k), generate_audio (default true), seed, cfg_scale. Output: one MP4 video URL in 4K. Use for: shots destined for large screens or heavy cropping, where 1080p is not enough.
         */
        post: operations["aurora-v3-4k-text-to-video"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/aurora-v3-standard-image-to-video": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Aurora v3 Standard image-to-video (tier balanced)
         * @description Action: Animates a source image into a 1080p video clip with native audio, guided by a text prompt. Input: image_url (required), prompt (required), negative_prompt, duration (1-15 s, default 5), aspect_ratio (default 16:9), resolution (1080p), generate_audio (default true), seed, cfg_scale. Output: one MP4 video URL whose first frame is the image. Use for: bringing a still image to life at a moderate price per second.
         */
        post: operations["aurora-v3-standard-image-to-video"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/aurora-v3-pro-image-to-video": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Aurora v3 Pro image-to-video (tier best)
         * @description Action: Animates a source image into a high-fidelity 1080p video clip with native audio, guided by a text prompt. Input: image_url (required), prompt (required), negative_prompt, duration (1-15 s, default 5), aspect_ratio (default 16:9), resolution (1080p), generate_audio (default true), seed, cfg_scale. Output: one MP4 video URL whose first frame is the image. Use for: final-quality animation of key art or product shots in 1080p.
         */
        post: operations["aurora-v3-pro-image-to-video"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/aurora-v3-4k-image-to-video": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Aurora v3 4K image-to-video (tier best)
         * @description Action: Animates a source image into a 4K (2160p) video clip with native audio, guided by a text prompt. Input: image_url (required), prompt (required), negative_prompt, duration (1-15 s, default 5), aspect_ratio (default 16:9), resolution (4k), generate_audio (default true), seed, cfg_scale. Output: one MP4 video URL in 4K whose first frame is the image. Use for: animating high-resolution stills for large screens.
         */
        post: operations["aurora-v3-4k-image-to-video"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/aurora-v3-omni-reference-to-video": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Aurora v3 Omni reference-to-video (tier best)
         * @description Action: Generates a 1080p video clip with native audio in which the characters, faces and objects of 1-4 reference images keep their identity, staged as the prompt describes. Input: reference_image_urls (required, 1-4), prompt (required), negative_prompt, duration (1-15 s, default 5), aspect_ratio (default 16:9), resolution (1080p), generate_audio (default true), seed, cfg_scale. Output: one MP4 video URL. Use for: several shots of the same character or product that must look consistent across a story.
         */
        post: operations["aurora-v3-omni-reference-to-video"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/aurora-v3-standard-motion-control": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Aurora v3 Standard motion control (tier balanced)
         * @description Action: Animates the subject of a source image so that it performs the movements of a driving motion video, rendered in 1080p. Input: image_url (required), motion_video_url (required), prompt, negative_prompt, duration (1-15 s, default 5), resolution (1080p), seed, cfg_scale. Output: one MP4 video URL. Use for: transferring a dance, gesture or acting performance onto a character at a moderate price.
         */
        post: operations["aurora-v3-standard-motion-control"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/aurora-v3-pro-motion-control": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Aurora v3 Pro motion control (tier best)
         * @description Action: Animates the subject of a source image so that it performs the movements of a driving motion video, with higher fidelity of hands, faces and fast motion than Standard, rendered in 1080p. Input: image_url (required), motion_video_url (required), prompt, negative_prompt, duration (1-15 s, default 5), resolution (1080p), seed, cfg_scale. Output: one MP4 video URL. Use for: final-quality performance transfer where body and facial detail must hold up.
         */
        post: operations["aurora-v3-pro-motion-control"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/forma-v2-best-image-to-3d": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Forma v2 image-to-3D (tier best)
         * @description Action: Reconstructs a textured 3D mesh of the object shown in a single image, including its unseen sides. Input: image_url (required), format (glb or obj, default glb), texture (default true), seed. Output: one mesh file URL in the chosen format. Use for: turning product photos, concept art or sketches into assets for games, AR and 3D printing.
         */
        post: operations["forma-v2-best-image-to-3d"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/lexi-v1-balanced-chat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Lexi v1 chat (tier balanced)
         * @description Action: Answers a prompt with a general-purpose language model, optionally steered by a system prompt. Input: prompt, or messages (a conversation of system, user and assistant turns; one of the two is required), system_prompt, max_tokens (1-8192, default 1024), temperature (0-2, default 0.7). Output: one URL of a UTF-8 text file holding the reply; the result also gives the reply inline (output_text) and the tokens it was charged for (usage). Billing: holds the most the request can cost, charges the price of the tokens used (as reported by the provider, else counted at four bytes a token), never more than the hold. Use for: writing and rewriting prompts for other models, captions, summaries and short text tasks inside a media pipeline.
         */
        post: operations["lexi-v1-balanced-chat"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/canvas-v1-fast-text-to-image": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Canvas v1 Fast text-to-image (tier fast)
         * @description Action: Renders procedural abstract PNG images locally, deterministically derived from the prompt and seed, without an upstream provider. Input: prompt (required), width and height (64-2048, default 512), num_images (1-4, default 1), seed, num_inference_steps (1-50, default 4). Output: 1-4 PNG image URLs. Use for: testing integrations, webhooks and billing end to end, demos and offline development; not for realistic imagery.
         */
        post: operations["canvas-v1-fast-text-to-image"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/canvas-v1-budget-text-to-image": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Canvas v1 Budget text-to-image (tier budget)
         * @description Action: Renders procedural abstract PNG images locally, deterministically derived from the prompt and seed, at up to 1024 pixels per side, without an upstream provider. Input: prompt (required), width and height (64-1024, default 512), num_images (1-4, default 1), seed, num_inference_steps (1-50, default 4). Output: 1-4 PNG image URLs. Use for: the cheapest possible end-to-end test of a client, placeholder images and load tests; not for realistic imagery.
         */
        post: operations["canvas-v1-budget-text-to-image"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/chime-v1-fast-text-to-audio": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Chime v1 Fast text-to-audio (tier fast)
         * @description Action: Synthesises a procedural tone sequence locally, deterministically derived from the prompt and seed, without an upstream provider. Input: prompt (required), duration (1-30 s, default 5), seed. Output: one WAV audio URL. Use for: testing audio handling, players and webhooks end to end without upstream costs; not for speech or music.
         */
        post: operations["chime-v1-fast-text-to-audio"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/forma-v1-fast-text-to-3d": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Forma v1 Fast text-to-3D (tier fast)
         * @description Action: Builds a procedural 3D mesh locally, deterministically derived from the prompt and seed, without an upstream provider. Input: prompt (required), seed, format (glb or obj, default glb). Output: one mesh file URL in the chosen format. Use for: testing 3D viewers, downloads and webhooks end to end without upstream costs; not for production models.
         */
        post: operations["forma-v1-fast-text-to-3d"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/lumen-dev-text-to-image": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Lumen Dev text-to-image (tier balanced)
         * @description Action: Generates images from a text prompt with good detail and prompt adherence. Input: prompt (required), negative_prompt, aspect_ratio (default 1:1), num_images (1-4, default 1), seed, guidance_scale, num_inference_steps, output_format, loras (up to 3 LoRAs of the lumen family). Output: 1-4 image URLs in output_format. Use for: everyday image generation, iteration on ideas and most production work at a moderate price.
         */
        post: operations["lumen-dev-text-to-image"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/lumen-dev-i2i": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Lumen Dev image-to-image (tier balanced)
         * @description Action: Edits or restyles a source image as the prompt describes, keeping as much of its composition as strength allows. Input: image_url (required), prompt (required), strength (0-1, default 0.75), negative_prompt, aspect_ratio (absent keeps the source ratio), num_images (1-4, default 1), seed, guidance_scale, num_inference_steps, output_format. Output: 1-4 image URLs in output_format. Use for: everyday edits, variations and restyling at a moderate price.
         */
        post: operations["lumen-dev-i2i"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/lumen-pro-text-to-image": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Lumen Pro text-to-image (tier best)
         * @description Action: Generates high-fidelity images from a text prompt with accurate typography, hands and fine texture. Input: prompt (required), negative_prompt, aspect_ratio (default 1:1), num_images (1-4, default 1), seed, guidance_scale, num_inference_steps, output_format. Output: 1-4 image URLs in output_format. Use for: final assets, marketing visuals and images with legible text.
         */
        post: operations["lumen-pro-text-to-image"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/lumen-pro-i2i": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Lumen Pro image-to-image (tier best)
         * @description Action: Edits or restyles a source image with high fidelity, preserving faces, text and fine detail outside the edited region. Input: image_url (required), prompt (required), strength (0-1, default 0.75), negative_prompt, aspect_ratio (absent keeps the source ratio), num_images (1-4, default 1), seed, guidance_scale, num_inference_steps, output_format. Output: 1-4 image URLs in output_format. Use for: final-quality retouching, product edits and edits that must keep text legible.
         */
        post: operations["lumen-pro-i2i"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/lumen-max-text-to-image": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Lumen Max text-to-image (tier best)
         * @description Action: Generates the most detailed images of the family from a text prompt, with the strongest prompt adherence on complex multi-subject scenes. Input: prompt (required), negative_prompt, aspect_ratio (default 1:1), num_images (1-4, default 1), seed, guidance_scale, num_inference_steps, output_format. Output: 1-4 image URLs in output_format. Use for: hero images and complex compositions where the best achievable quality justifies the highest price.
         */
        post: operations["lumen-max-text-to-image"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/lumen-max-i2i": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Lumen Max image-to-image (tier best)
         * @description Action: Edits a source image with the strongest instruction following of the family, handling complex multi-step edit instructions. Input: image_url (required), prompt (required), strength (0-1, default 0.75), negative_prompt, aspect_ratio (absent keeps the source ratio), num_images (1-4, default 1), seed, guidance_scale, num_inference_steps, output_format. Output: 1-4 image URLs in output_format. Use for: difficult edits (several changes at once, precise object placement) where Pro falls short.
         */
        post: operations["lumen-max-i2i"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/lumen-effects-text-to-image": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Lumen Effects text-to-image (tier fast)
         * @description Action: Generates images from a text prompt in one of eight preset styles in a few seconds. Input: prompt (required), effect (required), negative_prompt, aspect_ratio (default 1:1), num_images (1-4, default 1), seed, output_format. Output: 1-4 image URLs in output_format. Use for: quick stylised images (anime, watercolor, pixel art and so on) for social posts, stickers and thumbnails.
         */
        post: operations["lumen-effects-text-to-image"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/lumen-effects-i2i": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Lumen Effects image-to-image (tier fast)
         * @description Action: Restyles a source image in one of eight preset styles in a few seconds, keeping its composition and subjects. Input: image_url (required), effect (required), prompt, strength (0-1, default 0.75), num_images (1-4, default 1), seed, output_format. Output: 1-4 image URLs in output_format. Use for: turning photos into anime, watercolor, claymation or other looks for avatars and social content.
         */
        post: operations["lumen-effects-i2i"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/recut-v1-pro-video-edit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Recut v1 Pro video edit (tier best)
         * @description Action: Edits an existing video as the prompt describes (restyle, replace or remove objects, change weather, lighting or background) while keeping its motion and timing. Input: video_url (required, up to 15 s), prompt (required), negative_prompt, keep_audio (default true), seed. Output: one MP4 video URL with the same length as the source. Use for: changing the look or content of footage you already have instead of generating a new clip.
         */
        post: operations["recut-v1-pro-video-edit"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sonar-v2-best-text-to-speech": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sonar v2 text-to-speech (tier best)
         * @description Action: Speaks a text aloud in a natural, expressive voice chosen from eight presets. Input: text (required, up to 5000 characters), voice (default aria), speed (0.5-2, default 1), output_format (mp3 or wav, default mp3). Output: one audio file URL. Use for: narration, voice-overs, dialogue for videos and accessibility audio where natural prosody matters.
         */
        post: operations["sonar-v2-best-text-to-speech"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/sonar-v2-balanced-text-to-music": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sonar v2 text-to-music (tier balanced)
         * @description Action: Composes a piece of music in the genre, mood and instrumentation the prompt describes, with or without vocals. Input: prompt (required), duration (5-120 s, default 30), instrumental (default false), seed, output_format (mp3 or wav, default mp3). Output: one audio file URL. Use for: background music for videos, jingles, game loops and song sketches.
         */
        post: operations["sonar-v2-balanced-text-to-music"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/syncra-v1-balanced-lipsync": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Syncra v1 lipsync (tier balanced)
         * @description Action: Re-animates the mouth of the speaking person in a video so that it matches a new audio track. Input: video_url (required), audio_url (required), sync_mode (how length differences are handled, default cut_off), seed. Output: one MP4 video URL with the new audio. Use for: dubbing, translated voice-overs and correcting dialogue on talking-head footage.
         */
        post: operations["syncra-v1-balanced-lipsync"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/veloce-v2-standard-text-to-video": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Veloce v2 Standard text-to-video (tier balanced)
         * @description Action: Generates an 8-second 1080p video clip with native audio (dialogue, effects, ambience) from a text prompt. Input: prompt (required), negative_prompt, duration (8), aspect_ratio (default 16:9), resolution (1080p), generate_audio (default true), seed. Output: one MP4 video URL. Use for: realistic short clips with synchronised speech and sound at a fixed length.
         */
        post: operations["veloce-v2-standard-text-to-video"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/veloce-v2-fast-text-to-video": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Veloce v2 Fast text-to-video (tier fast)
         * @description Action: Generates an 8-second 1080p video clip with native audio from a text prompt, several times faster and cheaper than Standard at slightly lower detail. Input: prompt (required), negative_prompt, duration (8), aspect_ratio (default 16:9), resolution (1080p), generate_audio (default true), seed. Output: one MP4 video URL. Use for: drafts, previews and high-volume short clips with sound.
         */
        post: operations["veloce-v2-fast-text-to-video"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/veloce-v2-standard-image-to-video": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Veloce v2 Standard image-to-video (tier balanced)
         * @description Action: Animates a source image into an 8-second 1080p video clip with native audio, guided by a text prompt. Input: image_url (required), prompt (required), negative_prompt, duration (8), aspect_ratio (default 16:9), resolution (1080p), generate_audio (default true), seed. Output: one MP4 video URL whose first frame is the image. Use for: turning a still into a short realistic scene with synchronised speech and sound.
         */
        post: operations["veloce-v2-standard-image-to-video"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/veloce-v2-fast-image-to-video": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Veloce v2 Fast image-to-video (tier fast)
         * @description Action: Animates a source image into an 8-second 1080p video clip with native audio, faster and cheaper than Standard at slightly lower detail. Input: image_url (required), prompt (required), negative_prompt, duration (8), aspect_ratio (default 16:9), resolution (1080p), generate_audio (default true), seed. Output: one MP4 video URL whose first frame is the image. Use for: quick previews and bulk animation of stills with sound.
         */
        post: operations["veloce-v2-fast-image-to-video"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    predictionEvent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A prediction started, progressed or wrote log lines (only when asked for)
         * @description Sent only to a webhook whose submit named `start`, `progress` or `logs` in `webhook_events_filter`, while the prediction runs: `start` once, `progress` and `logs` at most one every 5 seconds (the operator may set another interval). Signed exactly like `predictionFinished`, with the same secret, each event with its own `webhook-id`. Tried once and never retried: a later event or the result supersedes it. None is ever sent after the result's first attempt.
         */
        post: operations["predictionEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    predictionFinished: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A prediction finished (completed or failed)
         * @description Sent once per prediction that was submitted with `?webhook=`, when it reaches `completed` or `failed` (never another state; not at all when its `webhook_events_filter` leaves out `completed`), signed per Standard Webhooks v1 with the account's secret (`GET /app/webhook_secret`), or for a team's prediction with the team's (`GET /app/webhook_secret?team_id=`), whoever submitted it; a sandbox prediction's with the sandbox secret instead (`GET /app/webhook_secret?sandbox=true`). Failed attempts are retried (see the `webhook` parameter); every attempt of one delivery carries the same `webhook-id`, so receivers must be idempotent.
         */
        post: operations["predictionFinished"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        ErrorDetail: {
            /** @description Human-readable reason. */
            detail: string;
            /** @description Stable machine-readable kind, one of: `invalid_input`, `unauthorized`, `api_key_expired`, `insufficient_credit`, `key_spend_limit_exceeded`, `max_cost_exceeded`, `budget_exceeded`, `forbidden`, `insufficient_scope`, `session_required`, `role_required`, `impersonation_forbidden`, `not_found`, `method_not_allowed`, `request_timeout`, `conflict`, `gone`, `payload_too_large`, `unsupported_media_type`, `validation_failed`, `balance_limit`, `rate_limited`, `headers_too_large`, `internal`, `not_implemented`, `bad_gateway`, `unavailable`, `timeout`, `embed_code_invalid`, `embed_origin_missing`, `embed_origin_not_allowed`, `embed_operation_not_allowed`, `embed_model_not_allowed`, `embed_team_not_allowed`, `embed_field_not_allowed`, `embed_webhook_not_allowed`, `embed_visitor_invalid`, `embed_cost_cap_exceeded`, `embed_daily_cap_reached`, `embed_monthly_cap_reached`, `studio_not_found`, `studio_disabled`, `studio_forbidden`, `studio_required`, `studio_owner_deletion_pending`, `csrf_token_invalid`, and on the OpenAI-compatible routes (in OpenAI's error body) `model_not_found`, `wrong_model_category`, `upstream_failed`, `upstream_timeout`. An answer with no code of its own gets the code of its status (400 `invalid_input`, 401 `unauthorized`, 404 `not_found`, 409 `conflict`, 422 `validation_failed`, 429 `rate_limited`, 500 `internal`, 503 `unavailable`, ...). Branch on `code`, not on `detail`, which may be reworded. */
            code?: string;
        };
        ValidationError: {
            /** @description Location of the offending value, e.g. `["body", "prompt"]` or `["query", "page"]`. */
            loc: (string | number)[];
            /** @description Human-readable message. */
            msg: string;
            /** @description Machine-readable error kind, e.g. `missing` or `value_error`. */
            type: string;
        };
        HTTPValidationError: {
            detail: components["schemas"]["ValidationError"][];
            /** @description `validation_failed` (422), or `unsupported_media_type` (415). */
            code?: string;
        };
        /**
         * @example {
         *       "detail": "If the address has an account, a code is on its way."
         *     }
         */
        MessageResponse: {
            /** @description Human-readable confirmation. */
            detail: string;
        };
        /**
         * @example {
         *       "status": "ok",
         *       "database": "ok",
         *       "queue": "ok"
         *     }
         */
        Health: {
            /** @description `ok` when every dependency is reachable. */
            status: string;
            /** @description State of the database, e.g. `ok`. */
            database: string;
            /** @description State of the work queue, e.g. `ok`. */
            queue: string;
        };
        HealthUnavailable: {
            /** @description `unavailable`. */
            status: string;
            /** @description State of the database, `ok` or `unavailable`. */
            database: string;
            /** @description State of the work queue, `ok` or `unavailable`. */
            queue: string;
            /** @description What is unreachable. */
            detail: string;
        };
        /**
         * @example {
         *       "request_id": "01a2216fc1f0a3f19c0b5e7d2c84f1b6",
         *       "status": "queued",
         *       "urls": {
         *         "get": "https://gateway.example.com/api/v1/predictions/01a2216fc1f0a3f19c0b5e7d2c84f1b6/result",
         *         "cancel": "https://gateway.example.com/app/cancel_prediction/01a2216fc1f0a3f19c0b5e7d2c84f1b6"
         *       },
         *       "price": 4
         *     }
         */
        PredictionSubmitted: {
            /** @description Id of the prediction; use it with getPredictionResult. */
            request_id: string;
            /** @description The state when the request was accepted, `queued` for production keys and `completed` for sandbox keys (born finished); poll `urls.get` for the current one. */
            status: components["schemas"]["PredictionStatus"];
            urls: {
                /**
                 * Format: uri
                 * @description Absolute URL of getPredictionResult for this prediction, with the submit's `team_id` when it named one.
                 */
                get: string;
                /**
                 * Format: uri
                 * @description Absolute URL of cancelPrediction for this prediction (POST), with the submit's `team_id` when it named one.
                 */
                cancel: string;
            };
            /** @description Credits held for this request (1000 credits = 1 USD), debited when it completes and released if it fails or is cancelled; 0 for sandbox keys. Also sent as the `X-Cost` header. */
            price: number;
        };
        /**
         * @example {
         *       "models": [
         *         {
         *           "slug": "canvas-v1-fast-text-to-image",
         *           "path": "/api/v1/canvas-v1-fast-text-to-image",
         *           "title": "Canvas v1 Fast: procedural text-to-image",
         *           "category": "text-to-image",
         *           "tier": "fast",
         *           "family": "canvas-v1",
         *           "output": "image",
         *           "price": {
         *             "unit": "credit",
         *             "base": 0,
         *             "per_unit": {
         *               "field": "num_images",
         *               "amount": 4
         *             },
         *             "multipliers": [],
         *             "at_defaults": 4
         *           },
         *           "input_schema": {
         *             "type": "object",
         *             "required": [
         *               "prompt"
         *             ],
         *             "properties": {
         *               "prompt": {
         *                 "type": "string"
         *               },
         *               "width": {
         *                 "type": "integer",
         *                 "default": 512
         *               },
         *               "height": {
         *                 "type": "integer",
         *                 "default": 512
         *               },
         *               "num_images": {
         *                 "type": "integer",
         *                 "default": 1
         *               }
         *             }
         *           },
         *           "available": true
         *         }
         *       ]
         *     }
         */
        ModelList: {
            models: components["schemas"]["ModelEntry"][];
        };
        ModelEntry: {
            /** @description The model endpoint's operationId; it is also the `model` of its predictions. */
            slug: string;
            /** @description Where to submit it (`POST`), e.g. `/api/v1/lumen-dev-text-to-image`. */
            path: string;
            /** @description The operation summary. */
            title: string;
            /** @description One of `x-catalog.categories`. */
            category: string;
            /** @description One of `x-catalog.tiers` (`best`, `balanced`, `fast`, `budget`). */
            tier: string;
            family: string;
            /** @description What it produces, one of `x-catalog.outputs` (`image`, `video`, `audio`, `model3d`, `text`). */
            output: string;
            price: components["schemas"]["ModelPrice"];
            /** @description The JSON Schema of the request body (the same as in this document). */
            input_schema: {
                [key: string]: unknown;
            };
            /** @description Whether production keys can run it on this gateway now (local model, or upstream provider configured). `false` answers 503 to production keys; sandbox keys work either way. */
            available: boolean;
            /** @description Who can run it, in failover order: `local` (this gateway itself) or the name of an upstream provider, and whether the operator has configured that provider (its `UPSTREAM_<NAME>_KEY` or `_URL`). A model is unavailable when none is configured. */
            provider_setup?: {
                name: string;
                configured: boolean;
            }[];
        };
        /** @description One message of the conversation, as OpenAI's chat completions take it; passed to the provider as it is. */
        OpenAIChatMessage: {
            /** @enum {string} */
            role: "system" | "developer" | "user" | "assistant" | "tool";
            /** @description The text, or a list of content parts (`{"type": "text", "text"}`, `{"type": "image_url", "image_url": {"url"}}`, `{"type": "input_audio", ...}`) where the provider takes them; another part type is refused, since its cost cannot be held before the call; null for an assistant message that only calls tools. */
            content?: string | Record<string, never>[] | null;
            name?: string;
            tool_calls?: Record<string, never>[];
            tool_call_id?: string;
            refusal?: string | null;
        };
        /**
         * @example {
         *       "model": "lexi-v1-balanced-chat",
         *       "messages": [
         *         {
         *           "role": "system",
         *           "content": "You are concise."
         *         },
         *         {
         *           "role": "user",
         *           "content": "Name three primary colours."
         *         }
         *       ],
         *       "max_tokens": 100
         *     }
         */
        OpenAIChatCompletionRequest: {
            /** @description The model's slug (`GET /v1/models`); a model of the `llm` category. */
            model: string;
            messages: components["schemas"]["OpenAIChatMessage"][];
            /** @description The longest answer, in tokens, at most the model's own limit; when absent, the model's limit. */
            max_tokens?: number | null;
            /** @description The same as `max_tokens` (OpenAI's newer name); the smaller of the two when both are sent. */
            max_completion_tokens?: number | null;
            temperature?: number | null;
            top_p?: number | null;
            /** @description Only one choice per call. */
            n?: number | null;
            /** @description Up to 4 sequences where the answer stops. */
            stop?: string | string[] | null;
            seed?: number | null;
            response_format?: Record<string, never> | null;
            tools?: Record<string, never>[] | null;
            tool_choice?: string | Record<string, never> | null;
            parallel_tool_calls?: boolean | null;
            /** @description Passed to the provider as it is (OpenAI takes `minimal`, `low`, `medium` or `high`); the reasoning is billed as answer tokens, within `max_tokens`. */
            reasoning_effort?: string | null;
            /** @description Taken and not passed on; every call is kept in the gateway's run history, never stored at the provider. */
            store?: boolean | null;
            /** @description Taken and not passed on (OpenAI keeps it with stored completions, which the gateway does not make). */
            metadata?: {
                [key: string]: string;
            } | null;
            /** @description Taken and not passed on; the call runs at the tier the operator's provider account has, at the model's price. */
            service_tier?: string | null;
            frequency_penalty?: number | null;
            presence_penalty?: number | null;
            logit_bias?: Record<string, never> | null;
            logprobs?: boolean | null;
            top_logprobs?: number | null;
            user?: string | null;
            stream?: boolean | null;
            stream_options?: {
                include_usage?: boolean;
            } | null;
        };
        OpenAIUsage: {
            prompt_tokens: number;
            completion_tokens: number;
            total_tokens: number;
        };
        /**
         * @description OpenAI's `chat.completion` object. `id` is `chatcmpl-` and the prediction's request_id; `model` the slug called.
         * @example {
         *       "id": "chatcmpl-0193a1b2c3d4e5f60718293a4b5c6d7e",
         *       "object": "chat.completion",
         *       "created": 1764400000,
         *       "model": "lexi-v1-balanced-chat",
         *       "system_fingerprint": null,
         *       "choices": [
         *         {
         *           "index": 0,
         *           "message": {
         *             "role": "assistant",
         *             "content": "Red, yellow and blue.",
         *             "refusal": null
         *           },
         *           "logprobs": null,
         *           "finish_reason": "stop"
         *         }
         *       ],
         *       "usage": {
         *         "prompt_tokens": 11,
         *         "completion_tokens": 6,
         *         "total_tokens": 17
         *       }
         *     }
         */
        OpenAIChatCompletion: {
            id: string;
            /** @enum {string} */
            object: "chat.completion";
            created: number;
            model: string;
            system_fingerprint?: string | null;
            choices: {
                index: number;
                message: Record<string, never>;
                logprobs?: Record<string, never> | null;
                finish_reason: string | null;
            }[];
            usage?: components["schemas"]["OpenAIUsage"];
        };
        /**
         * @example {
         *       "model": "canvas-v1-fast-text-to-image",
         *       "prompt": "a lighthouse at dusk, oil painting",
         *       "n": 1,
         *       "size": "768x512",
         *       "response_format": "url"
         *     }
         */
        OpenAIImageRequest: {
            /** @description The slug of a `text-to-image` model (`GET /v1/models`). */
            model: string;
            prompt: string;
            /** @description Images to make, where the model takes a number of images (`num_images`). */
            n?: number | null;
            /** @description `<width>x<height>` in pixels, where the model takes a width and height; for a model that takes an aspect ratio instead, the ratio nearest to it that the model offers (`1024x1024` is `1:1`, `1792x1024` is `16:9`, `1024x1536` is `2:3`). `auto`, or absent: the model's default. */
            size?: string | null;
            /** @enum {string|null} */
            response_format?: "url" | "b64_json" | null;
            user?: string | null;
        };
        /**
         * @example {
         *       "created": 1764400000,
         *       "data": [
         *         {
         *           "url": "https://gateway.example.com/files/outputs/0193a1b2c3d4e5f60718293a4b5c6d7e/0.png"
         *         }
         *       ]
         *     }
         */
        OpenAIImagesResponse: {
            created: number;
            data: {
                url?: string;
                b64_json?: string;
            }[];
        };
        /**
         * @example {
         *       "id": "lexi-v1-balanced-chat",
         *       "object": "model",
         *       "created": 1764400000,
         *       "owned_by": "lexi-v1",
         *       "category": "llm"
         *     }
         */
        OpenAIModel: {
            /** @description The model's slug. */
            id: string;
            /** @enum {string} */
            object: "model";
            /** @description Unix seconds: when this gateway loaded its catalog. */
            created: number;
            /** @description The model's family. */
            owned_by: string;
            /** @description The gateway's category: `llm` models answer on /v1/chat/completions, `text-to-image` on /v1/images/generations. */
            category?: string;
        };
        /**
         * @example {
         *       "object": "list",
         *       "data": [
         *         {
         *           "id": "lexi-v1-balanced-chat",
         *           "object": "model",
         *           "created": 1764400000,
         *           "owned_by": "lexi-v1",
         *           "category": "llm"
         *         }
         *       ]
         *     }
         */
        OpenAIModelList: {
            /** @enum {string} */
            object: "list";
            data: components["schemas"]["OpenAIModel"][];
        };
        /**
         * @description OpenAI's error body. `type` is `invalid_request_error` (400, 404, 409, 413, 415), `authentication_error` (401), `insufficient_quota` (402), `permission_error` (403), `rate_limit_error` (429) or `api_error` (5xx); `code` the gateway's stable code (e.g. `model_not_found`, `insufficient_credit`); `param` the field at fault, when one is.
         * @example {
         *       "error": {
         *         "message": "The model `nope` does not exist on this gateway; GET /v1/models lists them.",
         *         "type": "invalid_request_error",
         *         "code": "model_not_found",
         *         "param": "model"
         *       }
         *     }
         */
        OpenAIError: {
            error: {
                message: string;
                type: string;
                code: string | null;
                param: string | null;
            };
        };
        /** @description The price rule, in credits (1000 credits = 1 USD): `base`, plus each of `terms` (per unit of a numeric field, per output, per megapixel, or by steps of a field's value; a fraction of a credit rounds up), then each matching multiplier (percent, rounded up), and at least `minimum`. */
        ModelPrice: {
            /** @enum {string} */
            unit: "credit";
            base: number;
            /** @description The first per-unit term (also in `terms`); null when the rule has none. */
            per_unit: {
                field: string;
                amount: number;
            } | null;
            /** @description Every term added to `base`, in order. */
            terms?: {
                /**
                 * @description `per_unit`: `amount` x the value of `field`; `per_output`: `amount` x the outputs asked for (`field`, else 1); `per_megapixel`: `amount` x the megapixels of each image; `tiers`: the amount of the step the value of `field` falls in.
                 * @enum {string}
                 */
                kind: "per_unit" | "per_output" | "per_megapixel" | "tiers";
                /** @description The input field it reads. */
                field: string | null;
                /** @description Credits per unit; null for `tiers`, whose amounts are in `summary`. */
                amount: number | null;
                /** @description The term in words. */
                summary: string;
            }[];
            /** @description A language model priced by tokens: `input` credits per `per` prompt tokens and `output` credits per `per` answer tokens, added to `base`. A request is held the most it can cost (its text's UTF-8 bytes counted as tokens, plus its `max_tokens`) and, when it ends, is charged the price of its usage (rounded up to a whole credit, never more than the hold), the rest released: a call through `POST /v1/chat/completions` and a prediction of the model's asynchronous endpoint alike. The usage is what the provider reports or, when it reports none, the prompt and the answer counted at four bytes a token. Absent for any other rule. */
            per_token?: {
                input: number;
                output: number;
                per: number;
            } | null;
            /** @description The least a request costs, in credits; 0 when the rule has no minimum. */
            minimum?: number;
            multipliers: {
                field: string;
                /** @description Input value (as a string) -> percent applied when the input has it. */
                percent_by_value: {
                    [key: string]: number;
                };
            }[];
            /** @description The price of a request that leaves every priced field at its default. */
            at_defaults: number;
        };
        /**
         * @description queued (persisted, not yet confirmed by the queue) -> pending (in the queue) -> processing (a worker runs it) -> completed | failed; queued, pending and processing -> cancelled through cancelPrediction.
         * @enum {string}
         */
        PredictionStatus: "queued" | "pending" | "processing" | "completed" | "failed" | "cancelled";
        /**
         * @example {
         *       "status": "credited"
         *     }
         */
        StripeWebhookAck: {
            /**
             * @description `subscription_started`, `subscription_changed`, `subscription_cancelled`: a plan bought in the dashboard started on its wallet, will change at the next renewal, or ended; `subscription_held`: its Stripe subscription's payment failed (past due, unpaid, incomplete or paused); `subscription_resumed`: Stripe reports the subscription paid up again; `subscription_renewed`: Stripe reports the invoice of a new period paid, and that period's credit was granted (once per period); `credited`: a purchase added credit; `refund_applied`: a refund, or a dispute whose funds Stripe withdrew, took credits back; `refund_reversed`: a refund that had taken credits back failed or was cancelled, or a dispute's funds were reinstated, and they were given back (once); `duplicate`: already applied (a redelivery, or a refund made with adminStripeRefund); `ignored`: an event that moves nothing here; `unmatched`: a paid checkout that names no account (or an erased account, or a deleted team), or a paid subscription checkout that started nothing because its wallet already had an active plan, or because Stripe had already reported its subscription deleted (recorded as unapplied and logged for the operator, who refunds it or applies it by hand; its redeliveries answer the same and record nothing twice), or a period Stripe charged for a plan cancelled on the gateway (logged for the operator; nothing granted).
             * @enum {string}
             */
            status: "credited" | "refund_applied" | "refund_reversed" | "duplicate" | "ignored" | "unmatched" | "subscription_started" | "subscription_changed" | "subscription_cancelled" | "subscription_held" | "subscription_resumed" | "subscription_renewed";
        };
        /**
         * @example {
         *       "status": "accepted"
         *     }
         */
        UpstreamWebhookAck: {
            /**
             * @description `accepted`: the worker asks the provider for the job's state now; `ignored`: nothing to do (the prediction is not running this job any more, or a poll is already on its way).
             * @enum {string}
             */
            status: "accepted" | "ignored";
        };
        /**
         * @example {
         *       "id": "01a2216fc1f0a3f19c0b5e7d2c84f1b6",
         *       "model": "canvas-v1-fast-text-to-image",
         *       "status": "completed",
         *       "outputs": [
         *         "https://gateway.example.com/files/outputs/01a2216fc1f0a3f19c0b5e7d2c84f1b6/0.png"
         *       ],
         *       "outputs_expired": false,
         *       "urls": {
         *         "get": "https://gateway.example.com/api/v1/predictions/01a2216fc1f0a3f19c0b5e7d2c84f1b6/result"
         *       },
         *       "has_nsfw_contents": [
         *         false
         *       ],
         *       "created_at": "2026-11-28T09:15:02.000Z",
         *       "started_at": "2026-11-28T09:15:02.140Z",
         *       "completed_at": "2026-11-28T09:15:02.655Z",
         *       "error": null,
         *       "error_code": null,
         *       "executionTime": "0.655s",
         *       "timings": {
         *         "inference": 498
         *       }
         *     }
         */
        PredictionResult: {
            /** @description The `request_id`. */
            id: string;
            /** @description Model endpoint slug (its operationId). */
            model: string;
            status: components["schemas"]["PredictionStatus"];
            /** @description URLs of the produced files; empty until `completed`, and empty again once the files were removed by the retention policy (`outputs_expired`). */
            outputs: string[];
            /** @description True when the prediction completed but its output files were removed after the operator's output lifetime (`OUTPUT_RETENTION_DAYS`); `outputs` and `has_nsfw_contents` are then empty. The prediction itself (status, times, cost) is kept. */
            outputs_expired: boolean;
            urls: {
                /** @description URL of this result endpoint. */
                get: string;
            };
            /** @description One entry per output, true when that output was flagged as NSFW. */
            has_nsfw_contents: boolean[];
            /**
             * Format: date-time
             * @description When the request was accepted.
             */
            created_at: string;
            /**
             * Format: date-time
             * @description When a worker started it; null before.
             */
            started_at: string | null;
            /**
             * Format: date-time
             * @description When it reached a terminal state; null before.
             */
            completed_at: string | null;
            /** @description Reason of the failure when `status` is `failed`; null otherwise. */
            error: string | null;
            /** @description A stable, machine-readable reason next to `error` when `status` is `failed` and the gateway knows one, e.g. `content_moderated` (the provider refused the content: not retried, not charged), `empty_result`, `upstream_rejected_input`, `upstream_unavailable`, `upstream_timeout`, `output_rejected`; null otherwise. */
            error_code?: string | null;
            /** @description Wall-clock execution time in seconds with unit, e.g. `1.234s`; null until finished. */
            executionTime: string | null;
            timings: {
                /** @description Inference time in milliseconds; null until finished. */
                inference: number | null;
            };
            provider_metadata?: components["schemas"]["ProviderMetadata"];
            /** @description While `processing` at a provider that queues work and says where it is (fal), the request's place in that queue, `0` being next to run; null otherwise. */
            queue_position?: number | null;
            /** @description While `processing`, how far the run is, from 0 to 1, when its provider says (Replicate through the progress bar in its logs, the gateway's own local models step by step); null otherwise. */
            progress?: number | null;
            /** @description Only when asked for with `logs=true`. The lines the provider wrote while running the request (fal, Replicate, the local models), oldest first, each with its time; the last 200 lines at most. Kept after the request finishes. */
            logs?: components["schemas"]["RunLogLine"][];
            /** @description A language model's completed answer only (its asynchronous endpoint, or a call through `POST /v1/chat/completions`): the answer's text, the same as the text file in `outputs`, here so that no second request is needed to read it. Absent for every other prediction. */
            output_text?: string;
            /** @description A language model's completed answer only: the tokens it used, which its charge was priced by. `source: reported` when the provider reported them; `counted` where it reported none (each four bytes of the prompt and of the answer counted as a token). Absent for every other prediction. */
            usage?: {
                input_tokens: number;
                output_tokens: number;
                /** @enum {string} */
                source: "reported" | "counted";
            };
        };
        RunLogLine: {
            /**
             * Format: date-time
             * @description When the provider wrote the line, or, for a provider whose lines carry no time (Replicate), when the gateway first saw it.
             */
            at: string;
            /** @description The line, at most 1000 characters. */
            message: string;
        };
        /**
         * @description Body of the POST sent to the `webhook` URL when a prediction reaches `completed` or `failed`.
         * @example {
         *       "id": "01a2216fc1f0a3f19c0b5e7d2c84f1b6",
         *       "outputs": [
         *         "https://gateway.example.com/files/outputs/01a2216fc1f0a3f19c0b5e7d2c84f1b6/0.png"
         *       ],
         *       "urls": {
         *         "get": "https://gateway.example.com/api/v1/predictions/01a2216fc1f0a3f19c0b5e7d2c84f1b6/result"
         *       },
         *       "has_nsfw_contents": [
         *         false
         *       ],
         *       "status": "completed",
         *       "created_at": "2026-11-28T09:15:02.000Z",
         *       "executionTime": "0.655s",
         *       "timings": {
         *         "inference": 498
         *       }
         *     }
         */
        WebhookPayload: {
            /** @description The `request_id`. */
            id: string;
            /** @description URLs of the produced files; present only when `status` is `completed`. */
            outputs?: string[];
            urls: {
                /** @description URL of getPredictionResult for this prediction. */
                get: string;
            };
            /** @description One entry per output. */
            has_nsfw_contents: boolean[];
            /** @enum {string} */
            status: "completed" | "failed";
            /** Format: date-time */
            created_at: string;
            /** @description Present only when `status` is `failed`. */
            error?: string;
            /** @description Execution time, e.g. `1.234s`. */
            executionTime: string;
            timings: {
                /** @description Inference time in milliseconds. */
                inference: number | null;
            };
            provider_metadata?: components["schemas"]["ProviderMetadata"];
        };
        /**
         * @description Body of an event sent to the `webhook` URL while the prediction runs, when the submit asked for it with `webhook_events_filter`: the fields of `WebhookPayload` as they are at that moment, plus which event it is and what the run reports. The result itself is a `WebhookPayload` (without `event`), always sent after the last of these.
         * @example {
         *       "id": "01a2216fc1f0a3f19c0b5e7d2c84f1b6",
         *       "urls": {
         *         "get": "https://gateway.example.com/api/v1/predictions/01a2216fc1f0a3f19c0b5e7d2c84f1b6/result"
         *       },
         *       "has_nsfw_contents": [],
         *       "status": "processing",
         *       "created_at": "2026-11-28T09:15:02.000Z",
         *       "executionTime": null,
         *       "timings": {
         *         "inference": null
         *       },
         *       "event": "logs",
         *       "progress": 0.45,
         *       "queue_position": null,
         *       "logs": [
         *         {
         *           "at": "2026-11-28T09:15:03.120Z",
         *           "message": "image 1/1: 1024x1024, 28 steps, seed 42"
         *         }
         *       ]
         *     }
         */
        WebhookEventPayload: {
            /** @description The `request_id`. */
            id: string;
            urls: {
                /** @description URL of getPredictionResult for this prediction. */
                get: string;
            };
            /** @description Empty while the prediction runs. */
            has_nsfw_contents: boolean[];
            /** @enum {string} */
            status: "queued" | "pending" | "processing";
            /** Format: date-time */
            created_at: string;
            /** @description Null while the prediction runs. */
            executionTime: null;
            timings: {
                inference: number | null;
            };
            /**
             * @description `start`: a worker started the prediction (sent once). `progress`: the provider reported progress or a queue position. `logs`: the run wrote log lines (`logs` holds them).
             * @enum {string}
             */
            event: "start" | "progress" | "logs";
            /** @description How far the run is, 0 to 1, when the provider says; null otherwise. */
            progress: number | null;
            /** @description The prediction's place in the provider's queue (0 is next), when the provider says; null otherwise. */
            queue_position: number | null;
            /** @description On `logs` events only, the run's log so far (its last 200 lines), oldest first. */
            logs?: {
                /** Format: date-time */
                at: string;
                message: string;
            }[];
        };
        /** @description What the provider said about a completed result, when it said it (present only then, each field only when given): beside the result's own fields, to reproduce or place the output. It is recorded just after the completion, before the webhook is sent: a result read at the very moment it completes may not show it yet. Absent for a sandbox key's mock results and for providers that report none of these. */
        ProviderMetadata: {
            /** @description The seed the provider used; send it back as `seed` (where the model takes one) to reproduce the result. */
            seed?: number;
            /** @description Width in pixels of the output (the first one, for several images). */
            width?: number;
            /** @description Height in pixels of the output (the first one, for several images). */
            height?: number;
            /** @description Length in seconds of the video or audio output. */
            duration?: number;
            /** @description The prompt the provider actually used, when it rewrote the one sent. */
            revised_prompt?: string;
            /** @description The provider's own timings in milliseconds, by the provider's name for each step (e.g. `inference`, `predict`). */
            provider_timings?: {
                [key: string]: number;
            };
        };
        /**
         * @example {
         *       "balance": 4000,
         *       "held": 4,
         *       "unit": "credits (1000 credits = 1 USD)"
         *     }
         */
        Balance: {
            /** @description Spendable credit in credits (minor units; 1000 credits = 1 USD). */
            balance: number;
            /** @description Credit reserved by predictions still running, in credits; debited or released when they finish. */
            held: number;
            /** @description Unit of the amounts, `credits` (1000 credits = 1 USD). */
            unit: string;
        };
        /**
         * @example {
         *       "id": 7,
         *       "email": "ada@example.com",
         *       "email_verified": true,
         *       "role": "user",
         *       "created_at": "2026-11-20T14:00:00.000Z"
         *     }
         */
        UserResponse: {
            id: number;
            /** Format: email */
            email: string;
            email_verified: boolean;
            /** @enum {string} */
            role: "user" | "support" | "billing" | "admin";
            /** Format: date-time */
            created_at: string;
        };
        /**
         * @example {
         *       "id": 7,
         *       "email": "ada@example.com",
         *       "email_verified": true,
         *       "role": "user",
         *       "created_at": "2026-11-20T14:00:00.000Z",
         *       "balance": 4000,
         *       "scheduled_deletion_at": null
         *     }
         */
        UserDetails: {
            id: number;
            /** Format: email */
            email: string;
            email_verified: boolean;
            /** @enum {string} */
            role: "user" | "support" | "billing" | "admin";
            /** Format: date-time */
            created_at: string;
            /** @description Spendable credit in credits (1000 credits = 1 USD). */
            balance: number;
            /**
             * Format: date-time
             * @description When the account will be deleted (requestAccountDeletion); null when no deletion is scheduled.
             */
            scheduled_deletion_at: string | null;
        };
        /**
         * @example {
         *       "id": 412,
         *       "kind": "impersonation",
         *       "at": "2026-11-28T09:15:02.000Z",
         *       "staff_role": "support",
         *       "reason": "ticket 4411: cannot see her LoRA",
         *       "expires_at": "2026-11-28T09:45:02.000Z",
         *       "ended_at": null,
         *       "amount": null
         *     }
         */
        StaffAccessEntry: {
            /** @description The entry's id in the audit log. */
            id: number;
            /**
             * @description What the staff member did: opened an impersonated session (`impersonation`), opened one with a support login link (`support_login`), made a support login link or a password reset link, set the password through a reset link (`password_reset`), added or removed credit, refunded a prediction, set or removed a model discount.
             * @enum {string}
             */
            kind: "impersonation" | "support_login" | "support_login_link" | "password_reset_link" | "password_reset" | "credit" | "debit" | "refund" | "discount_set" | "discount_removed";
            /**
             * Format: date-time
             * @description When it happened.
             */
            at: string;
            /** @description The role of the staff member at the time (`support`, `billing` or `admin`); who they are is not shown. */
            staff_role: string;
            /** @description The reason the staff member gave (for `support_login`, the one given for the link, while the link is on record); an email address in it is replaced by `user:<id>` or `[address]`. */
            reason: string | null;
            /**
             * Format: date-time
             * @description For an impersonated session, when it ends at the latest; for a link, when it stops working; null otherwise.
             */
            expires_at: string | null;
            /**
             * Format: date-time
             * @description For an impersonated session ended before it expired (signing out, a password change), when; null otherwise, or when the session is no longer on record.
             */
            ended_at: string | null;
            /** @description For `credit`, `debit` and `refund`, the credits added (positive) or removed (negative); null otherwise. 1000 credits = 1 USD. */
            amount: number | null;
        };
        /**
         * @example {
         *       "items": [
         *         {
         *           "id": 412,
         *           "kind": "impersonation",
         *           "at": "2026-11-28T09:15:02.000Z",
         *           "staff_role": "support",
         *           "reason": "ticket 4411: cannot see her LoRA",
         *           "expires_at": "2026-11-28T09:45:02.000Z",
         *           "ended_at": null,
         *           "amount": null
         *         }
         *       ],
         *       "page": 1,
         *       "page_size": 20,
         *       "total": 1,
         *       "has_more": false
         *     }
         */
        PaginatedStaffAccessResponse: {
            items: components["schemas"]["StaffAccessEntry"][];
            page: number;
            page_size: number;
            total: number;
            has_more: boolean;
        };
        /**
         * @example {
         *       "deletion_requested": true,
         *       "scheduled_deletion_at": "2026-12-28T09:15:02.000Z"
         *     }
         */
        AccountDeletionResponse: {
            /** @description True while a deletion is scheduled. */
            deletion_requested: boolean;
            /**
             * Format: date-time
             * @description When the account will be deleted; null when no deletion is scheduled.
             */
            scheduled_deletion_at: string | null;
        };
        CreditTransaction: {
            id: number;
            /** @description What moved the credit, e.g. `signup` (sign-up credit), `topup` (a purchase or an admin top-up), `prediction` (a completed prediction's charge), `refund`, `adjustment` (an admin correction or deduction), `studio_revenue` (a whitelabel studio owner's markup on an end user's charged run; negative when a refund of that run takes it back). Open-ended: new kinds may appear, so treat an unknown one as a plain credit move. */
            kind: string;
            /** @description Signed amount in credits; positive adds credit, negative removes it. Null, in a team's ledger read by a member whose role lacks `read_balance`, on a row of no prediction (a top-up, a purchase, a plan's grant…): what was put into the wallet is the balance's business. */
            amount: number | null;
            /** @description Balance in credits after this transaction. Null in a team's ledger read by a member whose role lacks `read_balance` (as `balance` in getTeam). */
            balance_after: number | null;
            /** @description Null where `amount` is (a row of no prediction read without `read_balance`). */
            description: string | null;
            /** @description The prediction charged or refunded, if any. */
            request_id: string | null;
            /** @description The account that caused the move (in a team's ledger, the member; for an admin action, the account it was applied to). */
            user_id: number;
            /** Format: date-time */
            created_at: string;
            /** @description On a `hold` and its charge (`prediction`), the model's list price before any discount; null on other rows, on holds older than discounts, and in a team's ledger read without `read_balance` (the team's discounts are not shown to it). */
            list_price?: number | null;
            /** @description On a `hold` and its charge, the percent taken off `list_price` by the wallet's discount; null when none applied, and without `read_balance` as `list_price`. */
            discount_percent?: number | null;
            /** @description On a `hold`, the credits held; on a charge (`prediction`), the credits charged (the list price after the discount, rounded down, never below 1 credit unless the discount is 100 %); null on other rows. */
            charged?: number | null;
        };
        /**
         * @example {
         *       "items": [
         *         {
         *           "id": 311,
         *           "kind": "prediction",
         *           "amount": -4,
         *           "balance_after": 3996,
         *           "description": "canvas-v1-fast-text-to-image",
         *           "request_id": "01a2216fc1f0a3f19c0b5e7d2c84f1b6",
         *           "user_id": 7,
         *           "created_at": "2026-11-28T09:15:02.655Z",
         *           "list_price": 4,
         *           "discount_percent": null,
         *           "charged": 4
         *         }
         *       ],
         *       "page": 1,
         *       "page_size": 20,
         *       "total": 1,
         *       "has_more": false
         *     }
         */
        PaginatedTransactionResponse: {
            items: components["schemas"]["CreditTransaction"][];
            page: number;
            page_size: number;
            total: number | null;
            has_more: boolean;
        };
        /**
         * @example {
         *       "exported_at": "2026-11-28T09:15:02.000Z",
         *       "user": {
         *         "id": 7,
         *         "email": "ada@example.com",
         *         "email_verified": true,
         *         "role": "user",
         *         "created_at": "2026-11-20T14:00:00.000Z",
         *         "balance": 4000,
         *         "scheduled_deletion_at": null
         *       },
         *       "balance": {
         *         "balance": 4000,
         *         "held": 4,
         *         "unit": "credits (1000 credits = 1 USD)"
         *       },
         *       "alert_settings": {
         *         "low_balance_threshold": 5000,
         *         "monthly_budget": null,
         *         "monthly_budget_mode": "soft",
         *         "webhook_url": "https://hooks.example.com/mediagate/alerts"
         *       },
         *       "api_keys": [
         *         {
         *           "id": 12,
         *           "name": "ci",
         *           "prefix": "mg_live_Xq3v",
         *           "is_test": false,
         *           "ip_whitelist": [
         *             "203.0.113.0/24"
         *           ],
         *           "scopes": null,
         *           "rate_limit_per_minute": null,
         *           "max_concurrent": null,
         *           "expires_at": null,
         *           "spend_limit": 5000,
         *           "spend_limit_period": "month",
         *           "created_at": "2026-11-20T14:02:11.000Z",
         *           "last_used_at": "2026-11-28T09:15:02.000Z"
         *         }
         *       ],
         *       "oauth_clients": [
         *         {
         *           "id": "4",
         *           "client_id": "mgc_8fJ2kQ7wLx",
         *           "name": "ci",
         *           "allowed_scopes": [
         *             "generate:write",
         *             "generate:read"
         *           ],
         *           "created_at": "2026-11-28T09:15:02.000Z"
         *         }
         *       ],
         *       "team_memberships": [
         *         {
         *           "team_id": 3,
         *           "name": "Design team",
         *           "role": "owner",
         *           "joined_at": "2026-11-22T12:00:00.000Z"
         *         }
         *       ],
         *       "embed_codes": [
         *         {
         *           "id": 3,
         *           "kind": "embed",
         *           "name": "homepage widget",
         *           "models": [
         *             "canvas-v1-fast-text-to-image"
         *           ],
         *           "preset": null,
         *           "locked_inputs": {
         *             "num_images": 1
         *           },
         *           "allowed_fields": [
         *             "prompt"
         *           ],
         *           "allowed_origins": [
         *             "https://www.example.com"
         *           ],
         *           "max_cost_per_run": 10,
         *           "daily_cap": 2000,
         *           "monthly_cap": 20000,
         *           "rate_limit_per_minute": 10,
         *           "max_concurrent": null,
         *           "team_id": null,
         *           "created_at": "2026-11-28T09:15:02.000Z",
         *           "revoked_at": null
         *         }
         *       ],
         *       "studios": [
         *         {
         *           "id": 4,
         *           "slug": "ada-art",
         *           "name": "Ada's art studio",
         *           "branding": {
         *             "primary_color": "#1a2b3c"
         *           },
         *           "domains": [
         *             "art.example.com"
         *           ],
         *           "domain_verification": [
         *             {
         *               "hostname": "art.example.com",
         *               "status": "verified",
         *               "record": {
         *                 "type": "TXT",
         *                 "name": "_mediagate-challenge.art.example.com",
         *                 "value": "mediagate-domain-verification=9a1b7d4c2e8a6f9b1d3e5c7a905f0c3e"
         *               },
         *               "verified_at": "2026-11-27T10:00:00.000Z",
         *               "checked_at": "2026-11-27T10:00:00.000Z",
         *               "problem": null
         *             }
         *           ],
         *           "allowed_models": [
         *             "canvas-v1-fast-text-to-image"
         *           ],
         *           "markup_percent": 20,
         *           "model_prices": {},
         *           "payer_mode": "end_user_pays",
         *           "team_id": null,
         *           "created_at": "2026-11-27T09:00:00.000Z",
         *           "disabled_at": null
         *         }
         *       ],
         *       "subscription": {
         *         "user_id": 7,
         *         "team_id": null,
         *         "plan": "pro",
         *         "next_plan": null,
         *         "status": "active",
         *         "current_period_start": "2026-11-20T14:00:00.000Z",
         *         "current_period_end": "2026-12-20T14:00:00.000Z",
         *         "credits_per_period": 50000,
         *         "rollover_cap": 25000,
         *         "period": "month",
         *         "grant_remaining": 31000
         *       },
         *       "model_discounts": [
         *         {
         *           "id": 2,
         *           "email": "ada@example.com",
         *           "team_id": null,
         *           "reason": "launch partner",
         *           "updated_at": "2026-11-28T09:15:02.000Z",
         *           "model": "*",
         *           "percent_off": 20,
         *           "expires_at": "2027-01-01T00:00:00.000Z",
         *           "created_at": "2026-11-28T09:15:02.000Z"
         *         }
         *       ],
         *       "credit_transactions": [
         *         {
         *           "id": 311,
         *           "kind": "prediction",
         *           "amount": -4,
         *           "balance_after": 3996,
         *           "description": "canvas-v1-fast-text-to-image",
         *           "request_id": "01a2216fc1f0a3f19c0b5e7d2c84f1b6",
         *           "user_id": 7,
         *           "created_at": "2026-11-28T09:15:02.655Z",
         *           "list_price": 4,
         *           "discount_percent": null,
         *           "charged": 4
         *         }
         *       ],
         *       "predictions": [
         *         {
         *           "id": "01a2216fc1f0a3f19c0b5e7d2c84f1b6",
         *           "request_id": "01a2216fc1f0a3f19c0b5e7d2c84f1b6",
         *           "model": "canvas-v1-fast-text-to-image",
         *           "status": "completed",
         *           "review_status": "unreviewed",
         *           "input": {
         *             "prompt": "a lighthouse at dusk",
         *             "width": 768,
         *             "height": 512,
         *             "num_images": 1,
         *             "num_inference_steps": 4
         *           },
         *           "outputs": [
         *             "https://gateway.example.com/files/outputs/01a2216fc1f0a3f19c0b5e7d2c84f1b6/0.png"
         *           ],
         *           "outputs_expired": false,
         *           "has_nsfw_contents": [
         *             false
         *           ],
         *           "error": null,
         *           "error_code": null,
         *           "cost": 4,
         *           "is_test": false,
         *           "team_id": null,
         *           "webhook": "https://hooks.example.com/mediagate",
         *           "created_at": "2026-11-28T09:15:02.000Z",
         *           "started_at": "2026-11-28T09:15:02.140Z",
         *           "completed_at": "2026-11-28T09:15:02.655Z",
         *           "executionTime": "0.655s",
         *           "timings": {
         *             "inference": 498
         *           },
         *           "webhook_deliveries": [
         *             {
         *               "id": "msg_2Lk9Qw3Xr8Zt1Vn6Bm4Jp7Hs",
         *               "url": "https://hooks.example.com/mediagate",
         *               "status": "delivered",
         *               "attempts": 1,
         *               "last_status_code": 200,
         *               "last_error": null,
         *               "created_at": "2026-11-28T09:15:02.655Z",
         *               "attempt_log": [
         *                 {
         *                   "number": 1,
         *                   "started_at": "2026-11-28T09:15:02.701Z",
         *                   "duration_ms": 84,
         *                   "status_code": 200,
         *                   "error": null,
         *                   "response_excerpt": "ok"
         *                 }
         *               ]
         *             }
         *           ]
         *         }
         *       ],
         *       "media_assets": [
         *         {
         *           "id": 9,
         *           "name": "cat.png",
         *           "url": "https://gateway.example.com/files/uploads/0b5e7d2c84f14a6e9d3c5b7a1f2e8d40/cat.png",
         *           "media_type": "image",
         *           "content_type": "image/png",
         *           "size_bytes": 48213,
         *           "request_id": null,
         *           "team_id": null,
         *           "created_at": "2026-11-28T09:15:02.000Z"
         *         }
         *       ],
         *       "loras": [
         *         {
         *           "id": 12,
         *           "name": "my-cat",
         *           "lora_type": "character",
         *           "title": "My cat",
         *           "description": "Our tabby, from 20 photos.",
         *           "trigger_words": [
         *             "mycat"
         *           ],
         *           "preview_url": null,
         *           "weights_url": "https://weights.example.com/my-cat.safetensors",
         *           "base_model": "lumen",
         *           "visibility": "owned",
         *           "team_id": null,
         *           "created_at": "2026-11-27T10:00:00.000Z"
         *         }
         *       ],
         *       "alerts": [
         *         {
         *           "id": 7,
         *           "kind": "low_balance",
         *           "api_key_id": null,
         *           "period": "1",
         *           "threshold": 5000,
         *           "value": 4000,
         *           "created_at": "2026-11-28T09:15:02.700Z",
         *           "webhook_deliveries": [
         *             {
         *               "id": "msg_7Hd2Lq9Wx4Zt1Vn6Bm4Jp7Hs",
         *               "url": "https://hooks.example.com/mediagate/alerts",
         *               "status": "delivered",
         *               "attempts": 1,
         *               "last_status_code": 200,
         *               "last_error": null,
         *               "created_at": "2026-11-28T09:15:02.700Z",
         *               "attempt_log": [
         *                 {
         *                   "number": 1,
         *                   "started_at": "2026-11-28T09:15:02.731Z",
         *                   "duration_ms": 61,
         *                   "status_code": 200,
         *                   "error": null,
         *                   "response_excerpt": "ok"
         *                 }
         *               ]
         *             }
         *           ]
         *         }
         *       ]
         *     }
         */
        AccountExport: {
            /** Format: date-time */
            exported_at: string;
            user: components["schemas"]["UserDetails"];
            balance: components["schemas"]["Balance"];
            /** @description The personal wallet's alert settings, as getAlertSettings shows them. */
            alert_settings: components["schemas"]["AlertSettings"];
            /** @description The live personal keys, as getUserKeys lists them (prefix only, never the value or its digest). */
            api_keys: components["schemas"]["APIKeyResponse"][];
            /** @description As listOAuthClients lists them (never the secret). */
            oauth_clients: components["schemas"]["OAuthClientResponse"][];
            /** @description The teams the caller is a member of (deleted teams aside), oldest team first. */
            team_memberships: {
                team_id: number;
                name: string;
                role: components["schemas"]["TeamRole"];
                /** Format: date-time */
                joined_at: string;
            }[];
            /** @description The personal embed and agent embed codes, revoked ones included, oldest first, as listEmbedCodes lists them but without `code`: the code itself is a credential that spends the wallet, and the export is a file kept outside the gateway (listEmbedCodes shows it). Empty for a credential without `keys:manage`, as listEmbedCodes refuses it. */
            embed_codes: components["schemas"]["AccountExportEmbedCode"][];
            /** @description The personal whitelabel studios, disabled ones included, oldest first, as listStudios lists them (settings, domains and their verification). Empty for a credential without `keys:manage`, as listStudios refuses it. */
            studios: components["schemas"]["StudioResponse"][];
            /** @description The personal wallet's subscription, as getMySubscription shows it (`status` none when it never had one). */
            subscription: components["schemas"]["SubscriptionResponse"];
            /** @description The personal wallet's model discounts, expired ones included (myModelDiscounts shows those not expired), oldest first. */
            model_discounts: components["schemas"]["ModelDiscount"][];
            credit_transactions: components["schemas"]["CreditTransaction"][];
            predictions: components["schemas"]["UsageLogDetailResponse"][];
            media_assets: components["schemas"]["MediaAssetResponse"][];
            /** @description The caller's personal LoRAs (listOwnLoras without team_id), oldest first; a team's belong to the team. */
            loras: components["schemas"]["LoraData"][];
            /** @description Every alert sent for the personal wallet and its keys, oldest first (listAlerts shows the last 100), each with its deliveries to the alert webhook URL and their attempts. Empty in a sandbox key's export, as in its delivery log. */
            alerts: (components["schemas"]["Alert"] & {
                webhook_deliveries: components["schemas"]["WebhookDelivery"][];
            })[];
        };
        /** @description An email address. Surrounding white space is ignored and case does not matter. */
        EmailAddress: string;
        RegisterLoginRequest: {
            email: components["schemas"]["EmailAddress"];
            password: string;
        };
        /**
         * @example {
         *       "access_token": "mgs_Q8wE3rT6yU1iO4pA7sD0fG2hJ5kL9zXcVbNm3qWeRt",
         *       "token_type": "bearer",
         *       "expires_in": 2592000
         *     }
         */
        SessionResponse: {
            /** @description Opaque session token; send it as `Authorization: Bearer <token>`. */
            access_token: string;
            /** @enum {string} */
            token_type: "bearer";
            /** @description Seconds until the session expires. */
            expires_in: number;
            /** @description Only when the sign-in did more than start a session (loginOtp's code that first proved a never-verified address took the account back from whoever registered it) and says what. */
            detail?: string;
        };
        /** @description Exactly one of `amount` and `plan`. */
        CheckoutSessionRequest: {
            /** @description Credit to buy, in the currency's minor units (cents); within the operator's limits. */
            amount?: number;
            /** @description A subscription plan the operator sells online (getSiteInfo lists them). */
            plan?: string;
        };
        /**
         * @example {
         *       "id": "cs_test_a1B2c3D4e5F6",
         *       "url": "https://checkout.stripe.com/c/pay/cs_test_a1B2c3D4e5F6"
         *     }
         */
        CheckoutSessionResponse: {
            /** @description The Checkout Session's id (`cs_…`); the purchase shows it once paid. */
            id: string;
            /**
             * Format: uri
             * @description Stripe's payment page: send the browser there.
             */
            url: string;
        };
        /**
         * @example {
         *       "url": "https://billing.stripe.com/p/session/test_YWNjdF8x"
         *     }
         */
        PortalSessionResponse: {
            /**
             * Format: uri
             * @description Stripe's billing portal for this wallet: send the browser there.
             */
            url: string;
        };
        /**
         * @example {
         *       "purchases": [
         *         {
         *           "id": 7,
         *           "checkout_session_id": "cs_test_a1B2c3D4e5F6",
         *           "amount": 2000,
         *           "currency": "usd",
         *           "credits": 20000,
         *           "refunded_amount": 0,
         *           "credits_removed": 0,
         *           "created_at": "2026-11-28T09:20:00.000Z"
         *         }
         *       ],
         *       "has_more": false
         *     }
         */
        PurchaseList: {
            has_more: boolean;
            purchases: {
                id: number;
                checkout_session_id: string;
                /** @description Paid, in the currency's minor units. */
                amount: number;
                currency: string;
                /** @description Credits it bought. */
                credits: number;
                /** @description Refunded so far, in minor units. */
                refunded_amount: number;
                /** @description Credits its refunds took back. */
                credits_removed: number;
                /** Format: date-time */
                created_at: string;
            }[];
        };
        /**
         * @example {
         *       "invoices": [
         *         {
         *           "id": "in_1Q2w3E4r",
         *           "number": "MG-0001",
         *           "status": "paid",
         *           "amount_due": 1000,
         *           "amount_paid": 1000,
         *           "currency": "usd",
         *           "created_at": "2026-11-28T09:20:00.000Z",
         *           "hosted_invoice_url": "https://invoice.stripe.com/i/acct_1/test_1",
         *           "invoice_pdf": "https://pay.stripe.com/invoice/acct_1/test_1/pdf"
         *         }
         *       ]
         *     }
         */
        InvoiceList: {
            invoices: {
                id: string;
                number: string | null;
                /** @description Stripe's status: draft, open, paid, uncollectible or void. */
                status: string | null;
                amount_due: number;
                amount_paid: number;
                currency: string;
                /** Format: date-time */
                created_at: string;
                /** Format: uri */
                hosted_invoice_url: string | null;
                /** Format: uri */
                invoice_pdf: string | null;
            }[];
        };
        /**
         * @example {
         *       "items": [
         *         {
         *           "id": 42,
         *           "email": "ada@example.com",
         *           "role": "user",
         *           "email_verified": true,
         *           "studio_id": null,
         *           "balance": 9995,
         *           "held": 0,
         *           "created_at": "2026-11-28T09:00:00.000Z",
         *           "deleted_at": null,
         *           "scheduled_deletion_at": null
         *         }
         *       ],
         *       "page": 1,
         *       "page_size": 25,
         *       "total": 1,
         *       "has_more": false
         *     }
         */
        AdminUserList: {
            page: number;
            page_size: number;
            /** @description Every account matching the filters. */
            total: number;
            has_more: boolean;
            items: {
                id: number;
                email: string;
                /** @enum {string} */
                role: "user" | "support" | "billing" | "admin";
                email_verified: boolean;
                studio_id: number | null;
                balance: number;
                held: number;
                /** Format: date-time */
                created_at: string;
                /**
                 * Format: date-time
                 * @description When the account was erased.
                 */
                deleted_at: string | null;
                /**
                 * Format: date-time
                 * @description When a requested deletion will erase it.
                 */
                scheduled_deletion_at: string | null;
            }[];
        };
        /**
         * @example {
         *       "user_id": 42,
         *       "runs": [
         *         {
         *           "request_id": "01a2253af9e7c3d2a9b8f0e1d2c3b4a5",
         *           "model": "lumen-dev-text-to-image",
         *           "status": "failed",
         *           "price": 30,
         *           "is_test": false,
         *           "team_id": null,
         *           "provider": "replicate",
         *           "error": "the provider refused the input: NSFW content detected",
         *           "error_code": "upstream_rejected",
         *           "created_at": "2026-11-28T09:10:00.000Z",
         *           "completed_at": "2026-11-28T09:10:04.000Z"
         *         }
         *       ]
         *     }
         */
        AdminUserRuns: {
            user_id: number;
            runs: {
                request_id: string;
                model: string;
                status: components["schemas"]["PredictionStatus"];
                /** @description Credits held or charged. */
                price: number;
                is_test: boolean;
                team_id: number | null;
                /** @description The provider that took the job; null for a model this gateway runs itself, or a run that failed before any provider accepted it (the error then says why). */
                provider: string | null;
                error: string | null;
                error_code: string | null;
                /** Format: date-time */
                created_at: string;
                /** Format: date-time */
                completed_at: string | null;
            }[];
        };
        /**
         * @example {
         *       "since": "2026-11-15T00:00:00.000Z",
         *       "users": {
         *         "total": 120,
         *         "verified": 101,
         *         "deleted": 2,
         *         "new": 14
         *       },
         *       "days": [
         *         {
         *           "day": "2026-11-28",
         *           "runs": 340,
         *           "completed": 320,
         *           "failed": 15,
         *           "cancelled": 5,
         *           "spend": 41250
         *         }
         *       ],
         *       "failures": [
         *         {
         *           "day": "2026-11-28",
         *           "model": "lumen-dev-text-to-image",
         *           "provider": "replicate",
         *           "failures": 9
         *         }
         *       ]
         *     }
         */
        AdminStats: {
            /**
             * Format: date-time
             * @description The start of the first day counted (UTC).
             */
            since: string;
            users: {
                total: number;
                verified: number;
                deleted: number;
                /** @description Created since `since`. */
                new: number;
            };
            /** @description Every day of the window, oldest first. */
            days: {
                /** Format: date */
                day: string;
                /** @description Predictions accepted that day, sandbox ones included. */
                runs: number;
                completed: number;
                failed: number;
                cancelled: number;
                /** @description Credits charged that day for completed production runs and for chat calls cancelled while they answered (what they relayed). */
                spend: number;
            }[];
            /** @description Failed runs per day, model and provider, newest day first. */
            failures: {
                /** Format: date */
                day: string;
                model: string;
                /** @description null: the run failed before any provider accepted it, or the model runs here. */
                provider: string | null;
                failures: number;
            }[];
        };
        /**
         * @example {
         *       "items": [
         *         {
         *           "request_id": "01a2253af9e7c3d2a9b8f0e1d2c3b4a5",
         *           "model": "lumen-dev-text-to-image",
         *           "status": "failed",
         *           "price": 30,
         *           "is_test": false,
         *           "team_id": null,
         *           "provider": "replicate",
         *           "error": "the provider refused the input: NSFW content detected",
         *           "error_code": "upstream_rejected",
         *           "created_at": "2026-11-28T09:10:00.000Z",
         *           "completed_at": "2026-11-28T09:10:04.000Z",
         *           "user_id": 42,
         *           "email": "ada@example.com",
         *           "provider_model": "acme/image-dev"
         *         }
         *       ],
         *       "page": 1,
         *       "has_more": false
         *     }
         */
        AdminFailureList: {
            page: number;
            has_more: boolean;
            items: {
                request_id: string;
                model: string;
                status: components["schemas"]["PredictionStatus"];
                /** @description Credits held or charged. */
                price: number;
                is_test: boolean;
                team_id: number | null;
                /** @description The provider that took the job; null for a model this gateway runs itself, or a run that failed before any provider accepted it (the error then says why). */
                provider: string | null;
                error: string | null;
                error_code: string | null;
                /** Format: date-time */
                created_at: string;
                /** Format: date-time */
                completed_at: string | null;
                user_id: number;
                email: string;
                /** @description The provider's own name of the model. */
                provider_model: string | null;
            }[];
        };
        /**
         * @description A session delivered as the dashboard's HttpOnly cookie (`session=cookie`); the token itself is only in the cookie.
         * @example {
         *       "token_type": "cookie",
         *       "csrf_token": "b1Xo0rJ7nH4eTqPzWc2yLg9vKsM3dAuF6iRbN8tQwEo",
         *       "expires_in": 604800
         *     }
         */
        CookieSessionResponse: {
            /** @enum {string} */
            token_type: "cookie";
            /** @description Send it as `X-CSRF-Token` on every state-changing request made with the cookie. getSession answers it again (after a reload, in a new tab). */
            csrf_token: string;
            /** @description Seconds until the session expires. */
            expires_in: number;
            /** @description Only when the sign-in did more than start a session (see SessionResponse's `detail`). */
            detail?: string;
        };
        /**
         * @example {
         *       "user": {
         *         "id": 42,
         *         "email": "ada@example.com",
         *         "email_verified": true,
         *         "role": "user",
         *         "created_at": "2026-11-28T09:00:00.000Z"
         *       },
         *       "expires_at": "2026-12-05T09:00:00.000Z",
         *       "cookie": true,
         *       "csrf_token": "b1Xo0rJ7nH4eTqPzWc2yLg9vKsM3dAuF6iRbN8tQwEo",
         *       "impersonated_by": null
         *     }
         */
        SessionInfo: {
            user: components["schemas"]["UserResponse"];
            /** Format: date-time */
            expires_at: string;
            /** @description True when the session came as the dashboard's cookie rather than an Authorization header. */
            cookie: boolean;
            /** @description For a cookie session, the token its state-changing requests send as `X-CSRF-Token`; null for a bearer session, which needs none. */
            csrf_token: string | null;
            /** @description The staff member's account id when staff opened this session to act as the user; null otherwise. */
            impersonated_by: number | null;
        };
        /**
         * @example {
         *       "name": "mediagate",
         *       "studio": null,
         *       "disabled": false,
         *       "registration": "open",
         *       "sign_in": {
         *         "password": true,
         *         "code": true,
         *         "google": false
         *       },
         *       "payments": {
         *         "enabled": true,
         *         "currency": "usd",
         *         "credits_per_unit": 1000,
         *         "presets": [
         *           500,
         *           2000,
         *           5000,
         *           10000
         *         ],
         *         "min_amount": 500,
         *         "max_amount": 100000,
         *         "plans": [
         *           {
         *             "name": "starter",
         *             "credits_per_period": 10000,
         *             "rollover_cap": 0,
         *             "period": "month",
         *             "online": true
         *           }
         *         ]
         *       }
         *     }
         */
        SiteInfo: {
            /** @description What to call the site in its pages; the studio's name on a studio's storefront. */
            name: string;
            /** @description The whitelabel studio whose storefront this is; null on the gateway itself. */
            studio: null | {
                slug: string;
                name: string;
                /** Format: uri */
                logo_url: string | null;
                primary_color: string | null;
                accent_color: string | null;
                /**
                 * @description `end_user_pays`: its users buy and spend their own credit; `owner_pays`: the studio pays for their runs.
                 * @enum {string}
                 */
                payer_mode: "owner_pays" | "end_user_pays";
            };
            /** @description The studio has been disabled: its users may still sign in (password, one-time code, password reset), read their profile, export their account and ask for its deletion (or cancel it), and every other request in its context is 403 `studio_disabled`. Then `registration` is `closed` (no one may register), `sign_in.google` and `payments.enabled` are false and `payments.plans` is empty. False on the gateway itself and on a studio that serves. */
            disabled: boolean;
            /**
             * @description `closed`: only an address holding a pending team invitation may create an account.
             * @enum {string}
             */
            registration: "open" | "closed";
            sign_in: {
                password: boolean;
                /** @description One-time codes mailed to the address. */
                code: boolean;
                /** @description Google sign-in is configured. */
                google: boolean;
            };
            /** @description Buying credit with a card (createCheckoutSession). Amounts are in the currency's minor unit (cents). */
            payments: {
                /** @description Payments are configured here (and, on a studio's storefront, its users pay for their own runs). */
                enabled: boolean;
                /** @description Lower-case ISO 4217 code, e.g. `usd`. */
                currency: string;
                /** @description Credits one unit of the currency buys (1000 = 1,000 credits per dollar). */
                credits_per_unit: number;
                /** @description Amounts offered as one-click choices. */
                presets: number[];
                min_amount: number;
                max_amount: number;
                /** @description The subscription plans; `online` ones can be bought with createCheckoutSession. */
                plans: {
                    name: string;
                    credits_per_period: number;
                    rollover_cap: number;
                    /** @description `month`, `year`, or a number of days such as `30d`. */
                    period: string;
                    online: boolean;
                }[];
            };
        };
        /**
         * @example {
         *       "api_key": "mg_live_Xq3vN8r2TfYw7LkP0aZc4eHj9sUoB1dGmQ6yR5tVxWi",
         *       "key": {
         *         "id": 12,
         *         "name": "cli",
         *         "prefix": "mg_live_Xq3v",
         *         "is_test": false,
         *         "ip_whitelist": [],
         *         "scopes": null,
         *         "rate_limit_per_minute": null,
         *         "max_concurrent": null,
         *         "expires_at": null,
         *         "spend_limit": null,
         *         "spend_limit_period": null,
         *         "created_at": "2026-11-28T09:15:02.000Z",
         *         "last_used_at": null
         *       }
         *     }
         */
        CliLoginResponse: {
            /** @description The full API key value; shown only in this response (the same name as on every answer that returns a new key's secret). */
            api_key: string;
            /**
             * @deprecated
             * @description The new key's record (never its value). Kept for existing clients; the record's fields are also those of `GET /app/get_user_keys`. Will be removed in the next major version of the interface.
             */
            key: components["schemas"]["APIKeyResponse"];
        };
        OtpRequest: {
            email: components["schemas"]["EmailAddress"];
            /** @description The six-digit one-time code sent by email. */
            otp: string;
        };
        OtpLoginRequest: {
            email: components["schemas"]["EmailAddress"];
        };
        ResetPasswordRequest: {
            email: components["schemas"]["EmailAddress"];
            /** @description The six-digit code sent by forgotPassword. */
            otp: string;
            new_password: string;
            /**
             * @description True also revokes every API key (production and sandbox) and every personal embed and agent embed code, deletes every OAuth client with its tokens, and replaces the webhook signing secrets (production and sandbox) with no overlap ("sign out everywhere"). Done whatever this says when the account's email address had never been verified before this reset.
             * @default false
             */
            revoke_all_credentials?: boolean;
        };
        SupportLoginRequest: {
            /** @description The single-use token carried by a support login link. */
            token: string;
        };
        SupportPasswordResetRequest: {
            /** @description The single-use token carried by a password reset link. */
            token: string;
            new_password: string;
        };
        /**
         * @example {
         *       "url": "https://accounts.google.com/o/oauth2/v2/auth?client_id=1234.apps.googleusercontent.com&redirect_uri=https%3A%2F%2Fgateway.example.com%2Fauth%2Fgoogle%2Fcallback&response_type=code&scope=openid%20email&state=Zx8Kq2"
         *     }
         */
        GoogleUrlResponse: {
            /**
             * Format: uri
             * @description Google sign-in URL to open in the browser.
             */
            url: string;
        };
        GoogleMobileLoginRequest: {
            /** @description Google ID token (a JWT) obtained by the mobile app. */
            id_token: string;
        };
        APIKeyCreateRequest: {
            /** @description Label shown in the dashboard. */
            name?: string;
            /**
             * @description True creates a sandbox key (mock outputs, instant, never billed).
             * @default false
             */
            is_test?: boolean;
            /** @description IP addresses or CIDR ranges (IPv4 or IPv6) allowed to use the key; empty or absent allows any address. A key created by an IP-restricted key inherits that restriction when this is absent or empty, and otherwise every entry must lie within it (403 if not). */
            ip_whitelist?: string[];
            /** @description Model submits per minute this key may make; null or absent uses the gateway's default (`GENERATE_RATE_PER_KEY`). The account's own limit still applies on top. A key created by a key inherits the creator's value when this is absent, and may not ask for more than it (403). */
            rate_limit_per_minute?: number | null;
            /** @description Predictions of this key that may be unfinished at once; null or absent uses the gateway's default (`GENERATE_CONCURRENT_PER_KEY`). The account's own limit still applies on top. Inherited from a creating key like `rate_limit_per_minute`. */
            max_concurrent?: number | null;
            /**
             * Format: date-time
             * @description When the key stops working (401 `api_key_expired`); absent or null, never. Must be in the future (422). Validated like updateApiKey's. A key created by a key that expires expires no later than its creator; absent, it inherits the creator's expiry, and a later instant or null is 403.
             */
            expires_at?: string | null;
            /** @description Credits the key may commit per `spend_limit_period` (needed with it); absent or null, no limit. A key created by a key with a spend limit inherits it when both fields are absent, and may not ask for more, for none, or for a day's limit where the creator has a month's (403). */
            spend_limit?: number | null;
            /**
             * @description The period of `spend_limit`, a UTC calendar day or month.
             * @enum {string}
             */
            spend_limit_period?: "day" | "month";
        };
        APIKeyUpdateRequest: {
            /** @description New label. */
            name?: string;
            /** @description Replaces the whitelist; an empty array allows any address. Entries are stored normalised. */
            ip_whitelist?: string[];
            /**
             * Format: date-time
             * @description When the key stops working (401 `api_key_expired`); null removes the expiry. Must be in the future.
             */
            expires_at?: string | null;
            /** @description Credits the key may commit per `spend_limit_period`; null removes the limit. Needs `spend_limit_period` when it is set for the first time. */
            spend_limit?: number | null;
            /**
             * @description The period of `spend_limit`, a UTC calendar day or month.
             * @enum {string}
             */
            spend_limit_period?: "day" | "month";
            /** @description An alert (by email, listed by listAlerts) once the key has spent this many credits in its period (the period of `spend_limit`, else the UTC month); nothing is refused. Null removes it. */
            soft_spend_limit?: number | null;
            /** @description Model submits per minute this key may make; null returns to the gateway's default (`GENERATE_RATE_PER_KEY`). When the call is made with an API key, it may not be set above that key's own limit (403). */
            rate_limit_per_minute?: number | null;
            /** @description Predictions of this key that may be unfinished at once; null returns to the gateway's default (`GENERATE_CONCURRENT_PER_KEY`). Bounded like `rate_limit_per_minute`. */
            max_concurrent?: number | null;
            /** @description Narrows the scopes the key acts with (a key made with an OAuth token holds at most that token's). Each must be one the key holds now, so a key can only lose scopes (403 naming the others); a key holding all five may narrow to any. To give a key more, create a new one. */
            scopes?: ("generate:write" | "generate:read" | "files:write" | "account:read" | "keys:manage")[];
        };
        APIKeyRotateRequest: {
            /**
             * @description How long the current secret keeps working after the rotation, in seconds (at most 30 days; 0 stops it at once). Afterwards it is refused with 401 `api_key_expired`. For a team key, removing the member who held the replaced secret from the team ends it at once.
             * @default 86400
             */
            grace_seconds?: number;
        };
        /**
         * @example {
         *       "id": 13,
         *       "name": "deploy",
         *       "prefix": "mg_live_Hk2P",
         *       "is_test": false,
         *       "ip_whitelist": [],
         *       "scopes": null,
         *       "rate_limit_per_minute": null,
         *       "max_concurrent": null,
         *       "expires_at": null,
         *       "spend_limit": null,
         *       "spend_limit_period": null,
         *       "rotated_at": "2026-11-28T10:00:00.000Z",
         *       "grace_until": "2026-11-29T10:00:00.000Z",
         *       "created_at": "2026-11-20T09:15:02.000Z",
         *       "last_used_at": "2026-11-28T09:59:40.000Z",
         *       "api_key": "mg_live_Hk2PqR8sT1uV4wX7yZ0aB3cD6eF9gH2iJ5kL8mN1oP",
         *       "key": "mg_live_Hk2PqR8sT1uV4wX7yZ0aB3cD6eF9gH2iJ5kL8mN1oP"
         *     }
         */
        APIKeyRotatedResponse: components["schemas"]["APIKeyCreatedResponse"] & {
            /**
             * Format: date-time
             * @description Until when the replaced secret still works; null when it stopped at once.
             */
            grace_until: string | null;
            /** @description For a team key: the team it belongs to. */
            team_id?: number;
            /** @description For a team key: the member who holds its secret, who created it or last rotated it (a rotation makes the rotator its creator); removing that member revokes it. */
            created_by?: number;
        };
        /**
         * @example {
         *       "id": 12,
         *       "name": "ci",
         *       "prefix": "mg_live_Xq3v",
         *       "is_test": false,
         *       "ip_whitelist": [
         *         "203.0.113.0/24"
         *       ],
         *       "scopes": null,
         *       "rate_limit_per_minute": null,
         *       "max_concurrent": null,
         *       "expires_at": null,
         *       "spend_limit": 5000,
         *       "spend_limit_period": "month",
         *       "created_at": "2026-11-20T14:02:11.000Z",
         *       "last_used_at": "2026-11-28T09:15:02.000Z"
         *     }
         */
        APIKeyResponse: {
            id: number;
            name: string;
            /** @description First characters of the key, to recognise it. */
            prefix: string;
            /** @description True for a sandbox key. */
            is_test: boolean;
            ip_whitelist: string[];
            /** @description The scopes the key acts with; null means all five. A key created with an OAuth access token carries at most that token's scopes, and a key created by such a key inherits them. */
            scopes?: string[] | null;
            /** @description The key's own limit of model submits per minute; null means the gateway's default. */
            rate_limit_per_minute?: number | null;
            /** @description The key's own limit of unfinished predictions; null means the gateway's default. */
            max_concurrent?: number | null;
            /**
             * Format: date-time
             * @description When the key stops working; null never (set with updateApiKey).
             */
            expires_at?: string | null;
            /** @description Credits the key may commit per `spend_limit_period`; null no limit. */
            spend_limit?: number | null;
            /** @enum {string|null} */
            spend_limit_period?: "day" | "month" | null;
            /** @description Credits after which the key's spending alerts (once per period); null none. */
            soft_spend_limit?: number | null;
            /** @description In lists and update answers, for a key with a spend limit, the credits it has committed in the current period of its limit (the UTC day or month; held and settled predictions); null without a limit. */
            spend_so_far?: number | null;
            /**
             * Format: date-time
             * @description When the key last got a new secret (rotateApiKey); null if never.
             */
            rotated_at?: string | null;
            /**
             * Format: date-time
             * @description After a rotation, until when the replaced secret still works; null when it no longer does.
             */
            grace_until?: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            last_used_at: string | null;
        };
        /**
         * @example {
         *       "id": 13,
         *       "name": "sandbox",
         *       "prefix": "mg_test_pR7k",
         *       "is_test": true,
         *       "ip_whitelist": [],
         *       "scopes": null,
         *       "rate_limit_per_minute": null,
         *       "max_concurrent": null,
         *       "created_at": "2026-11-28T09:15:02.000Z",
         *       "last_used_at": null,
         *       "api_key": "mg_test_pR7kT2wZ8nXc4vB1mQ9sLd6yHf3jGa0eUoK5iNrPtW",
         *       "key": "mg_test_pR7kT2wZ8nXc4vB1mQ9sLd6yHf3jGa0eUoK5iNrPtW"
         *     }
         */
        APIKeyCreatedResponse: {
            id: number;
            name: string;
            /** @description First characters of the key, to recognise it. */
            prefix: string;
            /** @description True for a sandbox key. */
            is_test: boolean;
            ip_whitelist: string[];
            /** @description The scopes the key acts with; null means all five. A key created with an OAuth access token carries at most that token's scopes, and a key created by such a key inherits them. */
            scopes?: string[] | null;
            /** @description The key's own limit of model submits per minute; null means the gateway's default. */
            rate_limit_per_minute?: number | null;
            /** @description The key's own limit of unfinished predictions; null means the gateway's default. */
            max_concurrent?: number | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            last_used_at: string | null;
            /** @description The full key value; shown only in this response. Every answer that returns a new key's secret names it `api_key` (this one, the team key's and the CLI sign-in's). */
            api_key: string;
            /**
             * @deprecated
             * @description The same value as `api_key`, kept for clients written before `api_key` existed. Read `api_key` instead; `key` will be removed in the next major version of the interface.
             */
            key: string;
        };
        /**
         * @example {
         *       "id": 12,
         *       "deleted": true
         *     }
         */
        DeleteResponse: {
            id: number;
            deleted: boolean;
        };
        /** @enum {string} */
        OAuthScope: "generate:write" | "generate:read" | "files:write" | "account:read" | "keys:manage";
        /**
         * @example {
         *       "issuer": "https://gateway.example.com",
         *       "token_endpoint": "https://gateway.example.com/oauth/token",
         *       "grant_types_supported": [
         *         "client_credentials"
         *       ],
         *       "response_types_supported": [],
         *       "scopes_supported": [
         *         "generate:write",
         *         "generate:read",
         *         "files:write",
         *         "account:read",
         *         "keys:manage"
         *       ],
         *       "token_endpoint_auth_methods_supported": [
         *         "client_secret_basic",
         *         "client_secret_post"
         *       ],
         *       "service_documentation": "https://gateway.example.com/docs"
         *     }
         */
        AuthorizationServerMetadata: {
            /** Format: uri */
            issuer: string;
            /** Format: uri */
            token_endpoint: string;
            grant_types_supported: string[];
            /** @description Empty: there is no authorization endpoint. */
            response_types_supported?: string[];
            scopes_supported: components["schemas"]["OAuthScope"][];
            token_endpoint_auth_methods_supported: string[];
            /** Format: uri */
            service_documentation?: string;
        };
        /**
         * @example {
         *       "resource": "https://gateway.example.com",
         *       "authorization_servers": [
         *         "https://gateway.example.com"
         *       ],
         *       "scopes_supported": [
         *         "generate:write",
         *         "generate:read",
         *         "files:write",
         *         "account:read",
         *         "keys:manage"
         *       ],
         *       "bearer_methods_supported": [
         *         "header"
         *       ],
         *       "resource_documentation": "https://gateway.example.com/docs"
         *     }
         */
        ProtectedResourceMetadata: {
            /** Format: uri */
            resource: string;
            authorization_servers: string[];
            scopes_supported: components["schemas"]["OAuthScope"][];
            bearer_methods_supported: string[];
            /** Format: uri */
            resource_documentation?: string;
        };
        /**
         * @example {
         *       "scopes": [
         *         {
         *           "name": "generate:write",
         *           "description": "Submit generations, cancel predictions, redeliver webhooks."
         *         },
         *         {
         *           "name": "generate:read",
         *           "description": "Read prediction results, run history and the gallery."
         *         }
         *       ]
         *     }
         */
        ScopeList: {
            scopes: {
                name: string;
                description: string;
            }[];
        };
        OAuthClientCreateRequest: {
            /** @description Label of the client. */
            name: string;
            /** @description Scopes the client's tokens may carry (stored as `allowed_scopes`). */
            scopes: ("generate:write" | "generate:read" | "files:write" | "account:read" | "keys:manage")[];
        };
        /**
         * @example {
         *       "id": "4",
         *       "client_id": "mgc_8fJ2kQ7wLx",
         *       "client_secret": "mgcs_Vb3nR8tY1qW6zK4mP9sD2fH7jL0cX5gA3eUoN8iTrBw",
         *       "name": "ci",
         *       "allowed_scopes": [
         *         "generate:write",
         *         "generate:read"
         *       ],
         *       "created_at": "2026-11-28T09:15:02.000Z"
         *     }
         */
        OAuthClientResponse: {
            /** @description Id used in the deleteOAuthClient path. */
            id: string;
            client_id: string;
            /** @description Present only in the createOAuthClient response; never retrievable later. */
            client_secret?: string;
            name: string;
            /** @description Upper bound of the scopes a token of this client may carry. */
            allowed_scopes: components["schemas"]["OAuthScope"][];
            /** Format: date-time */
            created_at: string;
        };
        /**
         * @example {
         *       "id": "4",
         *       "deleted": true
         *     }
         */
        OAuthClientDeleteResponse: {
            id: string;
            deleted: boolean;
        };
        TokenRequest: {
            /** @enum {string} */
            grant_type: "client_credentials";
            client_id: string;
            client_secret: string;
            /** @description Space-separated scopes, a subset of the client's allowed scopes; absent means all of them. */
            scope?: string;
        };
        /**
         * @example {
         *       "access_token": "k3Vn8QpL2xZ7rT1wY6sB9dF4hJ0mC5gA",
         *       "token_type": "Bearer",
         *       "expires_in": 3600,
         *       "scope": "generate:write generate:read"
         *     }
         */
        TokenResponse: {
            access_token: string;
            /** @description Always `Bearer`. */
            token_type: string;
            /** @description Lifetime in seconds (3600). */
            expires_in: number;
            /** @description Space-separated scopes granted. */
            scope: string;
        };
        OAuthError: {
            /** @description RFC 6749 error code, e.g. `invalid_client`, `invalid_scope`. */
            error: string;
            error_description?: string;
        };
        AdminEmailRequest: {
            /**
             * Format: email
             * @description Email address of the target user.
             */
            email: string;
        };
        AdminImpersonationRequest: {
            /**
             * Format: email
             * @description Email address of the user to act as.
             */
            email: string;
            /** @description Why (a ticket number, the user's request); recorded in the audit log. */
            reason: string;
            /**
             * @description How long the session lasts.
             * @default 30
             */
            minutes?: number;
        };
        AdminSupportLinkRequest: {
            /**
             * Format: email
             * @description Email address of the target user.
             */
            email: string;
            /** @description Why (a ticket number, the user's request); recorded in the audit log. */
            reason: string;
        };
        AdminDeleteUserRequest: {
            /**
             * Format: email
             * @description Email address of the user to delete.
             */
            email: string;
            /** @description Recorded in the audit log. */
            reason?: string;
        };
        AdminCreditRequest: {
            /**
             * Format: email
             * @description Email address of the target user.
             */
            email: string;
            /** @description Credits to add or remove (1000 credits = 1 USD). */
            amount: number;
            /** @description Shown in the user's credit transactions. An email address in it is written as the account it names (`user:<id>`), or `[address]` when no account has it, as in the audit log. */
            reason?: string;
        };
        AdminDeductRequest: {
            /**
             * Format: email
             * @description Email address of the target user.
             */
            email: string;
            /** @description Credits to remove (1000 credits = 1 USD). */
            amount: number;
            /** @description Shown in the user's credit transactions. An email address in it is written as the account it names (`user:<id>`), or `[address]` when no account has it, as in the audit log. */
            reason?: string;
            /**
             * @description Let the balance go below zero; otherwise a deduction larger than the balance is 409.
             * @default false
             */
            allow_negative?: boolean;
        };
        /**
         * @example {
         *       "user_id": 7,
         *       "team_id": null,
         *       "held": 0,
         *       "email": "ada@example.com",
         *       "amount": 750,
         *       "balance": 4750,
         *       "transaction_id": 312
         *     }
         */
        AdminCreditResponse: {
            user_id: number;
            /** @description The team whose wallet changed; null for the user's own. */
            team_id?: number | null;
            /** @description Credit held by running predictions after the change (never touched by it). */
            held?: number;
            /** Format: email */
            email: string;
            /** @description Signed credits applied (negative for a deduction). */
            amount: number;
            /** @description Balance in credits after the change. */
            balance: number;
            transaction_id: number;
        };
        /**
         * @example {
         *       "user_id": 7,
         *       "team_id": null,
         *       "plan": "pro",
         *       "next_plan": null,
         *       "status": "active",
         *       "current_period_start": "2026-11-01T00:00:00.000Z",
         *       "current_period_end": "2026-12-01T00:00:00.000Z",
         *       "credits_per_period": 20000,
         *       "rollover_cap": 5000,
         *       "period": "month",
         *       "grant_remaining": 12400
         *     }
         */
        SubscriptionResponse: {
            user_id: number;
            /** @description The team whose wallet the subscription credits; null for the user's own. */
            team_id: number | null;
            /** @description Plan name; null without a subscription. */
            plan: string | null;
            /** @description The plan the next period renews with, after a `change`; null when it renews with `plan`. */
            next_plan: string | null;
            /**
             * @description `cancelled`: no further grants; credit already granted stays until it expires.
             * @enum {string}
             */
            status: "active" | "cancelled" | "none";
            /** Format: date-time */
            current_period_start: string | null;
            /**
             * Format: date-time
             * @description When the current period ends (an active subscription renews then).
             */
            current_period_end: string | null;
            /** @description What `plan` grants each period; null without a subscription or when the configuration no longer declares the plan. */
            credits_per_period: number | null;
            /** @description The most of a period's grant that stays spendable during the next period. */
            rollover_cap: number | null;
            /** @description `month`, `year` or a number of days (`30d`). */
            period: string | null;
            /** @description Granted credit not yet spent or expired (part of the wallet's balance). */
            grant_remaining: number;
        };
        AdminSubscriptionRequest: {
            /**
             * Format: email
             * @description Email address of the target user (with `team_id`, a member of the team).
             */
            email: string;
            /**
             * @description `activate` or `change` need `plan` (422 without); `cancel` ends the subscription at once.
             * @enum {string}
             */
            action: "activate" | "change" | "cancel";
            /** @description Plan name, one of the configured plans (422 otherwise). */
            plan?: string;
            /**
             * Format: date-time
             * @description `activate` only: end of the first period, in the future and at most 400 days away; later periods follow the plan from it. Default one period from now.
             */
            current_period_end?: string;
            /** @description Why; goes to the audit log. */
            reason?: string;
        };
        /**
         * @example {
         *       "id": 7,
         *       "email": "ada@example.com",
         *       "email_verified": true,
         *       "role": "user",
         *       "created_at": "2026-11-20T14:00:00.000Z",
         *       "balance": 4000,
         *       "held": 4,
         *       "subscription": {
         *         "user_id": 7,
         *         "team_id": null,
         *         "plan": "pro",
         *         "next_plan": null,
         *         "status": "active",
         *         "current_period_start": "2026-11-01T00:00:00.000Z",
         *         "current_period_end": "2026-12-01T00:00:00.000Z",
         *         "credits_per_period": 20000,
         *         "rollover_cap": 5000,
         *         "period": "month",
         *         "grant_remaining": 12400
         *       },
         *       "api_key_count": 1,
         *       "deletion_scheduled_at": null,
         *       "last_sign_in_at": "2026-11-28T08:58:40.000Z",
         *       "open_holds": [
         *         {
         *           "request_id": "01a2216fc1f0a3f19c0b5e7d2c84f1b6",
         *           "model": "canvas-v1-fast-text-to-image",
         *           "status": "processing",
         *           "amount": 4,
         *           "created_at": "2026-11-28T09:15:02.000Z"
         *         }
         *       ],
         *       "teams": [
         *         {
         *           "id": 3,
         *           "name": "Design team",
         *           "role": "owner",
         *           "balance": 25000,
         *           "held": 0,
         *           "deleted_at": null,
         *           "subscription": {
         *             "user_id": 7,
         *             "team_id": 3,
         *             "plan": null,
         *             "next_plan": null,
         *             "status": "none",
         *             "current_period_start": null,
         *             "current_period_end": null,
         *             "credits_per_period": 0,
         *             "rollover_cap": null,
         *             "period": null,
         *             "grant_remaining": 0
         *           }
         *         }
         *       ],
         *       "api_keys": [
         *         {
         *           "id": 12,
         *           "name": "ci",
         *           "prefix": "mg_live_Xq3v",
         *           "is_test": false,
         *           "team_id": null,
         *           "created_at": "2026-11-20T14:02:11.000Z",
         *           "last_used_at": "2026-11-28T09:15:02.000Z",
         *           "revoked_at": null
         *         }
         *       ],
         *       "recent_transactions": [
         *         {
         *           "id": 311,
         *           "kind": "prediction",
         *           "amount": -4,
         *           "held_change": -4,
         *           "balance_after": 3996,
         *           "held_after": 0,
         *           "request_id": "01a2216fc1f0a3f19c0b5e7d2c84f1b6",
         *           "description": "canvas-v1-fast-text-to-image",
         *           "created_at": "2026-11-28T09:15:02.655Z"
         *         }
         *       ]
         *     }
         */
        AdminUserInfoResponse: {
            id: number;
            /** Format: email */
            email: string;
            email_verified: boolean;
            /** @enum {string} */
            role: "user" | "support" | "billing" | "admin";
            /** Format: date-time */
            created_at: string;
            /** @description Spendable credit in credits. */
            balance: number;
            /** @description Credit held by running predictions. */
            held: number;
            subscription: components["schemas"]["SubscriptionResponse"];
            /** @description Keys not revoked, all of them (`api_keys` lists the 100 newest). */
            api_key_count: number;
            /** Format: date-time */
            deletion_scheduled_at: string | null;
            /**
             * Format: date-time
             * @description When the newest login session was opened; null if never.
             */
            last_sign_in_at: string | null;
            /** @description Unfinished predictions paid from the personal wallet, with the credits each holds. */
            open_holds: {
                request_id: string;
                model: string;
                status: string;
                amount: number;
                /** Format: date-time */
                created_at: string;
            }[];
            teams: {
                id: number;
                name: string;
                role: components["schemas"]["TeamRole"];
                balance: number;
                held: number;
                /**
                 * Format: date-time
                 * @description When the team was deleted; null while it exists. A deleted team is listed (after the live ones) with the role the user had in it then, since the user's runs, keys and ledger rows still name it; its wallet takes no more credit.
                 */
                deleted_at: string | null;
                /** @description The team wallet's subscription (admin_manage_subscription with `team_id` changes it). */
                subscription: components["schemas"]["SubscriptionResponse"];
            }[];
            /** @description Every key, revoked ones included; never a key value. */
            api_keys: {
                id: number;
                name: string;
                prefix: string;
                is_test: boolean;
                team_id: number | null;
                /** Format: date-time */
                created_at: string;
                /** Format: date-time */
                last_used_at: string | null;
                /** Format: date-time */
                revoked_at: string | null;
            }[];
            /** @description The 20 newest rows of the personal ledger, newest first. */
            recent_transactions: components["schemas"]["LedgerRow"][];
        };
        LedgerRow: {
            id: number;
            /** @description hold, prediction (a charge), release, topup, deduction, refund, grant, signup, opening, subscription (a period's expiring grant), expiry (grant credit that expired unspent), studio_revenue (a studio owner's markup; negative when a refund takes it back), purchase (Stripe), payment_refund (Stripe). */
            kind: string;
            /** @description Signed change of the wallet's credit (balance plus held). */
            amount: number;
            held_change: number;
            balance_after: number;
            /** @description Null on rows written before the ledger recorded it. */
            held_after: number | null;
            request_id: string | null;
            description: string;
            /** Format: date-time */
            created_at: string;
        };
        AdminAuditRecord: {
            id: number;
            /** @description null for a change made with `npm run admin` */
            actor_user_id: number | null;
            actor_role: string;
            /** @description session, api-key, oauth (refused ones), or cli */
            credential: string;
            /** @description The operationId, or cli_grant_role / cli_revoke_role for npm run admin. */
            action: string;
            target_user_id: number | null;
            target_team_id: number | null;
            /** @description The call's query and body; values of fields that hold secrets are `[redacted]`. */
            params: {
                [key: string]: unknown;
            };
            reason: string | null;
            /** @description The HTTP status answered. */
            status: number;
            client_address: string | null;
            request_id: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /**
         * @example {
         *       "items": [
         *         {
         *           "id": 88,
         *           "actor_user_id": 1,
         *           "actor_role": "admin",
         *           "credential": "session",
         *           "action": "adminTopup",
         *           "target_user_id": 7,
         *           "target_team_id": null,
         *           "params": {
         *             "email": "ada@example.com",
         *             "amount": 750,
         *             "reason": "goodwill"
         *           },
         *           "reason": "goodwill",
         *           "status": 200,
         *           "client_address": "198.51.100.23",
         *           "request_id": "4f2a9c1e-7b3d-4e8a-9f60-2c1d5e8b7a90",
         *           "created_at": "2026-11-28T09:15:02.000Z"
         *         }
         *       ],
         *       "page": 1,
         *       "page_size": 20,
         *       "total": 1,
         *       "has_more": false
         *     }
         */
        PaginatedAdminAuditResponse: {
            items: components["schemas"]["AdminAuditRecord"][];
            page: number;
            page_size: number;
            total: number;
            has_more: boolean;
        };
        /**
         * @example {
         *       "id": 2,
         *       "email": "ada@example.com",
         *       "team_id": null,
         *       "reason": "launch partner",
         *       "updated_at": "2026-11-28T09:15:02.000Z",
         *       "model": "*",
         *       "percent_off": 20,
         *       "expires_at": "2027-01-01T00:00:00.000Z",
         *       "created_at": "2026-11-28T09:15:02.000Z"
         *     }
         */
        ModelDiscount: {
            id: number;
            /**
             * Format: email
             * @description The user whose wallet the discount applies to; for a team's discount, the member the administrator named.
             */
            email: string;
            /** @description The team whose wallet the discount applies to; null for a user's own wallet. */
            team_id: number | null;
            /** @description Why it was given (the `reason` of the request that set it last). */
            reason: string | null;
            /** Format: date-time */
            updated_at: string;
            /** @description Model endpoint slug, or `*` for every model. */
            model: string;
            percent_off: number;
            /** Format: date-time */
            expires_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        ModelDiscountUpsertRequest: {
            /** @description Why; stored with each discount and written to the audit log. */
            reason?: string;
            discounts: {
                /**
                 * Format: email
                 * @description The user the discount applies to.
                 */
                email: string;
                /** @description Model endpoint slug, or `*` for every model. */
                model: string;
                /** @description Percentage taken off the list price. */
                percent_off: number;
                /**
                 * Format: date-time
                 * @description When the discount stops applying; null or absent for never.
                 */
                expires_at?: string | null;
            }[];
        };
        /**
         * @example {
         *       "id": "ch_3QxY2zLkd8A1b2C3",
         *       "amount": 1000,
         *       "currency": "usd",
         *       "status": "succeeded",
         *       "amount_refunded": 0,
         *       "credits": 10000,
         *       "credits_removed": 0,
         *       "payment_intent": "pi_3QxY2zLkd8A1b2C3",
         *       "description": "mediagate credits",
         *       "created_at": "2026-11-27T16:40:00.000Z"
         *     }
         */
        PaymentCharge: {
            /** @description Charge id at the payment processor. */
            id: string;
            /** @description Amount charged in the currency's minor unit (e.g. cents). */
            amount: number;
            /** @description ISO 4217 code, lowercase. */
            currency: string;
            /** @description e.g. `succeeded`, `pending`, `failed`. */
            status: string;
            /** @description Amount refunded so far, in the currency's minor unit. */
            amount_refunded: number;
            /** @description Credits the charge bought (the gateway's record of the purchase; 0 when it bought none here). */
            credits: number;
            /** @description Credits its refunds took back so far. */
            credits_removed?: number;
            /** @description The Stripe PaymentIntent the charge belongs to. */
            payment_intent?: string | null;
            description?: string | null;
            /** Format: date-time */
            created_at: string;
        };
        PaymentRefundRequest: {
            /** @description Charge id at the payment processor. */
            charge_id: string;
            /** @description Amount to refund in the currency's minor unit; absent refunds the remainder of the charge. */
            amount?: number;
            /** @description Internal note (the audit row's reason and the `payment_refund` row's description, where an email address is written as the account it names, `user:<id>`, or `[address]`; sent to Stripe the same way, as the refund's `metadata.reason`, cut to 500 characters). */
            reason?: string;
            /** @description Refund even when the wallet's balance is smaller than the credits to take back (it goes below zero); otherwise that is 409 and nothing is refunded. */
            allow_negative?: boolean;
        };
        /**
         * @example {
         *       "refund_id": "re_3QxY2zLkd8A1b2C3",
         *       "user_id": 7,
         *       "charge_id": "ch_3QxY2zLkd8A1b2C3",
         *       "amount": 500,
         *       "currency": "usd",
         *       "status": "succeeded",
         *       "credits_removed": 5000,
         *       "balance": 5000
         *     }
         */
        PaymentRefundResponse: {
            /** @description The Stripe refund id (`re_…`), also the `ref` of its ledger row. */
            refund_id: string;
            /** @description The account whose credits were taken back. */
            user_id: number;
            charge_id: string;
            /** @description Refunded amount in the currency's minor unit. */
            amount: number;
            currency: string;
            status: string;
            /** @description Credits removed from the wallet for this refund. */
            credits_removed: number;
            /** @description Balance in credits after the refund. */
            balance: number;
        };
        AdminRefundRequest: {
            /** @description The prediction whose charge is refunded. */
            request_id: string;
            /** @description Credits to refund; absent refunds the full charge. */
            amount?: number;
            /** @description Shown in the user's credit transactions. An email address in it is written as the account it names (`user:<id>`), or `[address]` when no account has it, as in the audit log. */
            reason?: string;
        };
        /**
         * @example {
         *       "request_id": "01a2216fc1f0a3f19c0b5e7d2c84f1b6",
         *       "team_id": null,
         *       "refunded_total": 4,
         *       "charged": 4,
         *       "user_id": 7,
         *       "amount": 4,
         *       "balance": 4000,
         *       "transaction_id": 313
         *     }
         */
        AdminRefundResponse: {
            request_id: string;
            /** @description The team whose wallet was credited; null for the user's own. */
            team_id?: number | null;
            /** @description Credits refunded for this prediction so far, this refund included. */
            refunded_total?: number;
            /** @description Credits the prediction was charged. */
            charged?: number;
            user_id: number;
            /** @description Credits returned. */
            amount: number;
            /** @description Balance in credits after the refund. */
            balance: number;
            transaction_id: number;
        };
        /**
         * @example {
         *       "url": "https://gateway.example.com/support/login?token=sl_Jq4Xw8Rt2Zk6Nv1Bm9",
         *       "expires_at": "2026-11-28T09:30:02.000Z"
         *     }
         */
        LinkResponse: {
            /** Format: uri */
            url: string;
            /** Format: date-time */
            expires_at: string;
        };
        /**
         * @description What a LoRA teaches the model: a `style`, a `character`, a `concept`, `clothing`, a `pose` or an `object`.
         * @enum {string}
         */
        LoraType: "style" | "character" | "concept" | "clothing" | "pose" | "object";
        /**
         * @example {
         *       "id": 5,
         *       "name": "ink-wash",
         *       "lora_type": "style",
         *       "title": "Ink wash",
         *       "description": "Loose ink-wash brushwork on rice paper.",
         *       "trigger_words": [
         *         "inkwash"
         *       ],
         *       "preview_url": "https://loras.example.com/ink-wash/preview.png",
         *       "weights_url": "https://loras.example.com/ink-wash/ink-wash.safetensors",
         *       "base_model": "lumen-dev",
         *       "visibility": "public",
         *       "team_id": null,
         *       "created_at": "2026-11-26T11:00:00.000Z"
         *     }
         */
        LoraData: {
            id: number;
            /** @description What a model input's `loras[].name` names. */
            name: string;
            lora_type: components["schemas"]["LoraType"];
            title: string;
            description: string;
            /** @description Words to put in the prompt to invoke it. */
            trigger_words: string[];
            /** Format: uri */
            preview_url: string | null;
            /**
             * Format: uri
             * @description Where the weights (safetensors) are; sent to the upstream with each use.
             */
            weights_url: string;
            /** @description The model family (`x-model.family`, e.g. `lumen`) it was trained for; only that family's models accept it. */
            base_model: string;
            /**
             * @description `public`: in the registry for everyone; `owned`: registered by the caller or the caller's team, usable by that owner only.
             * @enum {string}
             */
            visibility: "public" | "owned";
            /** @description The owning team of an `owned` entry registered with `team_id`; null otherwise. */
            team_id: number | null;
            /** Format: date-time */
            created_at: string;
        };
        LoraCreateRequest: {
            /** @description Lower-case letters, digits, `.`, `_` and `-`; unique among the owner's LoRAs. */
            name: string;
            lora_type: components["schemas"]["LoraType"];
            /** @description Display name; the name when absent. */
            title?: string;
            /** @default  */
            description?: string;
            /** @description A model family of this gateway that accepts LoRAs (one whose input schema declares `loras`); 422 otherwise. */
            base_model: string;
            /** @default [] */
            trigger_words?: string[];
            /** Format: uri */
            preview_url?: string | null;
            /**
             * Format: uri
             * @description An https URL of the weights, at a public address (422 for a loopback, private, link-local or internal host, as for a webhook).
             */
            weights_url: string;
        };
        /**
         * @example {
         *       "items": [
         *         {
         *           "id": 5,
         *           "name": "ink-wash",
         *           "lora_type": "style",
         *           "title": "Ink wash",
         *           "description": "Loose ink-wash brushwork on rice paper.",
         *           "trigger_words": [
         *             "inkwash"
         *           ],
         *           "preview_url": "https://loras.example.com/ink-wash/preview.png",
         *           "weights_url": "https://loras.example.com/ink-wash/ink-wash.safetensors",
         *           "base_model": "lumen-dev",
         *           "visibility": "public",
         *           "team_id": null,
         *           "created_at": "2026-11-26T11:00:00.000Z"
         *         }
         *       ],
         *       "page": 1,
         *       "page_size": 20,
         *       "total": 1,
         *       "has_more": false
         *     }
         */
        PaginatedLoraResponse: {
            items: components["schemas"]["LoraData"][];
            page: number;
            page_size: number;
            total: number | null;
            has_more: boolean;
        };
        /**
         * @example {
         *       "name": "canvas-v1-fast-text-to-image",
         *       "title": "Canvas v1 Fast: procedural text-to-image",
         *       "category": "text-to-image",
         *       "tier": "fast",
         *       "family": "canvas-v1",
         *       "output": "image",
         *       "description": "Action: renders a procedural image from a prompt.",
         *       "endpoint": "/api/v1/canvas-v1-fast-text-to-image",
         *       "base_price": 0,
         *       "price": {
         *         "unit": "credit",
         *         "base": 0,
         *         "per_unit": {
         *           "field": "num_images",
         *           "amount": 4
         *         },
         *         "multipliers": [],
         *         "at_defaults": 4
         *       },
         *       "available": true,
         *       "input_schema": {
         *         "type": "object",
         *         "required": [
         *           "prompt"
         *         ],
         *         "properties": {
         *           "prompt": {
         *             "type": "string"
         *           }
         *         }
         *       }
         *     }
         */
        AITaskResponse: {
            /** @description Model endpoint slug (its operationId). */
            name: string;
            /** @description The operation summary. */
            title: string;
            /** @enum {string} */
            category: "text-to-image" | "image-to-image" | "text-to-video" | "image-to-video" | "video-edit" | "lipsync" | "audio" | "3d" | "llm";
            /** @enum {string} */
            tier: "best" | "balanced" | "fast" | "budget";
            family: string;
            /** @enum {string} */
            output: "image" | "video" | "audio" | "model3d" | "text";
            description: string;
            /** @description Path of the generation endpoint, e.g. `/api/v1/lumen-dev-text-to-image`. */
            endpoint: string;
            /** @description Base price in credits before per-unit charges and multipliers. */
            base_price: number;
            price: components["schemas"]["ModelPrice"];
            /** @description False when the model's upstream provider is not configured on this deployment (production keys get 503; sandbox keys work). */
            available: boolean;
            /** @description JSON Schema of the model input (getTaskData only). */
            input_schema?: {
                [key: string]: unknown;
            };
        };
        /**
         * @example {
         *       "embed_code": "emb_Hk3Lq8Zw2Xr7Vn1Tb6MjPs4C",
         *       "name": "canvas-v1-fast-text-to-image",
         *       "title": "Canvas v1 Fast: procedural text-to-image",
         *       "category": "text-to-image",
         *       "endpoint": "/api/v1/canvas-v1-fast-text-to-image",
         *       "kind": "embed",
         *       "input_schema": {
         *         "type": "object",
         *         "required": [
         *           "prompt"
         *         ],
         *         "properties": {
         *           "prompt": {
         *             "type": "string"
         *           }
         *         }
         *       },
         *       "models": [
         *         {
         *           "name": "canvas-v1-fast-text-to-image",
         *           "title": "Canvas v1 Fast: procedural text-to-image",
         *           "category": "text-to-image",
         *           "endpoint": "/api/v1/canvas-v1-fast-text-to-image",
         *           "input_schema": {
         *             "type": "object",
         *             "required": [
         *               "prompt"
         *             ],
         *             "properties": {
         *               "prompt": {
         *                 "type": "string"
         *               }
         *             }
         *           }
         *         }
         *       ]
         *     }
         */
        EmbedTaskResponse: {
            embed_code: string;
            /** @description Model endpoint slug bound to the embed code. */
            name: string;
            title: string;
            category: string;
            /** @description The model endpoint's path (`/api/v1/<name>`), to POST the input to with the code in its header. */
            endpoint: string;
            /**
             * @description `embed` (header `x-embed-code`) or `agent_embed` (header `x-agent-embed-code`).
             * @enum {string}
             */
            kind?: "embed" | "agent_embed";
            /** @description The visitor-editable part of the model's input schema (JSON Schema). */
            input_schema?: {
                [key: string]: unknown;
            };
            /** @description Every bound model, each with its visitor-editable input schema (one for a model embed). */
            models?: {
                name: string;
                title: string;
                category: string;
                endpoint: string;
                input_schema: {
                    [key: string]: unknown;
                };
            }[];
        };
        /** @description An agent embed's preset (a model embed may carry one too). Written as JSON (UTF-8), the preset (inputs and template together) takes at most 60,000 bytes; more is 422. */
        EmbedPreset: {
            /** @description Owner-fixed inputs merged over the visitor's (applied to each bound model that declares the field). */
            inputs?: {
                [key: string]: unknown;
            };
            /** @description The prompt sent to the model; `{prompt}` is replaced by the visitor's prompt. */
            prompt_template?: string;
        };
        EmbedCodeSettings: {
            name?: string;
            /** @description Model endpoint slugs (operationIds). A model embed takes exactly one. */
            models?: string[];
            preset?: components["schemas"]["EmbedPreset"] | null;
            /** @description Owner-fixed input values, merged over the visitor's input on every submit (a visitor's value for a locked field is replaced). At most 60,000 bytes written as JSON (UTF-8); more is 422. */
            locked_inputs?: {
                [key: string]: unknown;
            };
            /** @description The input fields a visitor may set; any other field in a submit is 422 `embed_field_not_allowed`. null (the default) allows every field. */
            allowed_fields?: string[] | null;
            /** @description Pages that may use the code: `host[:port]` or `*.domain[:port]`, optionally with a scheme (`https://shop.example.com`). Without a port an entry matches the default port; `*.example.com` matches subdomains only. A host has at most 253 characters and 63 per label, as in DNS (422 otherwise). Empty (the default): any origin, and requests without Origin or Referer. When non-empty, the request's Origin (or Referer) must match, and a request with neither is refused (403 `embed_origin_missing`). */
            allowed_origins?: string[];
            /** @description The most one submit may cost, in credits (402 `embed_cost_cap_exceeded`), from 0 to 1,000,000,000,000; null for no cap. */
            max_cost_per_run?: number | null;
            /** @description Credits the code may spend per UTC day, counted at hold time over its predictions that did not fail or get cancelled (402 `embed_daily_cap_reached`), from 0 to 1,000,000,000,000; null for no cap. */
            daily_cap?: number | null;
            /** @description The same per UTC calendar month (402 `embed_monthly_cap_reached`), from 0 to 1,000,000,000,000 credits; null for no cap. */
            monthly_cap?: number | null;
            /** @description Submits per minute per client address (null, the default, is 10). Past it, 429 with Retry-After. */
            rate_limit_per_minute?: number | null;
            /** @description Unfinished predictions the code may have at once (429 with Retry-After); null for none beyond the account's own limit. */
            max_concurrent?: number | null;
        };
        /** @description The settings of EmbedCodeSettings, plus the kind. */
        EmbedCodeCreateRequest: {
            /**
             * @description `embed`: one model endpoint (`emb_…`, header `x-embed-code`); `agent_embed`: a list (`aemb_…`, header `x-agent-embed-code`).
             * @enum {string}
             */
            kind: "embed" | "agent_embed";
            name: string;
            /** @description Model endpoint slugs (operationIds). A model embed takes exactly one. */
            models: string[];
            preset?: components["schemas"]["EmbedPreset"] | null;
            /** @description Owner-fixed input values, merged over the visitor's input on every submit (a visitor's value for a locked field is replaced). At most 60,000 bytes written as JSON (UTF-8); more is 422. */
            locked_inputs?: {
                [key: string]: unknown;
            };
            /** @description The input fields a visitor may set; any other field in a submit is 422 `embed_field_not_allowed`. null (the default) allows every field. */
            allowed_fields?: string[] | null;
            /** @description Pages that may use the code: `host[:port]` or `*.domain[:port]`, optionally with a scheme (`https://shop.example.com`). Without a port an entry matches the default port; `*.example.com` matches subdomains only. A host has at most 253 characters and 63 per label, as in DNS (422 otherwise). Empty (the default): any origin, and requests without Origin or Referer. When non-empty, the request's Origin (or Referer) must match, and a request with neither is refused (403 `embed_origin_missing`). */
            allowed_origins?: string[];
            /** @description The most one submit may cost, in credits (402 `embed_cost_cap_exceeded`), from 0 to 1,000,000,000,000; null for no cap. */
            max_cost_per_run?: number | null;
            /** @description Credits the code may spend per UTC day, counted at hold time over its predictions that did not fail or get cancelled (402 `embed_daily_cap_reached`), from 0 to 1,000,000,000,000; null for no cap. */
            daily_cap?: number | null;
            /** @description The same per UTC calendar month (402 `embed_monthly_cap_reached`), from 0 to 1,000,000,000,000 credits; null for no cap. */
            monthly_cap?: number | null;
            /** @description Submits per minute per client address (null, the default, is 10). Past it, 429 with Retry-After. */
            rate_limit_per_minute?: number | null;
            /** @description Unfinished predictions the code may have at once (429 with Retry-After); null for none beyond the account's own limit. */
            max_concurrent?: number | null;
        };
        /**
         * @example {
         *       "id": 3,
         *       "kind": "embed",
         *       "code": "emb_Hk3Lq8Zw2Xr7Vn1Tb6MjPs4C",
         *       "name": "homepage widget",
         *       "models": [
         *         "canvas-v1-fast-text-to-image"
         *       ],
         *       "preset": null,
         *       "locked_inputs": {
         *         "num_images": 1
         *       },
         *       "allowed_fields": [
         *         "prompt"
         *       ],
         *       "allowed_origins": [
         *         "https://www.example.com"
         *       ],
         *       "max_cost_per_run": 10,
         *       "daily_cap": 2000,
         *       "monthly_cap": 20000,
         *       "rate_limit_per_minute": 10,
         *       "max_concurrent": null,
         *       "team_id": null,
         *       "created_at": "2026-11-28T09:15:02.000Z",
         *       "revoked_at": null
         *     }
         */
        EmbedCodeResponse: {
            id: number;
            /** @enum {string} */
            kind: "embed" | "agent_embed";
            /** @description The code itself (`emb_…` or `aemb_…`). Publishable, so it is shown on every read. */
            code: string;
            name: string;
            models: string[];
            preset: components["schemas"]["EmbedPreset"] | null;
            locked_inputs: {
                [key: string]: unknown;
            };
            allowed_fields: string[] | null;
            allowed_origins: string[];
            max_cost_per_run: number | null;
            daily_cap: number | null;
            monthly_cap: number | null;
            rate_limit_per_minute: number | null;
            max_concurrent: number | null;
            team_id: number | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            revoked_at: string | null;
        };
        /** @description An embed code in the account export, as EmbedCodeResponse without `code` (the code itself is never exported). */
        AccountExportEmbedCode: {
            id: number;
            /** @enum {string} */
            kind: "embed" | "agent_embed";
            name: string;
            models: string[];
            preset: components["schemas"]["EmbedPreset"] | null;
            locked_inputs: {
                [key: string]: unknown;
            };
            allowed_fields: string[] | null;
            allowed_origins: string[];
            max_cost_per_run: number | null;
            daily_cap: number | null;
            monthly_cap: number | null;
            rate_limit_per_minute: number | null;
            max_concurrent: number | null;
            team_id: number | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            revoked_at: string | null;
        };
        /** @description How the studio's pages look. Colours are `#rgb` or `#rrggbb`; the logo an https URL. */
        StudioBranding: {
            logo_url?: string | null;
            primary_color?: string | null;
            accent_color?: string | null;
        };
        StudioSettings: {
            name?: string;
            branding?: components["schemas"]["StudioBranding"];
            /** @description Hostnames (no scheme, no port) that select this studio without the header, each once verified by its DNS TXT record (see `domain_verification` in the answer). A hostname another studio has may be set too; it moves to this studio only when this studio's record is verified. */
            domains?: string[];
            /** @description Model endpoint slugs the studio's users see and run; every other model is 404 in the studio. */
            allowed_models?: string[];
            /** @description The studio price is the list price plus this percent (rounded up). */
            markup_percent?: number;
            /** @description Credits per run for some models, instead of the markup (never below the list price). Each price is a whole number of credits from 0 to 1,000,000,000,000 (1000 credits = 1 USD); a larger one is refused with 422. */
            model_prices?: {
                [key: string]: number;
            };
            /** @enum {string} */
            payer_mode?: "owner_pays" | "end_user_pays";
        };
        StudioCreateRequest: {
            /** @description The `x-whitelabel-studio` header value; lowercase, 3–40 characters, unique. */
            slug: string;
            name: string;
            branding?: components["schemas"]["StudioBranding"];
            /** @description Hostnames (no scheme, no port) that select this studio without the header, each once verified by its DNS TXT record (see `domain_verification` in the answer). A hostname another studio has may be set too; it moves to this studio only when this studio's record is verified. */
            domains?: string[];
            /** @description Model endpoint slugs the studio's users see and run; every other model is 404 in the studio. */
            allowed_models: string[];
            /** @description The studio price is the list price plus this percent (rounded up). */
            markup_percent?: number;
            /** @description Credits per run for some models, instead of the markup (never below the list price). Each price is a whole number of credits from 0 to 1,000,000,000,000 (1000 credits = 1 USD); a larger one is refused with 422. */
            model_prices?: {
                [key: string]: number;
            };
            /** @enum {string} */
            payer_mode: "owner_pays" | "end_user_pays";
        };
        /**
         * @example {
         *       "id": 2,
         *       "slug": "pixelforge",
         *       "name": "PixelForge",
         *       "branding": {
         *         "logo_url": "https://www.pixelforge.example/logo.png",
         *         "primary_color": "#1f6feb",
         *         "accent_color": "#f78166"
         *       },
         *       "domains": [
         *         "studio.pixelforge.example"
         *       ],
         *       "domain_verification": [
         *         {
         *           "hostname": "studio.pixelforge.example",
         *           "status": "verified",
         *           "record": {
         *             "type": "TXT",
         *             "name": "_mediagate-challenge.studio.pixelforge.example",
         *             "value": "mediagate-domain-verification=5f0c3e9a1b7d4c2e8a6f9b1d3e5c7a90"
         *           },
         *           "verified_at": "2026-11-21T08:05:00.000Z",
         *           "checked_at": "2026-11-21T08:05:00.000Z",
         *           "problem": null
         *         }
         *       ],
         *       "allowed_models": [
         *         "canvas-v1-fast-text-to-image",
         *         "lumen-dev-text-to-image"
         *       ],
         *       "markup_percent": 25,
         *       "model_prices": {},
         *       "payer_mode": "end_user_pays",
         *       "team_id": null,
         *       "created_at": "2026-11-21T08:00:00.000Z",
         *       "disabled_at": null
         *     }
         */
        StudioResponse: {
            id: number;
            slug: string;
            name: string;
            branding: components["schemas"]["StudioBranding"];
            /** @description Every hostname set on the studio, verified or not; only verified ones select it. */
            domains: string[];
            /** @description One entry per domain, in the order of `domains`. */
            domain_verification: {
                hostname: string;
                /**
                 * @description `verified`: requests to this hostname are the studio's. `pending`: not yet (or no longer: another studio proved control since); publish `record` and call verify-domains.
                 * @enum {string}
                 */
                status: "verified" | "pending";
                /** @description The DNS record that proves control of the domain for this studio. */
                record: {
                    /** @enum {string} */
                    type: "TXT";
                    name: string;
                    value: string;
                };
                /**
                 * Format: date-time
                 * @description When the record was found (null while pending; the time of the upgrade for a domain set before domains were verified).
                 */
                verified_at: string | null;
                /**
                 * Format: date-time
                 * @description The last check that failed or verified it (null before any).
                 */
                checked_at: string | null;
                /** @description While pending: what the last check found, in a sentence. */
                problem: string | null;
            }[];
            allowed_models: string[];
            markup_percent: number;
            model_prices: {
                [key: string]: number;
            };
            /** @enum {string} */
            payer_mode: "owner_pays" | "end_user_pays";
            team_id: number | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            disabled_at: string | null;
        };
        StudioUsageRow: {
            /** @description YYYY-MM-DD (UTC), in by_day */
            day?: string;
            /** @description in by_model */
            model?: string;
            runs: number;
            /** @description Credits the paying wallets were held or charged. */
            spend: number;
            /** @description Credits credited to the owner (studio_revenue). */
            revenue: number;
        };
        /**
         * @example {
         *       "studio_id": 2,
         *       "from": "2026-11-27T00:00:00.000Z",
         *       "to": "2026-11-28T00:00:00.000Z",
         *       "runs": 42,
         *       "spend": 1050,
         *       "revenue": 210,
         *       "by_day": [
         *         {
         *           "day": "2026-11-27",
         *           "runs": 42,
         *           "spend": 1050,
         *           "revenue": 210
         *         }
         *       ],
         *       "by_model": [
         *         {
         *           "model": "lumen-dev-text-to-image",
         *           "runs": 42,
         *           "spend": 1050,
         *           "revenue": 210
         *         }
         *       ]
         *     }
         */
        StudioUsage: {
            studio_id: number;
            /** Format: date-time */
            from: string;
            /** Format: date-time */
            to: string;
            runs: number;
            spend: number;
            revenue: number;
            by_day: components["schemas"]["StudioUsageRow"][];
            by_model: components["schemas"]["StudioUsageRow"][];
        };
        ModelMarginTotals: {
            /** @description Runs a provider (or the gateway) made. */
            runs: number;
            /** @description Of which completed and charged. */
            charged_runs: number;
            /** @description Credits the gateway was paid. */
            revenue: number;
            /** @description Credits the providers charged, where known. */
            provider_cost: number;
            /** @description Runs whose provider cost is not known. */
            unknown_cost_runs: number;
            /** @description revenue - provider_cost. */
            margin: number;
        };
        ModelMarginRow: components["schemas"]["ModelMarginTotals"] & {
            /**
             * Format: date
             * @description The UTC day.
             */
            day: string;
            /** @description The model's slug. */
            model: string;
        };
        /**
         * @example {
         *       "models": 38,
         *       "added": [
         *         "kestrel-v1-fast-text-to-image"
         *       ],
         *       "removed": [],
         *       "changed": [
         *         "lumen-dev-text-to-image"
         *       ],
         *       "unchanged": false
         *     }
         */
        CatalogReloadResponse: {
            /** @description Model endpoints in the catalog now in use. */
            models: number;
            /** @description Slugs of the models the reload added. */
            added: string[];
            /** @description Slugs of the models the reload removed (their endpoints now answer 404). */
            removed: string[];
            /** @description Slugs of the models whose declaration changed (input schema, price, providers). */
            changed: string[];
            /** @description The files load to the catalog already in use; nothing was replaced. */
            unchanged: boolean;
        };
        /**
         * @example {
         *       "low_balance_threshold": 5000,
         *       "monthly_budget": 200000,
         *       "monthly_budget_mode": "hard",
         *       "webhook_url": "https://hooks.example.com/mediagate/alerts"
         *     }
         */
        AlertSettings: {
            /** @description Alert when a submit leaves the spendable balance below this many credits; null: off. */
            low_balance_threshold: number | null;
            /** @description Credits the wallet may commit per UTC month; null: no budget. */
            monthly_budget: number | null;
            /**
             * @description soft: an alert when the budget is reached; hard: also refuse submits past it (402 budget_exceeded).
             * @enum {string}
             */
            monthly_budget_mode: "soft" | "hard";
            /** @description Where alerts are also sent as signed webhook events; null: by email only. Whole only to a caller who could set it (for a team, a member with `top_up`) through a credential with `keys:manage`, never to a staff member's impersonated session; anyone else gets it redacted: no user name, password or fragment, every query value `redacted`. */
            webhook_url: string | null;
        };
        AlertSettingsRequest: {
            low_balance_threshold?: number | null;
            monthly_budget?: number | null;
            /**
             * @default soft
             * @enum {string}
             */
            monthly_budget_mode?: "soft" | "hard";
            /** @description Where alerts are also sent as signed webhook events (https://, a public destination); null: by email only. */
            webhook_url?: string | null;
        };
        /**
         * @example {
         *       "items": [
         *         {
         *           "id": 7,
         *           "kind": "monthly_budget",
         *           "api_key_id": null,
         *           "period": "2026-11",
         *           "threshold": 200000,
         *           "value": 200450,
         *           "created_at": "2026-11-29T10:00:00.000Z"
         *         }
         *       ]
         *     }
         */
        AlertList: {
            items: components["schemas"]["Alert"][];
        };
        Alert: {
            id: number;
            /**
             * @description Which line was crossed.
             * @enum {string}
             */
            kind: "low_balance" | "monthly_budget" | "key_soft_limit";
            /** @description The key, for key_soft_limit. */
            api_key_id: number | null;
            /** @description The month (YYYY-MM), the key limit's day or month, or the low-balance alert's count. */
            period: string;
            /** @description The line, in credits. */
            threshold: number;
            /** @description The balance or spend that crossed it, in credits. */
            value: number;
            /** Format: date-time */
            created_at: string;
        };
        UsageCounts: {
            /** @description Production predictions submitted (with a sandbox key, sandbox ones). */
            runs: number;
            /** @description Of `runs`, those that failed (their hold was released). */
            failed_runs: number;
            /** @description Sandbox predictions submitted (free). */
            sandbox_runs: number;
            /** @description Credits charged less credits refunded, from the ledger (negative when refunds of earlier charges outweigh the day's charges). */
            spend: number;
        };
        UsageRow: components["schemas"]["UsageCounts"] & {
            /**
             * Format: date
             * @description The UTC day (grouped by `day`).
             */
            day?: string;
            /** @description The model's slug (grouped by `model`). */
            model?: string;
            /** @description The API key that submitted (grouped by `api_key`); null for the dashboard, embed codes and OAuth tokens, and on the `other_callers` row. */
            api_key_id?: number | null;
            /** @description That key's name; null when there is no key. */
            api_key_name?: string | null;
            /** @description Grouped by `api_key`: true on the row of the runs your wallet paid for that others made (the users of your `owner_pays` studios), whatever key or sign-in they used; their keys are not shown. Its spend counts in the totals. */
            other_callers?: boolean;
            /** @description Where the runs came from (grouped by `source`): api, dashboard, embed, agent_embed or studio. */
            source?: string;
            /** @description The upstream provider that ran them (admin view, grouped by `provider`); null for local models. */
            provider?: string | null;
        };
        /**
         * @example {
         *       "from": "2026-11-28",
         *       "to": "2026-11-29",
         *       "group_by": [
         *         "day",
         *         "model"
         *       ],
         *       "unit": "credit",
         *       "rows": [
         *         {
         *           "day": "2026-11-28",
         *           "model": "lumen-dev-text-to-image",
         *           "runs": 12,
         *           "failed_runs": 1,
         *           "sandbox_runs": 3,
         *           "spend": 704
         *         },
         *         {
         *           "day": "2026-11-29",
         *           "model": "aurora-v3-pro-text-to-video",
         *           "runs": 2,
         *           "failed_runs": 0,
         *           "sandbox_runs": 0,
         *           "spend": 3120
         *         }
         *       ],
         *       "totals": {
         *         "runs": 14,
         *         "failed_runs": 1,
         *         "sandbox_runs": 3,
         *         "spend": 3824
         *       }
         *     }
         */
        UsageResponse: {
            /** Format: date */
            from: string;
            /** Format: date */
            to: string;
            /** @description The groups of each row, in order. */
            group_by: string[];
            /**
             * @description 1000 credits = 1 USD.
             * @enum {string}
             */
            unit: "credit";
            rows: components["schemas"]["UsageRow"][];
            totals: components["schemas"]["UsageCounts"];
        };
        /**
         * @example {
         *       "from": "2026-11-28",
         *       "to": "2026-11-29",
         *       "unit": "credit",
         *       "rows": [
         *         {
         *           "day": "2026-11-29",
         *           "model": "lumen-dev-text-to-image",
         *           "runs": 12,
         *           "charged_runs": 11,
         *           "revenue": 704,
         *           "provider_cost": 550,
         *           "unknown_cost_runs": 0,
         *           "margin": 154
         *         }
         *       ],
         *       "totals": {
         *         "runs": 12,
         *         "charged_runs": 11,
         *         "revenue": 704,
         *         "provider_cost": 550,
         *         "unknown_cost_runs": 0,
         *         "margin": 154
         *       }
         *     }
         */
        ModelMarginsResponse: {
            /** Format: date */
            from: string;
            /** Format: date */
            to: string;
            /**
             * @description 1000 credits = 1 USD.
             * @enum {string}
             */
            unit: "credit";
            rows: components["schemas"]["ModelMarginRow"][];
            totals: components["schemas"]["ModelMarginTotals"];
        };
        DynamicCostRequest: {
            /** @description Model endpoint slug (its operationId). */
            model: string;
            /** @description The input the generation would be submitted with; validated against the model's input schema. */
            input: {
                [key: string]: unknown;
            };
        };
        /**
         * @example {
         *       "model": "aurora-v3-pro-text-to-video",
         *       "cost": 1560,
         *       "list_price": 1560,
         *       "unit": "credits",
         *       "breakdown": {
         *         "base": 200,
         *         "per_unit": {
         *           "field": "duration",
         *           "amount": 100,
         *           "units": 10,
         *           "subtotal": 1000
         *         },
         *         "multipliers": [
         *           {
         *             "field": "generate_audio",
         *             "value": "true",
         *             "percent": 130,
         *             "price_after": 1560
         *           }
         *         ]
         *       },
         *       "discount": null,
         *       "balance": 4000,
         *       "affordable": true
         *     }
         */
        DynamicCostResponse: {
            model: string;
            /** @description What a production submit of this input holds, in credits (after `discount`, when there is one). */
            cost: number;
            /** @description The price from the model's price rule, before any discount. In a whitelabel studio that marks prices up, the studio's price (its markup included), and `breakdown` is that one figure as `base`. */
            list_price: number;
            /** @description `credits` (1000 credits = 1 USD). */
            unit: string;
            /** @description How `list_price` was reached, in order. */
            breakdown: {
                base: number;
                /** @description Every term added to `base`, in rule order (`per_unit` repeats the first per-unit one). */
                terms?: {
                    /** @enum {string} */
                    kind: "per_unit" | "per_output" | "per_megapixel" | "tiers" | "per_token";
                    field: string | null;
                    /** @description Credits per unit (for `tiers`, the amount of the step the value fell in). */
                    amount: number;
                    /** @description What the term counted (the field's value, the outputs, the megapixels billed). */
                    units: number;
                    /** @description What it added, rounded up to a whole credit. */
                    subtotal: number;
                }[];
                /** @description The rule's minimum (after the multipliers); `applied` when it raised the price. Null when the rule has none. */
                minimum?: {
                    amount: number;
                    applied: boolean;
                } | null;
                /** @description `amount` x `units` (the input's value of `field`, its default when left out) = `subtotal`, added to `base`. */
                per_unit: {
                    field: string;
                    amount: number;
                    units: number;
                    subtotal: number;
                } | null;
                /** @description The multipliers the input matched, in rule order; each rounds up. */
                multipliers: {
                    field: string;
                    value: string;
                    percent: number;
                    price_after: number;
                }[];
            };
            /** @description The paying wallet's discount applied to this model (the one that wins); `amount` is `list_price` - `cost`. Null when none applies. */
            discount: null | {
                percent: number;
                amount: number;
            };
            /** @description Spendable balance of the wallet that would pay (held credits excluded). */
            balance: number;
            /** @description Whether `balance` covers `cost`. */
            affordable: boolean;
        };
        /**
         * @example {
         *       "content_type": "image/png",
         *       "media_type": "image",
         *       "max_bytes": 20971520,
         *       "upload_url": "https://gateway.example.com/uploads/up_Hk3Lq8Zw2Xr7Vn1Tb6Mj",
         *       "method": "PUT",
         *       "headers": {
         *         "content-type": "image/png"
         *       },
         *       "file_url": "https://gateway.example.com/files/uploads/0b5e7d2c84f14a6e9d3c5b7a1f2e8d40/cat.png",
         *       "expires_at": "2026-11-28T09:30:02.000Z"
         *     }
         */
        FileUploadUrlResponse: {
            /** @description The content type the PUT must send (from the filename's extension). */
            content_type: string;
            /** @enum {string} */
            media_type: "image" | "video" | "audio";
            /** @description The largest body the PUT may send (the media type's limit). */
            max_bytes: number;
            /**
             * Format: uri
             * @description Where to send the file body.
             */
            upload_url: string;
            /** @enum {string} */
            method: "PUT";
            /** @description Headers to send with the upload (e.g. `content-type`). */
            headers: {
                [key: string]: string;
            };
            /**
             * Format: uri
             * @description Permanent URL of the file once uploaded.
             */
            file_url: string;
            /**
             * Format: date-time
             * @description When `upload_url` stops accepting the upload.
             */
            expires_at: string;
        };
        MediaAssetCreate: {
            /** @description Display name; default the last path segment of `url`. */
            name?: string;
            /**
             * Format: uri
             * @description URL of the file, `http` or `https` (an address of any other scheme, `javascript:` or `data:` say, is 422).
             */
            url: string;
            /** @enum {string} */
            media_type: "image" | "video" | "audio";
            /** @description MIME type, e.g. `image/png`. */
            content_type?: string;
            /** @description File size in bytes. */
            size_bytes?: number;
            /** @description The prediction that produced the file, if any. */
            request_id?: string;
        };
        /**
         * @example {
         *       "id": 9,
         *       "name": "cat.png",
         *       "url": "https://gateway.example.com/files/uploads/0b5e7d2c84f14a6e9d3c5b7a1f2e8d40/cat.png",
         *       "media_type": "image",
         *       "content_type": "image/png",
         *       "size_bytes": 48213,
         *       "request_id": null,
         *       "team_id": null,
         *       "created_at": "2026-11-28T09:15:02.000Z"
         *     }
         */
        MediaAssetResponse: {
            id: number;
            name: string;
            /** Format: uri */
            url: string;
            /** @enum {string} */
            media_type: "image" | "video" | "audio";
            content_type: string | null;
            size_bytes: number | null;
            request_id: string | null;
            team_id: number | null;
            /** Format: date-time */
            created_at: string;
        };
        /**
         * @example {
         *       "items": [
         *         {
         *           "id": 9,
         *           "name": "cat.png",
         *           "url": "https://gateway.example.com/files/uploads/0b5e7d2c84f14a6e9d3c5b7a1f2e8d40/cat.png",
         *           "media_type": "image",
         *           "content_type": "image/png",
         *           "size_bytes": 48213,
         *           "request_id": null,
         *           "team_id": null,
         *           "created_at": "2026-11-28T09:15:02.000Z"
         *         }
         *       ],
         *       "page": 1,
         *       "page_size": 20,
         *       "total": 1,
         *       "has_more": false
         *     }
         */
        PaginatedMediaAssetResponse: {
            items: components["schemas"]["MediaAssetResponse"][];
            page: number;
            page_size: number;
            total: number | null;
            has_more: boolean;
        };
        /**
         * @description Moderation state of a prediction. `flagged`: set automatically when a prediction completes with any NSFW output (`has_nsfw_contents`), or by a reviewer; `unreviewed`: every other prediction until someone reviews it; `approved` and `rejected`: set by a reviewer (updateReviewStatus, bulkUpdateReviewStatus). Outputs are never blacked out whatever the status; the gallery hides `rejected` unless asked.
         * @enum {string}
         */
        ReviewStatus: "unreviewed" | "approved" | "rejected" | "flagged";
        UsageLogResponse: {
            /** @description Run-history id (equal to `request_id`). */
            id: string;
            request_id: string;
            /** @description Model endpoint slug. */
            model: string;
            status: components["schemas"]["PredictionStatus"];
            review_status: components["schemas"]["ReviewStatus"];
            /**
             * Format: date-time
             * @description When the review status was last set by someone; null while only the gateway set it.
             */
            reviewed_at: string | null;
            /** @description The user id of who last set the review status. */
            reviewed_by: number | null;
            /**
             * @description Where the request came from. `api`: an API key or an OAuth token; `dashboard`: a signed-in session; `embed`, `agent_embed`, `studio`: the partner surfaces (embed codes and white-label studios).
             * @enum {string}
             */
            source: "api" | "dashboard" | "embed" | "agent_embed" | "studio";
            /** @description The API key that submitted it (null for a session or an OAuth token, or a key since revoked and removed). Never the secret. */
            api_key: {
                id: number;
                name: string | null;
            } | null;
            outputs: string[];
            /** @description True once the files were removed (retention); `outputs` is then empty. */
            outputs_expired: boolean;
            has_nsfw_contents: boolean[];
            team_id: number | null;
            /** @description Credits charged (0 until completed, and for sandbox keys). */
            cost: number;
            /** @description True when submitted with a sandbox key. */
            is_test: boolean;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            completed_at: string | null;
        };
        /**
         * @example {
         *       "items": [
         *         {
         *           "id": "01a2216fc1f0a3f19c0b5e7d2c84f1b6",
         *           "request_id": "01a2216fc1f0a3f19c0b5e7d2c84f1b6",
         *           "model": "canvas-v1-fast-text-to-image",
         *           "status": "completed",
         *           "review_status": "unreviewed",
         *           "reviewed_at": null,
         *           "reviewed_by": null,
         *           "source": "api",
         *           "api_key": {
         *             "id": 12,
         *             "name": "ci"
         *           },
         *           "outputs": [
         *             "https://gateway.example.com/files/outputs/01a2216fc1f0a3f19c0b5e7d2c84f1b6/0.png"
         *           ],
         *           "outputs_expired": false,
         *           "has_nsfw_contents": [
         *             false
         *           ],
         *           "team_id": null,
         *           "cost": 4,
         *           "is_test": false,
         *           "created_at": "2026-11-28T09:15:02.000Z",
         *           "completed_at": "2026-11-28T09:15:02.655Z"
         *         }
         *       ],
         *       "page": 1,
         *       "page_size": 20,
         *       "total": 1,
         *       "has_more": false
         *     }
         */
        PaginatedUsageLogResponse: {
            items: components["schemas"]["UsageLogResponse"][];
            page: number;
            page_size: number;
            /** @description Number of matching predictions; null when not counted. */
            total: number | null;
            has_more: boolean;
        };
        /**
         * @example {
         *       "id": "01a2216fc1f0a3f19c0b5e7d2c84f1b6",
         *       "request_id": "01a2216fc1f0a3f19c0b5e7d2c84f1b6",
         *       "model": "canvas-v1-fast-text-to-image",
         *       "status": "completed",
         *       "review_status": "unreviewed",
         *       "input": {
         *         "prompt": "a lighthouse at dusk",
         *         "width": 768,
         *         "height": 512,
         *         "num_images": 1,
         *         "num_inference_steps": 4
         *       },
         *       "outputs": [
         *         "https://gateway.example.com/files/outputs/01a2216fc1f0a3f19c0b5e7d2c84f1b6/0.png"
         *       ],
         *       "outputs_expired": false,
         *       "has_nsfw_contents": [
         *         false
         *       ],
         *       "error": null,
         *       "error_code": null,
         *       "cost": 4,
         *       "is_test": false,
         *       "team_id": null,
         *       "webhook": "https://hooks.example.com/mediagate",
         *       "created_at": "2026-11-28T09:15:02.000Z",
         *       "started_at": "2026-11-28T09:15:02.140Z",
         *       "completed_at": "2026-11-28T09:15:02.655Z",
         *       "executionTime": "0.655s",
         *       "timings": {
         *         "inference": 498
         *       },
         *       "webhook_deliveries": [
         *         {
         *           "id": "msg_2Lk9Qw3Xr8Zt1Vn6Bm4Jp7Hs",
         *           "url": "https://hooks.example.com/mediagate",
         *           "status": "delivered",
         *           "attempts": 1,
         *           "last_status_code": 200,
         *           "last_error": null,
         *           "created_at": "2026-11-28T09:15:02.655Z",
         *           "attempt_log": [
         *             {
         *               "number": 1,
         *               "started_at": "2026-11-28T09:15:02.701Z",
         *               "duration_ms": 84,
         *               "status_code": 200,
         *               "error": null,
         *               "response_excerpt": "ok"
         *             }
         *           ]
         *         }
         *       ]
         *     }
         */
        UsageLogDetailResponse: {
            /** @description Run-history id (equal to `request_id`). */
            id: string;
            request_id: string;
            model: string;
            status: components["schemas"]["PredictionStatus"];
            review_status: components["schemas"]["ReviewStatus"];
            /** @description The input the prediction was submitted with (after defaults were applied). */
            input: {
                [key: string]: unknown;
            };
            outputs: string[];
            /** @description As in getPredictionResult - true once the output files were removed by the retention policy (`outputs` is then empty). */
            outputs_expired?: boolean;
            has_nsfw_contents: boolean[];
            error: string | null;
            /** @description As in getPredictionResult. */
            error_code?: string | null;
            /** @description Credits charged. */
            cost: number;
            /** @description A language model's answer only (a call through `POST /v1/chat/completions`, or its asynchronous endpoint once completed) - the answer's text (through /v1 as relayed, tool calls as their JSON); absent for every other prediction. */
            output_text?: string | null;
            /** @description A language model's answer only (as `output_text`) - the tokens it used, as the provider reported them (`source: reported`) or, where it reported none, as counted (`counted`: the chunks relayed, or four bytes of text a token); null values while a /v1 call runs. Absent for every other prediction. */
            tokens?: {
                input: number | null;
                output: number | null;
                /** @enum {string|null} */
                source: "reported" | "counted" | null;
            };
            is_test: boolean;
            team_id: number | null;
            /** @description Webhook URL given at submission. Whole only to a caller who could have set it: the member who submitted the prediction, or a team member with `manage_keys`, through a credential with `generate:write`, never to a staff member's impersonated session. Anyone else gets it redacted: no user name, password or fragment, every query value `redacted` (scheme, host, port, path and query keys kept). */
            webhook: string | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            started_at: string | null;
            /** Format: date-time */
            completed_at: string | null;
            /** @description e.g. `1.234s`. */
            executionTime: string | null;
            timings: {
                /** @description Inference time in milliseconds. */
                inference: number | null;
            };
            /** @description Deliveries of this prediction's result to its webhook, each with every attempt. */
            webhook_deliveries?: components["schemas"]["WebhookDelivery"][];
        };
        /**
         * @example {
         *       "items": [
         *         {
         *           "id": "msg_2Lk9Qw3Xr8Zt1Vn6Bm4Jp7Hs",
         *           "event_type": "prediction",
         *           "prediction_id": "01a2216fc1f0a3f19c0b5e7d2c84f1b6",
         *           "url": "https://example.com/hooks/mediagate",
         *           "status": "dead",
         *           "attempts": 4,
         *           "last_status_code": 502,
         *           "last_error": null,
         *           "created_at": "2026-11-28T09:15:03.000Z",
         *           "attempt_log": [
         *             {
         *               "number": 1,
         *               "started_at": "2026-11-28T09:15:03.010Z",
         *               "duration_ms": 212,
         *               "status_code": 502,
         *               "error": null,
         *               "response_excerpt": "<html><body>502 Bad Gateway</body></html>"
         *             }
         *           ]
         *         }
         *       ],
         *       "next_before": "2026-11-28T09:15:03.000Z~msg_2Lk9Qw3Xr8Zt1Vn6Bm4Jp7Hs"
         *     }
         */
        WebhookDeliveryLog: {
            items: (components["schemas"]["WebhookDelivery"] & {
                /** @description The prediction whose result it delivers; null for an alert's. */
                prediction_id: string | null;
                /** @description What it delivers: `prediction` (a prediction's result), or an alert's event (`alert.low_balance`, `alert.monthly_budget`, `alert.key_soft_limit`). */
                event_type: string;
            })[];
            /** @description Pass it as `before` for the next page (it names the last delivery of this page); null on the last page. */
            next_before: string | null;
        };
        WebhookDelivery: {
            /** @description The `webhook-id` header of every attempt of this delivery. */
            id: string;
            /**
             * Format: uri
             * @description The receiver's URL, shown as the prediction's `webhook` is (or for an alert's delivery, as the alert settings' `webhook_url`): redacted to a caller who could not have set it.
             */
            url: string;
            /**
             * @description `pending`: attempts under way or scheduled; `delivered`: a 2xx answer; `gone`: the receiver answered 410; `dead`: every retry failed, dead-lettered (or, for an alert, not sent because the alert webhook URL was changed or removed before it went: its attempt''s `error` says so).
             * @enum {string}
             */
            status: "pending" | "delivered" | "gone" | "dead";
            attempts: number;
            last_status_code: number | null;
            last_error: string | null;
            /** Format: date-time */
            created_at: string;
            attempt_log: {
                number: number;
                /** Format: date-time */
                started_at: string;
                duration_ms: number;
                status_code: number | null;
                /** @description Network error or timeout. */
                error: string | null;
                /** @description The first 512 bytes of the receiver's answer as text (line breaks shown as spaces, other control characters and bytes that are not UTF-8 as �); null when it answered nothing or could not be reached. */
                response_excerpt: string | null;
            }[];
        };
        /**
         * @example {
         *       "webhook_id": "msg_2bW9yKq0cH1nQe5Zt7LxVfA3",
         *       "delivered": true,
         *       "status_code": 204,
         *       "error": null,
         *       "duration_ms": 183
         *     }
         * @example {
         *       "webhook_id": "msg_Jx0pRk7sQ2mVa9LcY4nTb8Ew",
         *       "delivered": false,
         *       "status_code": null,
         *       "error": "timed out after 15000 ms",
         *       "duration_ms": 15001
         *     }
         */
        WebhookTestResult: {
            /** @description The `webhook-id` the test event carried (`msg_…`). */
            webhook_id: string;
            /** @description True when the receiver answered with a 2xx status. */
            delivered: boolean;
            /** @description The receiver's HTTP status; null when it could not be reached. */
            status_code: number | null;
            /** @description Why the event did not arrive (a network error, a timeout, a refused destination); null when the receiver answered. */
            error: string | null;
            /** @description How long the attempt took, in milliseconds. */
            duration_ms: number;
        };
        /**
         * @example {
         *       "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw4dB6E3mRv0o=",
         *       "sandbox": false,
         *       "created_at": "2026-11-28T09:15:02.000Z",
         *       "previous": [
         *         {
         *           "created_at": "2026-11-20T14:00:00.000Z",
         *           "expires_at": "2026-11-29T09:15:02.000Z"
         *         }
         *       ]
         *     }
         */
        WebhookSecret: {
            /** @description `whsec_` + base64 of 32 random bytes; verify deliveries with it (e.g. the `standardwebhooks` package). */
            secret: string;
            /** @description `true`: the sandbox secret, which signs deliveries of sandbox predictions only; `false`: the production secret, which signs production predictions' and alerts' deliveries. */
            sandbox: boolean;
            /** Format: date-time */
            created_at: string;
            /** @description Earlier secrets that still sign deliveries (alongside the current one) until they expire, 24 hours after a rotation. */
            previous: {
                /** Format: date-time */
                created_at: string;
                /** Format: date-time */
                expires_at: string | null;
            }[];
        };
        GalleryItem: {
            request_id: string;
            model: string;
            /** @description Position of the file in the prediction's `outputs`. */
            index: number;
            /** Format: uri */
            url: string;
            /** @enum {string} */
            media_type: "image" | "video" | "audio" | "model3d" | "text";
            has_nsfw_content: boolean;
            review_status: components["schemas"]["ReviewStatus"];
            /** Format: date-time */
            created_at: string;
        };
        /**
         * @example {
         *       "items": [
         *         {
         *           "request_id": "01a2216fc1f0a3f19c0b5e7d2c84f1b6",
         *           "model": "canvas-v1-fast-text-to-image",
         *           "index": 0,
         *           "url": "https://gateway.example.com/files/outputs/01a2216fc1f0a3f19c0b5e7d2c84f1b6/0.png",
         *           "media_type": "image",
         *           "has_nsfw_content": false,
         *           "review_status": "approved",
         *           "created_at": "2026-11-28T09:15:02.000Z"
         *         }
         *       ],
         *       "page": 1,
         *       "page_size": 20,
         *       "total": 1,
         *       "has_more": false
         *     }
         */
        PaginatedGalleryResponse: {
            items: components["schemas"]["GalleryItem"][];
            page: number;
            page_size: number;
            total: number | null;
            has_more: boolean;
        };
        ReviewStatusUpdateRequest: {
            /**
             * @description New review status.
             * @enum {string}
             */
            review_status: "unreviewed" | "approved" | "rejected" | "flagged";
        };
        /**
         * @example {
         *       "id": "01a2216fc1f0a3f19c0b5e7d2c84f1b6",
         *       "review_status": "approved",
         *       "reviewed_by": 7,
         *       "reviewed_at": "2026-11-28T10:02:45.000Z"
         *     }
         */
        ReviewStatusUpdateResponse: {
            id: string;
            review_status: components["schemas"]["ReviewStatus"];
            /** @description The user id of who set it (the caller). */
            reviewed_by: number;
            /** Format: date-time */
            reviewed_at: string;
        };
        BulkReviewStatusRequest: {
            /** @description Run-history ids (request ids). */
            ids: string[];
            /**
             * @description New review status for every id.
             * @enum {string}
             */
            review_status: "unreviewed" | "approved" | "rejected" | "flagged";
        };
        /**
         * @example {
         *       "updated": 2,
         *       "skipped": [
         *         "01a2216fc1f0ffffffffffffffffffff"
         *       ]
         *     }
         */
        BulkUpdateResponse: {
            /** @description Number of predictions updated. */
            updated: number;
            /** @description The ids not updated because they are unknown, another owner's, or deleted. */
            skipped: string[];
        };
        BulkDeleteRequest: {
            /** @description Run-history ids (request ids). */
            ids: string[];
        };
        /**
         * @example {
         *       "deleted": 2,
         *       "skipped": []
         *     }
         */
        BulkDeleteResponse: {
            /** @description Number of predictions deleted. */
            deleted: number;
            /** @description The ids not deleted because they are unknown, another owner's, or already deleted. */
            skipped: string[];
        };
        /**
         * @description A member's role. `owner`: everything, including granting or removing the owner role and deleting the team. `admin`: all but those two. `developer`: generate on the team wallet, read its history and balance, manage its API keys. `billing`: read the history and balance, top the wallet up. `viewer`: read the history.
         * @enum {string}
         */
        TeamRole: "owner" | "admin" | "developer" | "billing" | "viewer";
        TeamNameRequest: {
            name: string;
        };
        /**
         * @example {
         *       "id": 3,
         *       "name": "Design team",
         *       "role": "owner",
         *       "balance": 25000,
         *       "held": 0,
         *       "created_at": "2026-11-22T12:00:00.000Z"
         *     }
         */
        Team: {
            id: number;
            name: string;
            role: components["schemas"]["TeamRole"];
            /** @description Team wallet credit; null when the caller's role lacks `read_balance`. */
            balance: number | null;
            /** @description Credit held by running predictions; null when the caller's role lacks `read_balance`. */
            held: number | null;
            /** Format: date-time */
            created_at: string;
        };
        /**
         * @example {
         *       "id": 21,
         *       "name": "render farm",
         *       "prefix": "mg_live_b8Ty",
         *       "is_test": false,
         *       "ip_whitelist": [],
         *       "scopes": null,
         *       "rate_limit_per_minute": 30,
         *       "max_concurrent": 5,
         *       "expires_at": null,
         *       "spend_limit": null,
         *       "spend_limit_period": null,
         *       "created_at": "2026-11-25T10:00:00.000Z",
         *       "last_used_at": null,
         *       "team_id": 3,
         *       "created_by": 7
         *     }
         */
        TeamAPIKeyResponse: components["schemas"]["APIKeyResponse"] & {
            /** @description The team the key belongs to. */
            team_id: number;
            /** @description The user `id` of the member who holds its secret: who created it, or last rotated it (a rotation makes the rotator its creator). Removing that member, or erasing their account, revokes the key. */
            created_by: number;
        };
        /**
         * @example {
         *       "id": 22,
         *       "name": "render farm",
         *       "prefix": "mg_live_c2Hq",
         *       "is_test": false,
         *       "ip_whitelist": [],
         *       "scopes": null,
         *       "rate_limit_per_minute": null,
         *       "max_concurrent": null,
         *       "created_at": "2026-11-28T09:15:02.000Z",
         *       "last_used_at": null,
         *       "api_key": "mg_live_c2HqV9xL4pW7tN1zR6mK3bJ8sF0dYgA5eUoC2iQrTu",
         *       "key": "mg_live_c2HqV9xL4pW7tN1zR6mK3bJ8sF0dYgA5eUoC2iQrTu",
         *       "team_id": 3,
         *       "created_by": 7
         *     }
         */
        TeamAPIKeyCreatedResponse: components["schemas"]["APIKeyCreatedResponse"] & {
            /** @description The team the key belongs to. */
            team_id: number;
            /** @description The user `id` of the member who created it, and so holds its secret. Removing that member, or erasing their account, revokes the key. */
            created_by: number;
        };
        /**
         * @example {
         *       "user_id": 8,
         *       "email": "grace@example.com",
         *       "role": "developer",
         *       "joined_at": "2026-11-23T09:00:00.000Z"
         *     }
         */
        TeamMember: {
            user_id: number;
            email: string;
            role: components["schemas"]["TeamRole"];
            /** Format: date-time */
            joined_at: string;
        };
        /**
         * @example {
         *       "id": 8,
         *       "deleted": true,
         *       "revoked_key_ids": [
         *         41,
         *         42
         *       ]
         *     }
         */
        TeamMemberRemoved: {
            /** @description The removed member's user `id` (removeTeamMember) or the team's `id` (leaveTeam). */
            id: number;
            deleted: boolean;
            /** @description The team's API keys the member had created, revoked with the removal (they stop working at once). Keys other members created keep working. */
            revoked_key_ids: number[];
        };
        TeamRoleRequest: {
            role: components["schemas"]["TeamRole"];
        };
        TeamInviteRequest: {
            /** Format: email */
            email: string;
            role: components["schemas"]["TeamRole"];
        };
        /**
         * @example {
         *       "id": 4,
         *       "team_id": 3,
         *       "email": "linus@example.com",
         *       "role": "viewer",
         *       "invited_by": 7,
         *       "created_at": "2026-11-28T09:15:02.000Z",
         *       "expires_at": "2026-12-05T09:15:02.000Z",
         *       "expired": false
         *     }
         */
        TeamInvite: {
            id: number;
            team_id: number;
            email: string;
            role: components["schemas"]["TeamRole"];
            invited_by?: number | null;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            expires_at: string;
            expired: boolean;
        };
        TeamInviteAcceptRequest: {
            /** @description The token from the invite mail. */
            token: string;
        };
        /**
         * @example {
         *       "prompt": "A red fox runs through fresh snow at dawn, low tracking shot",
         *       "duration": 5,
         *       "aspect_ratio": "16:9",
         *       "generate_audio": true
         *     }
         */
        AuroraV3TextToVideoInput: {
            /** @description What the clip shows, including subject, action, setting, camera movement and sound. */
            prompt: string;
            /** @description What the clip must not show. */
            negative_prompt?: string;
            /**
             * @description Length of the clip in seconds; billed per second.
             * @default 5
             */
            duration?: number;
            /**
             * @description Frame ratio written as w:h, e.g. 16:9, 9:16 or 1:1.
             * @default 16:9
             */
            aspect_ratio?: string;
            /**
             * @description Output resolution.
             * @default 1080p
             * @enum {string}
             */
            resolution?: "1080p";
            /**
             * @description Generate a native soundtrack (dialogue, effects, ambience) with the video; a silent clip is billed at 67 percent.
             * @default true
             */
            generate_audio?: boolean;
            /** @description Seed for reproducible results; random when absent. */
            seed?: number;
            /**
             * @description How strictly the clip follows the prompt, from 0 (loose) to 1 (strict).
             * @default 0.5
             */
            cfg_scale?: number;
        };
        /**
         * @example {
         *       "prompt": "Aerial view of a coastline at golden hour, waves breaking on cliffs",
         *       "duration": 5,
         *       "aspect_ratio": "16:9",
         *       "resolution": "4k"
         *     }
         */
        AuroraV3TextToVideo4kInput: {
            /** @description What the clip shows, including subject, action, setting, camera movement and sound. */
            prompt: string;
            /** @description What the clip must not show. */
            negative_prompt?: string;
            /**
             * @description Length of the clip in seconds; billed per second.
             * @default 5
             */
            duration?: number;
            /**
             * @description Frame ratio written as w:h, e.g. 16:9, 9:16 or 1:1.
             * @default 16:9
             */
            aspect_ratio?: string;
            /**
             * @description Output resolution: 4K (3840x2160 at 16:9).
             * @default 4k
             * @enum {string}
             */
            resolution?: "4k";
            /**
             * @description Generate a native soundtrack (dialogue, effects, ambience) with the video, at no extra cost.
             * @default true
             */
            generate_audio?: boolean;
            /** @description Seed for reproducible results; random when absent. */
            seed?: number;
            /**
             * @description How strictly the clip follows the prompt, from 0 (loose) to 1 (strict).
             * @default 0.5
             */
            cfg_scale?: number;
        };
        /**
         * @example {
         *       "image_url": "https://example.com/inputs/portrait.png",
         *       "prompt": "She turns her head and smiles as the wind moves her hair",
         *       "duration": 5
         *     }
         */
        AuroraV3ImageToVideoInput: {
            /**
             * Format: uri
             * @description Source image (JPEG, PNG or WebP) used as the first frame.
             */
            image_url: string;
            /** @description How the image moves, including action, camera movement and sound. */
            prompt: string;
            /** @description What the clip must not show. */
            negative_prompt?: string;
            /**
             * @description Length of the clip in seconds; billed per second.
             * @default 5
             */
            duration?: number;
            /**
             * @description Frame ratio written as w:h; the image is cropped to it.
             * @default 16:9
             */
            aspect_ratio?: string;
            /**
             * @description Output resolution.
             * @default 1080p
             * @enum {string}
             */
            resolution?: "1080p";
            /**
             * @description Generate a native soundtrack (dialogue, effects, ambience) with the video; a silent clip is billed at 67 percent.
             * @default true
             */
            generate_audio?: boolean;
            /** @description Seed for reproducible results; random when absent. */
            seed?: number;
            /**
             * @description How strictly the clip follows the prompt, from 0 (loose) to 1 (strict).
             * @default 0.5
             */
            cfg_scale?: number;
        };
        /**
         * @example {
         *       "image_url": "https://example.com/inputs/portrait.png",
         *       "prompt": "Slow push-in as the clouds drift behind her",
         *       "duration": 5,
         *       "resolution": "4k"
         *     }
         */
        AuroraV3ImageToVideo4kInput: {
            /**
             * Format: uri
             * @description Source image (JPEG, PNG or WebP) used as the first frame; at least 1920 pixels on the long side is recommended.
             */
            image_url: string;
            /** @description How the image moves, including action, camera movement and sound. */
            prompt: string;
            /** @description What the clip must not show. */
            negative_prompt?: string;
            /**
             * @description Length of the clip in seconds; billed per second.
             * @default 5
             */
            duration?: number;
            /**
             * @description Frame ratio written as w:h; the image is cropped to it.
             * @default 16:9
             */
            aspect_ratio?: string;
            /**
             * @description Output resolution.
             * @default 4k
             * @enum {string}
             */
            resolution?: "4k";
            /**
             * @description Generate a native soundtrack (dialogue, effects, ambience) with the video, at no extra cost.
             * @default true
             */
            generate_audio?: boolean;
            /** @description Seed for reproducible results; random when absent. */
            seed?: number;
            /**
             * @description How strictly the clip follows the prompt, from 0 (loose) to 1 (strict).
             * @default 0.5
             */
            cfg_scale?: number;
        };
        /**
         * @example {
         *       "reference_image_urls": [
         *         "https://example.com/inputs/portrait.png",
         *         "https://example.com/inputs/jacket.png"
         *       ],
         *       "prompt": "The woman from the first image wears the jacket from the second, walking through a night market",
         *       "duration": 5
         *     }
         */
        AuroraV3OmniReferenceToVideoInput: {
            /** @description Images of the characters, faces or objects whose identity the clip preserves; refer to them in the prompt as image 1, image 2 and so on. */
            reference_image_urls: string[];
            /** @description What the referenced subjects do, including setting, camera movement and sound. */
            prompt: string;
            /** @description What the clip must not show. */
            negative_prompt?: string;
            /**
             * @description Length of the clip in seconds; billed per second.
             * @default 5
             */
            duration?: number;
            /**
             * @description Frame ratio written as w:h, e.g. 16:9, 9:16 or 1:1.
             * @default 16:9
             */
            aspect_ratio?: string;
            /**
             * @description Output resolution.
             * @default 1080p
             * @enum {string}
             */
            resolution?: "1080p";
            /**
             * @description Generate a native soundtrack (dialogue, effects, ambience) with the video; a silent clip is billed at 80 percent.
             * @default true
             */
            generate_audio?: boolean;
            /** @description Seed for reproducible results; random when absent. */
            seed?: number;
            /**
             * @description How strictly the clip follows the prompt, from 0 (loose) to 1 (strict).
             * @default 0.5
             */
            cfg_scale?: number;
        };
        /**
         * @example {
         *       "image_url": "https://example.com/inputs/portrait.png",
         *       "motion_video_url": "https://example.com/inputs/dance.mp4",
         *       "prompt": "A dancer on a rooftop at sunset"
         *     }
         */
        AuroraV3MotionControlInput: {
            /**
             * Format: uri
             * @description Image of the character or subject to animate.
             */
            image_url: string;
            /**
             * Format: uri
             * @description Driving video (MP4 or MOV) whose body and camera movement are transferred to the subject.
             */
            motion_video_url: string;
            /** @description Optional guidance on style, setting or details the motion video does not convey. */
            prompt?: string;
            /** @description What the clip must not show. */
            negative_prompt?: string;
            /**
             * @description Length of the clip in seconds, taken from the start of the motion video (at most the motion video's length); the clip is billed at one price whatever its length.
             * @default 5
             */
            duration?: number;
            /**
             * @description Output resolution.
             * @default 1080p
             * @enum {string}
             */
            resolution?: "1080p";
            /** @description Seed for reproducible results; random when absent. */
            seed?: number;
            /**
             * @description How strictly the clip follows the prompt, from 0 (loose) to 1 (strict).
             * @default 0.5
             */
            cfg_scale?: number;
        };
        /**
         * @example {
         *       "image_url": "https://example.com/inputs/chair.png",
         *       "format": "glb",
         *       "texture": true
         *     }
         */
        FormaV2ImageTo3dInput: {
            /**
             * Format: uri
             * @description Image (JPEG, PNG or WebP) of one object, ideally on a plain background.
             */
            image_url: string;
            /**
             * @description File format of the mesh, binary glTF (glb) or Wavefront OBJ (obj).
             * @default glb
             * @enum {string}
             */
            format?: "glb" | "obj";
            /**
             * @description Generate PBR textures; without them the mesh is untextured geometry.
             * @default true
             */
            texture?: boolean;
            /** @description Seed for reproducible results; random when absent. */
            seed?: number;
        };
        /**
         * @example {
         *       "prompt": "Write a two-sentence product description for a ceramic teapot.",
         *       "system_prompt": "You are a concise copywriter.",
         *       "max_tokens": 200,
         *       "temperature": 0.7
         *     }
         */
        LexiV1ChatInput: {
            /** @description The user message (or send `messages` instead). */
            prompt?: string;
            /** @description A conversation instead of `prompt`, oldest first, as OpenAI's chat messages with text content; the last is usually the user's. `system_prompt`, when set, comes before them. */
            messages?: {
                /** @enum {string} */
                role: "system" | "user" | "assistant";
                content: string;
            }[];
            /**
             * @description Instructions that set the model's role, tone and constraints; none when empty.
             * @default
             */
            system_prompt?: string;
            /**
             * @description Upper bound on the length of the reply, in tokens.
             * @default 1024
             */
            max_tokens?: number;
            /**
             * @description Sampling temperature; lower is more deterministic, higher more varied.
             * @default 0.7
             */
            temperature?: number;
        } & (unknown | unknown);
        /**
         * @example {
         *       "prompt": "a lighthouse on a rocky coast at dusk",
         *       "width": 512,
         *       "height": 512,
         *       "num_images": 1
         *     }
         */
        CanvasV1FastTextToImageInput: {
            /** @description Text the pattern is derived from; the same prompt and seed give the same image. */
            prompt: string;
            /**
             * @description Image width in pixels.
             * @default 512
             */
            width?: number;
            /**
             * @description Image height in pixels.
             * @default 512
             */
            height?: number;
            /**
             * @description Number of images to render; billed per image.
             * @default 1
             */
            num_images?: number;
            /** @description Seed for reproducible results; random when absent. */
            seed?: number;
            /**
             * @description Number of refinement passes; more passes add finer detail to the pattern.
             * @default 4
             */
            num_inference_steps?: number;
            /** @description LoRAs of the canvas-v1 family, by registry name; checked like any family's (422 naming `loras[i]` for an unknown, foreign or other-family one). Canvas renders procedurally and has no weights to apply them to, so the image does not change; they are recorded with the prediction, which lets integrations exercise the LoRA path offline. */
            loras?: {
                name: string;
                /**
                 * @description Strength of the LoRA.
                 * @default 1
                 */
                scale?: number;
            }[];
        };
        /**
         * @example {
         *       "prompt": "a lighthouse on a rocky coast at dusk",
         *       "width": 512,
         *       "height": 512
         *     }
         */
        CanvasV1BudgetTextToImageInput: {
            /** @description Text the pattern is derived from; the same prompt and seed give the same image. */
            prompt: string;
            /**
             * @description Image width in pixels.
             * @default 512
             */
            width?: number;
            /**
             * @description Image height in pixels.
             * @default 512
             */
            height?: number;
            /**
             * @description Number of images to render; billed per image.
             * @default 1
             */
            num_images?: number;
            /** @description Seed for reproducible results; random when absent. */
            seed?: number;
            /**
             * @description Number of refinement passes; more passes add finer detail to the pattern.
             * @default 4
             */
            num_inference_steps?: number;
        };
        /**
         * @example {
         *       "prompt": "gentle rain on a tin roof",
         *       "duration": 5
         *     }
         */
        ChimeV1TextToAudioInput: {
            /** @description Text the tone sequence is derived from; the same prompt and seed give the same audio. */
            prompt: string;
            /**
             * @description Length of the audio in seconds; billed per second.
             * @default 5
             */
            duration?: number;
            /** @description Seed for reproducible results; random when absent. */
            seed?: number;
        };
        /**
         * @example {
         *       "prompt": "a low-poly pine tree",
         *       "format": "glb"
         *     }
         */
        FormaV1TextTo3dInput: {
            /** @description Text the shape is derived from; the same prompt and seed give the same mesh. */
            prompt: string;
            /** @description Seed for reproducible results; random when absent. */
            seed?: number;
            /**
             * @description File format of the mesh, binary glTF (glb) or Wavefront OBJ (obj).
             * @default glb
             * @enum {string}
             */
            format?: "glb" | "obj";
        };
        /**
         * @example {
         *       "prompt": "A cozy reading nook by a rainy window, warm lamp light, film photo",
         *       "aspect_ratio": "4:3",
         *       "num_images": 1,
         *       "output_format": "png"
         *     }
         */
        LumenTextToImageInput: {
            /** @description What the image shows; quote any text that must appear in it. */
            prompt: string;
            /** @description What the image must not show. */
            negative_prompt?: string;
            /**
             * @description Image ratio written as w:h, e.g. 1:1, 16:9, 3:4.
             * @default 1:1
             */
            aspect_ratio?: string;
            /**
             * @description Number of images to generate; billed per image.
             * @default 1
             */
            num_images?: number;
            /** @description Seed for reproducible results; random when absent. */
            seed?: number;
            /** @description How strictly the image follows the prompt; higher is stricter but less natural. The model's tuned default when absent. */
            guidance_scale?: number;
            /** @description Denoising steps; more steps add detail and take longer. The model's tuned default when absent. */
            num_inference_steps?: number;
            /**
             * @description File format of the images.
             * @default png
             * @enum {string}
             */
            output_format?: "png" | "jpeg" | "webp";
        };
        /**
         * @example {
         *       "prompt": "wtrclr style, a cozy reading nook by a rainy window",
         *       "aspect_ratio": "4:3",
         *       "num_images": 1,
         *       "loras": [
         *         {
         *           "name": "watercolor-wash",
         *           "scale": 0.8
         *         }
         *       ]
         *     }
         */
        LumenDevTextToImageInput: {
            /** @description What the image shows; quote any text that must appear in it. */
            prompt: string;
            /** @description What the image must not show. */
            negative_prompt?: string;
            /**
             * @description Image ratio written as w:h, e.g. 1:1, 16:9, 3:4.
             * @default 1:1
             */
            aspect_ratio?: string;
            /**
             * @description Number of images to generate; billed per image.
             * @default 1
             */
            num_images?: number;
            /** @description Seed for reproducible results; random when absent. */
            seed?: number;
            /** @description How strictly the image follows the prompt; higher is stricter but less natural. The model's tuned default when absent. */
            guidance_scale?: number;
            /** @description Denoising steps; more steps add detail and take longer. The model's tuned default when absent. */
            num_inference_steps?: number;
            /**
             * @description File format of the images.
             * @default png
             * @enum {string}
             */
            output_format?: "png" | "jpeg" | "webp";
            /** @description LoRAs to apply, by registry name; each must be a public LoRA or one the caller (or the team paying) registered, trained for the lumen family (422 naming `loras[i]` otherwise). The upstream receives each with its weights URL. */
            loras?: {
                name: string;
                /**
                 * @description Strength of the LoRA.
                 * @default 1
                 */
                scale?: number;
            }[];
        };
        /**
         * @example {
         *       "image_url": "https://example.com/inputs/portrait.png",
         *       "prompt": "The same portrait as a watercolor painting",
         *       "strength": 0.6
         *     }
         */
        LumenImageToImageInput: {
            /**
             * Format: uri
             * @description Source image (JPEG, PNG or WebP) to edit.
             */
            image_url: string;
            /** @description The edit to make, or a description of the desired result. */
            prompt: string;
            /**
             * @description How far the result may depart from the source, from 0 (unchanged) to 1 (source used only as a loose guide).
             * @default 0.75
             */
            strength?: number;
            /** @description What the image must not show. */
            negative_prompt?: string;
            /** @description Output ratio written as w:h; absent keeps the ratio of the source image. */
            aspect_ratio?: string;
            /**
             * @description Number of variants to generate; billed per image.
             * @default 1
             */
            num_images?: number;
            /** @description Seed for reproducible results; random when absent. */
            seed?: number;
            /** @description How strictly the result follows the prompt. The model's tuned default when absent. */
            guidance_scale?: number;
            /** @description Denoising steps; more steps add detail and take longer. The model's tuned default when absent. */
            num_inference_steps?: number;
            /**
             * @description File format of the images.
             * @default png
             * @enum {string}
             */
            output_format?: "png" | "jpeg" | "webp";
        };
        /**
         * @example {
         *       "prompt": "A cat astronaut floating above the Earth",
         *       "effect": "pixel-art"
         *     }
         */
        LumenEffectsTextToImageInput: {
            /** @description What the image shows. */
            prompt: string;
            /**
             * @description Preset style applied to the image.
             * @enum {string}
             */
            effect: "anime" | "watercolor" | "oil-painting" | "pixel-art" | "claymation" | "comic" | "cyberpunk" | "vintage-photo";
            /** @description What the image must not show. */
            negative_prompt?: string;
            /**
             * @description Image ratio written as w:h, e.g. 1:1, 9:16.
             * @default 1:1
             */
            aspect_ratio?: string;
            /**
             * @description Number of images to generate; billed per image.
             * @default 1
             */
            num_images?: number;
            /** @description Seed for reproducible results; random when absent. */
            seed?: number;
            /**
             * @description File format of the images.
             * @default png
             * @enum {string}
             */
            output_format?: "png" | "jpeg" | "webp";
        };
        /**
         * @example {
         *       "image_url": "https://example.com/inputs/portrait.png",
         *       "effect": "anime"
         *     }
         */
        LumenEffectsImageToImageInput: {
            /**
             * Format: uri
             * @description Source image (JPEG, PNG or WebP) to restyle.
             */
            image_url: string;
            /**
             * @description Preset style applied to the image.
             * @enum {string}
             */
            effect: "anime" | "watercolor" | "oil-painting" | "pixel-art" | "claymation" | "comic" | "cyberpunk" | "vintage-photo";
            /** @description Optional extra guidance, e.g. details to keep or add. */
            prompt?: string;
            /**
             * @description How strongly the style overrides the source, from 0 (unchanged) to 1 (source used only as a loose guide).
             * @default 0.75
             */
            strength?: number;
            /**
             * @description Number of variants to generate; billed per image.
             * @default 1
             */
            num_images?: number;
            /** @description Seed for reproducible results; random when absent. */
            seed?: number;
            /**
             * @description File format of the images.
             * @default png
             * @enum {string}
             */
            output_format?: "png" | "jpeg" | "webp";
        };
        /**
         * @example {
         *       "video_url": "https://example.com/inputs/street.mp4",
         *       "prompt": "Make it snow and turn the scene to night",
         *       "keep_audio": true
         *     }
         */
        RecutV1VideoEditInput: {
            /**
             * Format: uri
             * @description Source video (MP4 or MOV, up to 15 seconds, up to 1080p).
             */
            video_url: string;
            /** @description The edit to make, e.g. make it night with heavy rain, or replace the red car with a bicycle. */
            prompt: string;
            /** @description What the edited video must not show. */
            negative_prompt?: string;
            /**
             * @description Copy the source video's audio track to the result; otherwise the result is silent.
             * @default true
             */
            keep_audio?: boolean;
            /** @description Seed for reproducible results; random when absent. */
            seed?: number;
        };
        /**
         * @example {
         *       "text": "Your order has shipped and will arrive on Thursday.",
         *       "voice": "aria",
         *       "output_format": "mp3"
         *     }
         */
        SonarV2TextToSpeechInput: {
            /** @description The text to speak. */
            text: string;
            /**
             * @description Preset voice.
             * @default aria
             * @enum {string}
             */
            voice?: "aria" | "basil" | "cedar" | "dahlia" | "ember" | "flint" | "juniper" | "sage";
            /**
             * @description Speaking rate relative to normal speed.
             * @default 1
             */
            speed?: number;
            /**
             * @description File format of the audio.
             * @default mp3
             * @enum {string}
             */
            output_format?: "mp3" | "wav";
        };
        /**
         * @example {
         *       "prompt": "Upbeat lo-fi hip hop with soft piano",
         *       "duration": 30,
         *       "instrumental": true
         *     }
         */
        SonarV2TextToMusicInput: {
            /** @description Genre, mood, tempo and instruments, and the lyrics if vocals are wanted. */
            prompt: string;
            /**
             * @description Length of the piece in seconds; billed per second.
             * @default 30
             */
            duration?: number;
            /**
             * @description Produce music without vocals.
             * @default false
             */
            instrumental?: boolean;
            /** @description Seed for reproducible results; random when absent. */
            seed?: number;
            /**
             * @description File format of the audio.
             * @default mp3
             * @enum {string}
             */
            output_format?: "mp3" | "wav";
        };
        /**
         * @example {
         *       "video_url": "https://example.com/inputs/speaker.mp4",
         *       "audio_url": "https://example.com/inputs/voice.wav",
         *       "sync_mode": "cut_off"
         *     }
         */
        SyncraV1LipsyncInput: {
            /**
             * Format: uri
             * @description Video (MP4 or MOV, up to 60 seconds) showing one clearly visible face.
             */
            video_url: string;
            /**
             * Format: uri
             * @description Speech audio (MP3, WAV or M4A) the lips are synchronised to.
             */
            audio_url: string;
            /**
             * @description When audio and video lengths differ, cut_off trims to the shorter, loop repeats the video, bounce plays it back and forth, silence pads the audio.
             * @default cut_off
             * @enum {string}
             */
            sync_mode?: "cut_off" | "loop" | "bounce" | "silence";
            /** @description Seed for reproducible results; random when absent. */
            seed?: number;
        };
        /**
         * @example {
         *       "prompt": "A hummingbird drinks from a red flower, macro, slow motion",
         *       "duration": 8,
         *       "aspect_ratio": "16:9"
         *     }
         */
        VeloceV2TextToVideoInput: {
            /** @description What the clip shows, including subject, action, setting, camera movement, dialogue in quotes and sound. */
            prompt: string;
            /** @description What the clip must not show. */
            negative_prompt?: string;
            /**
             * @description Length of the clip in seconds; this family always renders 8 seconds.
             * @default 8
             * @enum {integer}
             */
            duration?: 8;
            /**
             * @description Frame ratio written as w:h, e.g. 16:9 or 9:16.
             * @default 16:9
             */
            aspect_ratio?: string;
            /**
             * @description Output resolution.
             * @default 1080p
             * @enum {string}
             */
            resolution?: "1080p";
            /**
             * @description Generate a native soundtrack with the video; without it the clip is silent and billed at 50 percent (63 percent on the Fast tier).
             * @default true
             */
            generate_audio?: boolean;
            /** @description Seed for reproducible results; random when absent. */
            seed?: number;
        };
        /**
         * @example {
         *       "image_url": "https://example.com/inputs/portrait.png",
         *       "prompt": "The camera orbits slowly around her",
         *       "duration": 8
         *     }
         */
        VeloceV2ImageToVideoInput: {
            /**
             * Format: uri
             * @description Source image (JPEG, PNG or WebP) used as the first frame.
             */
            image_url: string;
            /** @description How the image moves, including action, camera movement, dialogue in quotes and sound. */
            prompt: string;
            /** @description What the clip must not show. */
            negative_prompt?: string;
            /**
             * @description Length of the clip in seconds; this family always renders 8 seconds.
             * @default 8
             * @enum {integer}
             */
            duration?: 8;
            /**
             * @description Frame ratio written as w:h; the image is cropped to it.
             * @default 16:9
             */
            aspect_ratio?: string;
            /**
             * @description Output resolution.
             * @default 1080p
             * @enum {string}
             */
            resolution?: "1080p";
            /**
             * @description Generate a native soundtrack with the video; without it the clip is silent and billed at 50 percent (63 percent on the Fast tier).
             * @default true
             */
            generate_audio?: boolean;
            /** @description Seed for reproducible results; random when absent. */
            seed?: number;
        };
    };
    responses: {
        /** @description The generation request was accepted; poll `urls.get` (getPredictionResult), follow its stream (streamPrediction), or wait for the webhook. With `Prefer: wait=N` and a prediction finished within N seconds, the result itself (PredictionResult, `Preference-Applied` set). */
        Submitted: {
            headers: {
                /** @description Credits this request holds (charged when it completes, released if it fails or is cancelled); 0 for sandbox keys. */
                "X-Cost"?: number;
                /** @description The paying wallet's spendable balance in credits after this request's hold (held credits excluded). */
                "X-Balance-Remaining"?: number;
                /** @description `true` when this is the stored answer of an earlier request with the same `Idempotency-Key`; absent otherwise. */
                "Idempotent-Replayed"?: "true";
                /** @description `wait=N` when the request sent `Prefer: wait=N` and the prediction finished within it: the body is then a PredictionResult. */
                "Preference-Applied"?: string;
                "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                RateLimit: components["headers"]["RateLimit"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["PredictionSubmitted"] | components["schemas"]["PredictionResult"];
            };
        };
        /** @description A generation limit is reached: submits per minute per API key (`GENERATE_RATE_PER_KEY`, or the key's `rate_limit_per_minute`) or per account (`GENERATE_RATE_PER_ACCOUNT`), or unfinished predictions per key (`GENERATE_CONCURRENT_PER_KEY`, or the key's `max_concurrent`) or per account (`GENERATE_CONCURRENT_PER_ACCOUNT`). `detail` names the limit; a submit refused per minute does not count against the per-minute limits. */
        GenerationRateLimited: {
            headers: {
                /** @description Seconds until the minute's window ends; 1 for the unfinished-predictions limits. */
                "Retry-After"?: number;
                "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                RateLimit: components["headers"]["RateLimit"];
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorDetail"];
            };
        };
        /** @description A malformed request header, e.g. an `Idempotency-Key` longer than 255 characters. */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorDetail"];
            };
        };
        /** @description The `Idempotency-Key` was already used with a different request in the last 24 hours, or the first request with it is still being processed (retry once it has answered). */
        IdempotencyConflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorDetail"];
            };
        };
        /** @description The request has a body that is not `application/json` (or a body without a Content-Type); any POST, PUT or PATCH can answer it, whether the operation takes a body or not. */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["HTTPValidationError"];
            };
        };
        /** @description An error in OpenAI's format, with the gateway's status (a validation error is 400; 429 carries Retry-After). */
        OpenAIError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["OpenAIError"];
            };
        };
        /** @description Validation error in the path, query or body. Every operation can answer it: unknown query parameters are refused, and so is a body sent to an operation that takes none. Whatever the schema, a number past 9007199254740991 (2^53 - 1) either way is refused (`number_unsafe`), and so is a body nested more than 32 levels deep (`json_too_deep`). A move of credit that would take a wallet past that amount is refused with `code` `balance_limit`. */
        ValidationFailed: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["HTTPValidationError"];
            };
        };
        /** @description Missing, unknown, expired or revoked credential. */
        Unauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorDetail"];
            };
        };
        /** @description The credential is valid but not allowed here (missing OAuth scope, missing role, IP not whitelisted, or someone else's resource). */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorDetail"];
            };
        };
        /** @description The resource does not exist or is not visible to the caller. */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorDetail"];
            };
        };
        /** @description The wallet balance does not cover the cost (`insufficient_credit`), the submitting API key's spend limit for its period does not (`key_spend_limit_exceeded`), the price is above the request's `Max-Cost` (`max_cost_exceeded`), or it would take the paying wallet past its hard monthly budget (`budget_exceeded`). */
        InsufficientCredit: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorDetail"];
            };
        };
        /** @description The request conflicts with the current state of the resource. */
        Conflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorDetail"];
            };
        };
        /** @description A single-use token that was already used or has expired. */
        Gone: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorDetail"];
            };
        };
        /** @description The request body is larger than the service accepts. */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorDetail"];
            };
        };
        /** @description A dependency (work queue, database, storage or an external provider) is unavailable; retry later. */
        ServiceUnavailable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorDetail"];
            };
        };
        /** @description Too many attempts. Each route group has budgets of its own in each 15-minute window (`AUTH_RATE_WINDOW_SECONDS`): password (login, cliLogin), code (loginOtp, verifyOtp) and reset (resetPassword) count failures only, 10 per (email, client address) and 50 per client address (`AUTH_RATE_PER_EMAIL`, `AUTH_RATE_PER_ADDRESS`), and a success resets its (email, address) count; mail (requestOtp, forgotPassword) counts every request, 10 per email (`AUTH_RATE_MAILS_PER_EMAIL`) and 50 per client address, and team invites (createTeamInvite) share those mail budgets, per recipient and per client address; register counts every request, 10 per client address per hour (`REGISTER_RATE_PER_ADDRESS`). */
        TooManyAttempts: {
            headers: {
                /** @description Seconds until the window ends and attempts are accepted again. */
                "Retry-After"?: number;
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorDetail"];
            };
        };
        /** @description The operation is declared but not built yet on this gateway version. */
        NotImplemented: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["ErrorDetail"];
            };
        };
    };
    parameters: {
        /** @description How the new session is delivered. `token` (the default): in the answer, for `Authorization: Bearer`. `cookie`: for the gateway's own browser pages; the token is set as an HttpOnly, SameSite=Strict cookie for the site (Secure when the gateway is served over https), never shown to the page, and the answer carries the session's CSRF token instead, which every state-changing request made with that cookie must send as `X-CSRF-Token`. */
        SessionDelivery: "token" | "cookie";
        /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
        Webhook: string;
        /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
        WebhookEventsFilter: string[];
        /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
        MaxCost: number;
        /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
        MaxCostQuery: number;
        /**
         * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
         *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
         *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
         *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
         *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
         *     answers whichever of the two the first request got.
         */
        PreferWait: string;
        /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
        TeamId: number;
        /** @description `true` acts on the sandbox signing secret, the one that signs deliveries of sandbox predictions (made with a sandbox API key); absent or `false`, the production secret, which signs production predictions' and alerts' deliveries. A sandbox API key always acts on the sandbox secret: with it, `false` is refused (403), since a sandbox key may never read, rotate or sign with the production secret. */
        WebhookSecretSandbox: boolean;
        /** @description Accepted on every administrative route with the other common parameters. This route acts on the record its request names (a user by email, a charge, a prediction or a discount), which already says which wallet is concerned, so `team_id` changes nothing here. */
        AdminTeamIdIgnored: number;
        /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
        WhitelabelStudio: string;
        /** @description Act on this team's wallet instead of the user's own; `email` must name a member of the team (404 otherwise), who is recorded on the ledger row. */
        AdminTeamId: number;
        /** @description Page number, starting at 1. */
        Page: number;
        /** @description Email address of the user. */
        EmailQuery: string;
        /** @description Kind of LoRA. */
        LoraType: components["schemas"]["LoraType"];
        /** @description Entries per page. */
        ListPageSize: number;
        /** @description Count every match into `total` (exact); false leaves `total` null. Without filters the count is cheap at any size (a per-owner counter); with filters false answers faster on a large history. */
        IncludeCount: boolean;
        /** @description Only predictions with this review status; absent lists every status. */
        ReviewStatusFilter: "unreviewed" | "approved" | "rejected" | "flagged" | null;
        /**
         * @description Makes a retry safe. The same key with the same request (path, query and body) from the
         *     same account (and team; sandbox and production keys apart) within 24 hours answers
         *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
         *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
         *     The same key with another request is 409. Only a successful answer is kept: after an
         *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
         *     good choice); anything else is 400.
         * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
         */
        IdempotencyKey: string;
        /** @description The `request_id` returned by the generation request. */
        RequestIdPath: string;
        /** @description The `id` of the OAuth client, as returned by createOAuthClient and listOAuthClients. */
        OAuthClientIdPath: string;
        /** @description The `id` of the run-history entry (equal to the prediction's `request_id`). */
        UsageLogIdPath: string;
        /** @description The `id` of the API key. */
        KeyIdPath: number;
        /** @description The `id` of the discount. */
        DiscountIdPath: number;
        /** @description The `id` of the media asset. */
        AssetIdPath: number;
    };
    requestBodies: never;
    headers: {
        /** @description The per-minute generation limits that apply to this submit (draft-ietf-httpapi-ratelimit-headers-10): `"key";q=60;w=60, "account";q=120;w=60` (`q` the quota, `w` the window in seconds). Absent when none applies. */
        RateLimitPolicy: string;
        /** @description What is left of each policy of `RateLimit-Policy`: `"key";r=59;t=42, "account";r=119;t=42` (`r` submits left in the window, `t` seconds until it resets). */
        RateLimit: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The service, database and queue are reachable. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            /** @description The database or the queue is unreachable. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HealthUnavailable"];
                };
            };
        };
    };
    listModels: {
        parameters: {
            query?: {
                /** @description Only models of this category (one of `x-catalog.categories`, e.g. `text-to-image`). */
                category?: string;
                /** @description Only models of this tier (one of `x-catalog.tiers`, e.g. `fast`). */
                tier?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The models, in the order the spec declares them. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ModelList"];
                };
            };
            422: components["responses"]["ValidationFailed"];
        };
    };
    createChatCompletion: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OpenAIChatCompletionRequest"];
            };
        };
        responses: {
            /** @description The completion; with `stream` true, a `text/event-stream` of `chat.completion.chunk` events ending with `data: [DONE]`. */
            200: {
                headers: {
                    /** @description The prediction that records the call (GET /api/v1/predictions/{request_id}/result). */
                    "X-Prediction-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAIChatCompletion"];
                    /**
                     * @example data: {"id":"chatcmpl-0193a1b2c3d4e5f60718293a4b5c6d7e","object":"chat.completion.chunk","created":1764400000,"model":"lexi-v1-balanced-chat","choices":[{"index":0,"delta":{"role":"assistant","content":"Red"},"finish_reason":null}]}
                     *
                     *     data: {"id":"chatcmpl-0193a1b2c3d4e5f60718293a4b5c6d7e","object":"chat.completion.chunk","created":1764400000,"model":"lexi-v1-balanced-chat","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}
                     *
                     *     data: [DONE]
                     */
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["OpenAIError"];
            401: components["responses"]["OpenAIError"];
            402: components["responses"]["OpenAIError"];
            403: components["responses"]["OpenAIError"];
            404: components["responses"]["OpenAIError"];
            413: components["responses"]["OpenAIError"];
            415: components["responses"]["OpenAIError"];
            429: components["responses"]["OpenAIError"];
            502: components["responses"]["OpenAIError"];
            503: components["responses"]["OpenAIError"];
            504: components["responses"]["OpenAIError"];
        };
    };
    createImage: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OpenAIImageRequest"];
            };
        };
        responses: {
            /** @description The images. */
            200: {
                headers: {
                    /** @description The prediction that records the request. */
                    "X-Prediction-Id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAIImagesResponse"];
                };
            };
            400: components["responses"]["OpenAIError"];
            401: components["responses"]["OpenAIError"];
            402: components["responses"]["OpenAIError"];
            403: components["responses"]["OpenAIError"];
            404: components["responses"]["OpenAIError"];
            413: components["responses"]["OpenAIError"];
            415: components["responses"]["OpenAIError"];
            429: components["responses"]["OpenAIError"];
            502: components["responses"]["OpenAIError"];
            503: components["responses"]["OpenAIError"];
            504: components["responses"]["OpenAIError"];
        };
    };
    listOpenAIModels: {
        parameters: {
            query?: never;
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The models. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAIModelList"];
                };
            };
            400: components["responses"]["OpenAIError"];
        };
    };
    getOpenAIModel: {
        parameters: {
            query?: never;
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path: {
                /** @description The model's slug. */
                model: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The model. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenAIModel"];
                };
            };
            400: components["responses"]["OpenAIError"];
            404: components["responses"]["OpenAIError"];
        };
    };
    getPredictionResult: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description `true` adds `logs`, the lines the provider wrote while running it. */
                logs?: boolean;
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path: {
                /** @description The `request_id` returned by the generation request. */
                request_id: components["parameters"]["RequestIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The prediction. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PredictionResult"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    streamPrediction: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description `true` adds `logs` events with the lines the provider writes while it runs. */
                logs?: boolean;
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path: {
                /** @description The `request_id` returned by the generation request. */
                request_id: components["parameters"]["RequestIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The event stream, e.g. `event: processing` / `data: {"id":"…","status":"processing",…,"queue_position":3,"progress":null}`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example event: processing
                     *     data: {"id":"01a2216fc1f0a3f19c0b5e7d2c84f1b6","model":"canvas-v1-fast-text-to-image","status":"processing","outputs":[],"queue_position":null,"progress":null}
                     *
                     *     event: completed
                     *     data: {"id":"01a2216fc1f0a3f19c0b5e7d2c84f1b6","model":"canvas-v1-fast-text-to-image","status":"completed","outputs":["https://gateway.example.com/files/outputs/01a2216fc1f0a3f19c0b5e7d2c84f1b6/0.png"],"queue_position":null,"progress":null}
                     */
                    "text/event-stream": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    receiveStripeWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description The event was verified. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StripeWebhookAck"];
                };
            };
            400: components["responses"]["BadRequest"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    receiveUpstreamWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The adapter whose provider calls back. */
                provider: "replicate" | "fal" | "wavespeed";
                /** @description The per-prediction token the gateway put in the callback address. */
                token: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    [key: string]: unknown;
                };
            };
        };
        responses: {
            /** @description The callback was verified. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UpstreamWebhookAck"];
                };
            };
            /** @description The provider's signature is missing, does not verify, or is too old (code `unauthorized`). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getBalance: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The balance. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Balance"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["APIKeyCreateRequest"];
            };
        };
        responses: {
            /** @description The created key, including its value. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["APIKeyCreatedResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listScopes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The scopes. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScopeList"];
                };
            };
            422: components["responses"]["ValidationFailed"];
        };
    };
    getAuthorizationServerMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metadata document. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthorizationServerMetadata"];
                };
            };
            422: components["responses"]["ValidationFailed"];
        };
    };
    getProtectedResourceMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The metadata document. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProtectedResourceMetadata"];
                };
            };
            422: components["responses"]["ValidationFailed"];
        };
    };
    listOAuthClients: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The clients, newest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthClientResponse"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createOAuthClient: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OAuthClientCreateRequest"];
            };
        };
        responses: {
            /** @description The created client, including its secret. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthClientResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteOAuthClient: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The `id` of the OAuth client, as returned by createOAuthClient and listOAuthClients. */
                id: components["parameters"]["OAuthClientIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The client was deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthClientDeleteResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    issueToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/x-www-form-urlencoded": components["schemas"]["TokenRequest"];
                "application/json": components["schemas"]["TokenRequest"];
            };
        };
        responses: {
            /** @description The access token. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenResponse"];
                };
            };
            /** @description `invalid_request`, `unsupported_grant_type` or `invalid_scope` (RFC 6749 section 5.2). */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
            /** @description `invalid_client`: unknown client, wrong secret or revoked client. */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OAuthError"];
                };
            };
        };
    };
    register: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RegisterLoginRequest"];
            };
        };
        responses: {
            /** @description Account created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserResponse"];
                };
            };
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["TooManyAttempts"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    login: {
        parameters: {
            query?: {
                /** @description How the new session is delivered. `token` (the default): in the answer, for `Authorization: Bearer`. `cookie`: for the gateway's own browser pages; the token is set as an HttpOnly, SameSite=Strict cookie for the site (Secure when the gateway is served over https), never shown to the page, and the answer carries the session's CSRF token instead, which every state-changing request made with that cookie must send as `X-CSRF-Token`. */
                session?: components["parameters"]["SessionDelivery"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RegisterLoginRequest"];
            };
        };
        responses: {
            /** @description A new session. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionResponse"] | components["schemas"]["CookieSessionResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["TooManyAttempts"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    logout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session was ended. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionInfo"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    verifyOtp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OtpRequest"];
            };
        };
        responses: {
            /** @description The email address is verified. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["TooManyAttempts"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    requestOtp: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OtpLoginRequest"];
            };
        };
        responses: {
            /** @description A code was sent if the account exists. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageResponse"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["TooManyAttempts"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    loginOtp: {
        parameters: {
            query?: {
                /** @description How the new session is delivered. `token` (the default): in the answer, for `Authorization: Bearer`. `cookie`: for the gateway's own browser pages; the token is set as an HttpOnly, SameSite=Strict cookie for the site (Secure when the gateway is served over https), never shown to the page, and the answer carries the session's CSRF token instead, which every state-changing request made with that cookie must send as `X-CSRF-Token`. */
                session?: components["parameters"]["SessionDelivery"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OtpRequest"];
            };
        };
        responses: {
            /** @description A new session. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionResponse"] | components["schemas"]["CookieSessionResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["TooManyAttempts"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    forgotPassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OtpLoginRequest"];
            };
        };
        responses: {
            /** @description A code was sent if the account exists. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageResponse"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["TooManyAttempts"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    resetPassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ResetPasswordRequest"];
            };
        };
        responses: {
            /** @description The password was changed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["TooManyAttempts"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    supportLogin: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SupportLoginRequest"];
            };
        };
        responses: {
            /** @description A new session. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionResponse"];
                };
            };
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            410: components["responses"]["Gone"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    supportResetPassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SupportPasswordResetRequest"];
            };
        };
        responses: {
            /** @description The password was changed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MessageResponse"];
                };
            };
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            410: components["responses"]["Gone"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getGoogleUrl: {
        parameters: {
            query?: {
                /** @description How the new session is delivered. `token` (the default): in the answer, for `Authorization: Bearer`. `cookie`: for the gateway's own browser pages; the token is set as an HttpOnly, SameSite=Strict cookie for the site (Secure when the gateway is served over https), never shown to the page, and the answer carries the session's CSRF token instead, which every state-changing request made with that cookie must send as `X-CSRF-Token`. */
                session?: components["parameters"]["SessionDelivery"];
                /** @description With `session=cookie`: the page of this gateway (a path starting with `/dashboard` or `/s/`) the browser is sent to after signing in; default `/dashboard`. */
                return_to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The sign-in URL. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GoogleUrlResponse"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["TooManyAttempts"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    googleCallback: {
        parameters: {
            query: {
                /** @description Authorization code issued by Google (absent when Google reports an `error`). */
                code?: string;
                /** @description The `state` value from the sign-in URL; protects against cross-site request forgery. */
                state: string;
                /** @description Issuer of the authorization response (RFC 9207); checked against GOOGLE_ISSUER. */
                iss?: string;
                /** @description Scopes Google granted (sent by Google, not used). */
                scope?: string;
                /** @description Sent by Google, not used. */
                authuser?: string;
                /** @description Sent by Google, not used. */
                prompt?: string;
                /** @description Hosted domain, sent by Google, not used. */
                hd?: string;
                /** @description Sent by some providers, not used. */
                session_state?: string;
                /** @description OAuth error code when sign-in did not complete (e.g. `access_denied`). */
                error?: string;
                /** @description Human-readable detail of `error` (not echoed). */
                error_description?: string;
                /** @description Sent with `error`, not used. */
                error_uri?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A new session. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionResponse"];
                };
            };
            /** @description The sign-in was started with `session=cookie`: the session cookie is set and `Location` is the page to open. */
            302: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Unknown, expired or already used `state`, or a cookie sign-in opened in a browser other than the one that started it; start again from getGoogleUrl. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    googleHandoff: {
        parameters: {
            query: {
                /** @description The single-use code googleCallback put in the redirect. */
                code: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The studio's session cookie is set and `Location` is its dashboard. */
            302: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Unknown, expired, already used or another domain's code, or another browser than the one that started the sign-in; sign in again. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    googleMobileLogin: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["GoogleMobileLoginRequest"];
            };
        };
        responses: {
            /** @description A new session. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    cliLogin: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RegisterLoginRequest"];
            };
        };
        responses: {
            /** @description The new API key. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CliLoginResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["TooManyAttempts"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    adminTopup: {
        parameters: {
            query?: {
                /** @description Act on this team's wallet instead of the user's own; `email` must name a member of the team (404 otherwise), who is recorded on the ledger row. */
                team_id?: components["parameters"]["AdminTeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminCreditRequest"];
            };
        };
        responses: {
            /** @description The new balance. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminCreditResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    adminDeductCredits: {
        parameters: {
            query?: {
                /** @description Act on this team's wallet instead of the user's own; `email` must name a member of the team (404 otherwise), who is recorded on the ledger row. */
                team_id?: components["parameters"]["AdminTeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminDeductRequest"];
            };
        };
        responses: {
            /** @description The new balance. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminCreditResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description The balance is smaller than `amount` (and `allow_negative` is not set), or the `Idempotency-Key` was used for another request. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    adminUserInfo: {
        parameters: {
            query: {
                /** @description Accepted on every administrative route with the other common parameters. This route acts on the record its request names (a user by email, a charge, a prediction or a discount), which already says which wallet is concerned, so `team_id` changes nothing here. */
                team_id?: components["parameters"]["AdminTeamIdIgnored"];
                /** @description Email address of the user. */
                email: components["parameters"]["EmailQuery"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The user. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminUserInfoResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    adminListUsers: {
        parameters: {
            query?: {
                /** @description Accepted on every administrative route with the other common parameters. This route acts on the record its request names (a user by email, a charge, a prediction or a discount), which already says which wallet is concerned, so `team_id` changes nothing here. */
                team_id?: components["parameters"]["AdminTeamIdIgnored"];
                /** @description Part of the email address, or an account id. */
                q?: string;
                /** @description Only accounts holding this role. */
                role?: "user" | "support" | "billing" | "admin";
                /** @description Only accounts of this whitelabel studio. */
                studio_id?: number;
                /** @description Only members of this team. */
                in_team?: number;
                /** @description Only accounts whose email address is (true) or is not (false) verified. */
                verified?: boolean;
                /** @description Only erased accounts (true) or only live ones (false). */
                deleted?: boolean;
                /** @description The order of the list. */
                sort?: "created_at" | "email" | "balance";
                /** @description Ascending or descending. */
                order?: "asc" | "desc";
                /** @description The page, from 1. */
                page?: number;
                /** @description Accounts per page. */
                page_size?: number;
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The answer. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminUserList"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    adminUserRuns: {
        parameters: {
            query: {
                /** @description Accepted on every administrative route with the other common parameters. This route acts on the record its request names (a user by email, a charge, a prediction or a discount), which already says which wallet is concerned, so `team_id` changes nothing here. */
                team_id?: components["parameters"]["AdminTeamIdIgnored"];
                /** @description Email address of the user. */
                email: components["parameters"]["EmailQuery"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The answer. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminUserRuns"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    adminStats: {
        parameters: {
            query?: {
                /** @description Accepted on every administrative route with the other common parameters. This route acts on the record its request names (a user by email, a charge, a prediction or a discount), which already says which wallet is concerned, so `team_id` changes nothing here. */
                team_id?: components["parameters"]["AdminTeamIdIgnored"];
                /** @description How many UTC days, today included. */
                days?: number;
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The answer. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminStats"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    adminFailures: {
        parameters: {
            query?: {
                /** @description Accepted on every administrative route with the other common parameters. This route acts on the record its request names (a user by email, a charge, a prediction or a discount), which already says which wallet is concerned, so `team_id` changes nothing here. */
                team_id?: components["parameters"]["AdminTeamIdIgnored"];
                /** @description How many UTC days, today included. */
                days?: number;
                /** @description Only this model endpoint (its slug). */
                model?: string;
                /** @description Only runs this provider ran. */
                provider?: string;
                /** @description The page, from 1. */
                page?: number;
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The answer. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminFailureList"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    adminManageSubscription: {
        parameters: {
            query?: {
                /** @description Act on this team's wallet instead of the user's own; `email` must name a member of the team (404 otherwise), who is recorded on the ledger row. */
                team_id?: components["parameters"]["AdminTeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminSubscriptionRequest"];
            };
        };
        responses: {
            /** @description The subscription after the change. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description Activation of an active subscription, a change or cancellation without one, a deleted team, or an `Idempotency-Key` used for another request. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listModelDiscounts: {
        parameters: {
            query?: {
                /** @description Only the discounts of this user's own wallet (ignored with `team_id`). */
                email?: string;
                /** @description Only the discounts of this team's wallet. */
                team_id?: number;
                /** @description Without `email` and `team_id`, the next page of every discount, those with an `id` below this one (the last `id` of the previous page). Ignored with either. */
                before?: number;
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The discounts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ModelDiscount"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    upsertModelDiscounts: {
        parameters: {
            query?: {
                /** @description Act on this team's wallet instead of the user's own; `email` must name a member of the team (404 otherwise), who is recorded on the ledger row. */
                team_id?: components["parameters"]["AdminTeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ModelDiscountUpsertRequest"];
            };
        };
        responses: {
            /** @description The discounts as stored, in the order sent. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ModelDiscount"][];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteModelDiscount: {
        parameters: {
            query?: {
                /** @description Accepted on every administrative route with the other common parameters. This route acts on the record its request names (a user by email, a charge, a prediction or a discount), which already says which wallet is concerned, so `team_id` changes nothing here. */
                team_id?: components["parameters"]["AdminTeamIdIgnored"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                /** @description The `id` of the discount. */
                discount_id: components["parameters"]["DiscountIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The discount was deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeleteResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    myModelDiscounts: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The caller's discounts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ModelDiscount"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getMySubscription: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The paying wallet's subscription. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createCheckoutSession: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CheckoutSessionRequest"];
            };
        };
        responses: {
            /** @description The payment page. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckoutSessionResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listPurchases: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The `id` of the last purchase of the previous page. */
                before?: number;
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of purchases. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PurchaseList"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listInvoices: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The invoices. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InvoiceList"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createBillingPortalSession: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The portal's address. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PortalSessionResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    adminStripeCharges: {
        parameters: {
            query: {
                /** @description Accepted on every administrative route with the other common parameters. This route acts on the record its request names (a user by email, a charge, a prediction or a discount), which already says which wallet is concerned, so `team_id` changes nothing here. */
                team_id?: components["parameters"]["AdminTeamIdIgnored"];
                /** @description Email address of the user. */
                email: components["parameters"]["EmailQuery"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The charges. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentCharge"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    adminStripeRefund: {
        parameters: {
            query?: {
                /** @description Accepted on every administrative route with the other common parameters. This route acts on the record its request names (a user by email, a charge, a prediction or a discount), which already says which wallet is concerned, so `team_id` changes nothing here. */
                team_id?: components["parameters"]["AdminTeamIdIgnored"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PaymentRefundRequest"];
            };
        };
        responses: {
            /** @description The refund. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaymentRefundResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    adminRefund: {
        parameters: {
            query?: {
                /** @description Accepted on every administrative route with the other common parameters. This route acts on the record its request names (a user by email, a charge, a prediction or a discount), which already says which wallet is concerned, so `team_id` changes nothing here. */
                team_id?: components["parameters"]["AdminTeamIdIgnored"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminRefundRequest"];
            };
        };
        responses: {
            /** @description The refund. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminRefundResponse"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    virtualLogin: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminImpersonationRequest"];
            };
        };
        responses: {
            /** @description The session token of the user. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /** @example mgs_Q8wE3rT6yU1iO4pA7sD0fG2hJ5kL9zXcVbNm3qWeRt */
                    "text/plain": string;
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    adminSupportLoginLink: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminSupportLinkRequest"];
            };
        };
        responses: {
            /** @description The link. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LinkResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    adminPasswordResetLink: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminSupportLinkRequest"];
            };
        };
        responses: {
            /** @description The link. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LinkResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    adminDeleteUser: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AdminDeleteUserRequest"];
            };
        };
        responses: {
            /** @description The user was deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeleteResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    adminAuditLog: {
        parameters: {
            query?: {
                /** @description Only calls made by this user id. */
                actor_id?: number;
                /** @description Only calls that acted on this user id. */
                target_user_id?: number;
                /** @description Only calls of this operationId (e.g. `adminTopup`). */
                action?: string;
                /** @description Only calls at or after this time. */
                since?: string;
                /** @description Only calls before this time. */
                until?: string;
                /** @description Page number, starting at 1. */
                page?: components["parameters"]["Page"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the log. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaginatedAdminAuditResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    adminUsage: {
        parameters: {
            query: {
                /** @description First UTC day, YYYY-MM-DD. */
                from: string;
                /** @description Last UTC day, YYYY-MM-DD (not before `from`). */
                to: string;
                /** @description One or two of `day`, `model`, `provider`, separated by a comma (default `day`). */
                group_by?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The rows and their totals. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsageResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    adminModelMargins: {
        parameters: {
            query: {
                /** @description First UTC day, YYYY-MM-DD. */
                from: string;
                /** @description Last UTC day, YYYY-MM-DD (not before `from`). */
                to: string;
                /** @description Only this model (its slug). */
                model?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The rows, by day then model, and their totals. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ModelMarginsResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    adminReloadCatalog: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description What the reload changed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CatalogReloadResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getLoraData: {
        parameters: {
            query: {
                /** @description Name of the LoRA. */
                name: string;
                /** @description Kind of LoRA. */
                lora_type: components["parameters"]["LoraType"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The LoRA. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LoraData"];
                };
            };
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getLoraModelsData: {
        parameters: {
            query: {
                /** @description Page number, starting at 1. */
                page?: components["parameters"]["Page"];
                /** @description Search term matched against name and title; empty lists everything. */
                q?: string;
                /** @description Kind of LoRA. */
                lora_type: components["parameters"]["LoraType"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of LoRAs. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaginatedLoraResponse"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listOwnLoras: {
        parameters: {
            query?: {
                /** @description Page number, starting at 1. */
                page?: components["parameters"]["Page"];
                /** @description Search term matched against name, title and trigger words; empty lists everything. */
                q?: string;
                /** @description Only LoRAs of this type; absent lists every type. */
                lora_type?: components["schemas"]["LoraType"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the owner's LoRAs. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaginatedLoraResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createLora: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LoraCreateRequest"];
            };
        };
        responses: {
            /** @description The registered LoRA. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LoraData"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getSiteInfo: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The site. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SiteInfo"];
                };
            };
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getUserDetails: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The profile. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserDetails"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    generateApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["APIKeyCreateRequest"];
            };
        };
        responses: {
            /** @description The created key, including its value. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["APIKeyCreatedResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getUserKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The keys. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["APIKeyResponse"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The `id` of the API key. */
                key_id: components["parameters"]["KeyIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key was deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeleteResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    updateApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The `id` of the API key. */
                key_id: components["parameters"]["KeyIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["APIKeyUpdateRequest"];
            };
        };
        responses: {
            /** @description The updated key. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["APIKeyResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    rotateApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The `id` of the API key. */
                key_id: components["parameters"]["KeyIdPath"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["APIKeyRotateRequest"];
            };
        };
        responses: {
            /** @description The key with its new secret (`key`), shown only this once. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["APIKeyRotatedResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    exportAccount: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The export, streamed as an attachment. */
            200: {
                headers: {
                    /** @description `attachment; filename="mediagate-export-<YYYY-MM-DD>.json"` (the UTC date of the export). */
                    "Content-Disposition"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccountExport"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    requestAccountDeletion: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The deletion is scheduled. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccountDeletionResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    cancelAccountDeletion: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No deletion is scheduled any more. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccountDeletionResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listStaffAccess: {
        parameters: {
            query?: {
                /** @description Page number, starting at 1. */
                page?: components["parameters"]["Page"];
                /** @description Entries per page. */
                page_size?: components["parameters"]["ListPageSize"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of staff access. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaginatedStaffAccessResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getTaskData: {
        parameters: {
            query: {
                /** @description The model endpoint slug (its operationId), e.g. `lumen-dev-text-to-image`. */
                name: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The model. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AITaskResponse"];
                };
            };
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
        };
    };
    calculateDynamicCost: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DynamicCostRequest"];
            };
        };
        responses: {
            /** @description The cost. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DynamicCostResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getFileUploadUrl: {
        parameters: {
            query: {
                /** @description Name of the file to upload, with extension; the extension selects the content type. */
                filename: string;
                /** @description The file's exact size in bytes, when known. Over the media type's limit is 413 at once; on S3-compatible storage it is bound into the signature (the PUT must send exactly this many bytes). */
                size_bytes?: number;
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The upload address. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FileUploadUrlResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listMediaAssets: {
        parameters: {
            query?: {
                /** @description Only assets of this kind; `all` or absent lists every kind. */
                media_type?: "image" | "video" | "audio" | "all" | null;
                /** @description Case-insensitive substring matched against the asset's name or URL. */
                search?: string | null;
                /** @description Page number, starting at 1. */
                page?: components["parameters"]["Page"];
                /** @description Items per page. */
                page_size?: number;
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of assets. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaginatedMediaAssetResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createMediaAsset: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MediaAssetCreate"];
            };
        };
        responses: {
            /** @description The stored asset. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MediaAssetResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            /** @description The request body is not JSON (a validation list, as for every POST), or the registered upload was stored with another content type than its address was issued for (`detail` a string, code `unsupported_media_type`; the file is removed). */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HTTPValidationError"] | components["schemas"]["ErrorDetail"];
                };
            };
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteMediaAsset: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path: {
                /** @description The `id` of the media asset. */
                asset_id: components["parameters"]["AssetIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The asset was deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeleteResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getHomepageModels: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The models. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AITaskResponse"][];
                };
            };
            422: components["responses"]["ValidationFailed"];
        };
    };
    getModelNameForEmbedcode: {
        parameters: {
            query: {
                /** @description The embed code. */
                embed_code: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The model bound to the embed code. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EmbedTaskResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
        };
    };
    listEmbedCodes: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The codes. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EmbedCodeResponse"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createEmbedCode: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EmbedCodeCreateRequest"];
            };
        };
        responses: {
            /** @description The code. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EmbedCodeResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getEmbedCode: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path: {
                /** @description The code's `id`. */
                embed_code_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The code. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EmbedCodeResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    revokeEmbedCode: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path: {
                /** @description The code's `id`. */
                embed_code_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The revoked code. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EmbedCodeResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    updateEmbedCode: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path: {
                /** @description The code's `id`. */
                embed_code_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EmbedCodeSettings"];
            };
        };
        responses: {
            /** @description The code as changed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EmbedCodeResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listStudios: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The studios. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StudioResponse"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createStudio: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StudioCreateRequest"];
            };
        };
        responses: {
            /** @description The studio. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StudioResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getStudio: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path: {
                /** @description The studio's `id`. */
                studio_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The studio. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StudioResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    disableStudio: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path: {
                /** @description The studio's `id`. */
                studio_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The disabled studio. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StudioResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    updateStudio: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path: {
                /** @description The studio's `id`. */
                studio_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StudioSettings"];
            };
        };
        responses: {
            /** @description The studio as changed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StudioResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    verifyStudioDomains: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path: {
                /** @description The studio's `id`. */
                studio_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The studio, with each domain's verification. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StudioResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getStudioUsage: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description Start (inclusive). */
                from?: string;
                /** @description End (exclusive). */
                to?: string;
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path: {
                /** @description The studio's `id`. */
                studio_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The usage. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StudioUsage"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getUsage: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description First UTC day, YYYY-MM-DD (default 29 days before `to`). */
                from?: string;
                /** @description Last UTC day, YYYY-MM-DD, not before `from` (default today). */
                to?: string;
                /** @description One or two of `day`, `model`, `api_key`, `source`, separated by a comma (default `day`). */
                group_by?: string;
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The rows and their totals. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsageResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getAlertSettings: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The settings. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AlertSettings"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    updateAlertSettings: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AlertSettingsRequest"];
            };
        };
        responses: {
            /** @description The settings now. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AlertSettings"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    sendAlertTest: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The receiver's URL; left out, the saved `webhook_url`. */
                    url?: string;
                };
            };
        };
        responses: {
            /** @description What the receiver answered. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookTestResult"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            /** @description More than 10 test events this minute for the account (or team). */
            429: {
                headers: {
                    /** @description Seconds until the minute ends and test events are accepted again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listAlerts: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The alerts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AlertList"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listCreditTransactions: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description Page number, starting at 1. */
                page?: components["parameters"]["Page"];
                /** @description Entries per page. */
                page_size?: components["parameters"]["ListPageSize"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of transactions. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaginatedTransactionResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getRunHistory: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description Only predictions with this review status; absent lists every status. */
                review_status?: components["parameters"]["ReviewStatusFilter"];
                /** @description Page number, starting at 1. */
                page?: components["parameters"]["Page"];
                /** @description Entries per page. */
                page_size?: components["parameters"]["ListPageSize"];
                /** @description Count every match into `total` (exact); false leaves `total` null. Without filters the count is cheap at any size (a per-owner counter); with filters false answers faster on a large history. */
                include_count?: components["parameters"]["IncludeCount"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of predictions. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaginatedUsageLogResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    searchRunHistory: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description Exact request id. */
                request_id?: string;
                /** @description Exact model endpoint slug. */
                model_name?: string;
                /** @description Only predictions created on this day (UTC). */
                created_at?: string;
                /** @description Only predictions in this state. */
                status?: "queued" | "pending" | "processing" | "completed" | "failed" | "cancelled";
                /** @description Only predictions with this review status. */
                review_status?: "unreviewed" | "approved" | "rejected" | "flagged";
                /** @description Case-insensitive substring matched against the request id, the model and the input (the prompt). */
                q?: string | null;
                /** @description Page number, starting at 1. */
                page?: components["parameters"]["Page"];
                /** @description Entries per page. */
                page_size?: components["parameters"]["ListPageSize"];
                /** @description Count every match into `total` (exact); false leaves `total` null. Without filters the count is cheap at any size (a per-owner counter); with filters false answers faster on a large history. */
                include_count?: components["parameters"]["IncludeCount"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of predictions. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaginatedUsageLogResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getGallery: {
        parameters: {
            query?: {
                /** @description Only files of this kind. */
                media_type?: "all" | "image" | "video" | "audio";
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description Only predictions with this review status; absent lists every status. */
                review_status?: components["parameters"]["ReviewStatusFilter"];
                /** @description Page number, starting at 1. */
                page?: components["parameters"]["Page"];
                /** @description Predictions per page (their files are the page's items). */
                page_size?: number;
                /** @description Count every match into `total` (exact); false leaves `total` null. Without filters the count is cheap at any size (a per-owner counter); with filters false answers faster on a large history. */
                include_count?: components["parameters"]["IncludeCount"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of files. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaginatedGalleryResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    updateReviewStatus: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path: {
                /** @description The `id` of the run-history entry (equal to the prediction's `request_id`). */
                id: components["parameters"]["UsageLogIdPath"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReviewStatusUpdateRequest"];
            };
        };
        responses: {
            /** @description The prediction's new review status. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReviewStatusUpdateResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    bulkUpdateReviewStatus: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BulkReviewStatusRequest"];
            };
        };
        responses: {
            /** @description How many predictions were updated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BulkUpdateResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    bulkDeleteUsageLogs: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BulkDeleteRequest"];
            };
        };
        responses: {
            /** @description How many predictions were deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BulkDeleteResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getPredictionResponse: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path: {
                /** @description The `request_id` returned by the generation request. */
                request_id: components["parameters"]["RequestIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The prediction. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsageLogDetailResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getWebhookSecret: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description `true` acts on the sandbox signing secret, the one that signs deliveries of sandbox predictions (made with a sandbox API key); absent or `false`, the production secret, which signs production predictions' and alerts' deliveries. A sandbox API key always acts on the sandbox secret: with it, `false` is refused (403), since a sandbox key may never read, rotate or sign with the production secret. */
                sandbox?: components["parameters"]["WebhookSecretSandbox"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The current secret. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookSecret"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description `true` acts on the sandbox signing secret, the one that signs deliveries of sandbox predictions (made with a sandbox API key); absent or `false`, the production secret, which signs production predictions' and alerts' deliveries. A sandbox API key always acts on the sandbox secret: with it, `false` is refused (403), since a sandbox key may never read, rotate or sign with the production secret. */
                sandbox?: components["parameters"]["WebhookSecretSandbox"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new secret, with the previous one still signing. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookSecret"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    sendWebhookTest: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description `true` acts on the sandbox signing secret, the one that signs deliveries of sandbox predictions (made with a sandbox API key); absent or `false`, the production secret, which signs production predictions' and alerts' deliveries. A sandbox API key always acts on the sandbox secret: with it, `false` is refused (403), since a sandbox key may never read, rotate or sign with the production secret. */
                sandbox?: components["parameters"]["WebhookSecretSandbox"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The receiver's URL. */
                    url: string;
                };
            };
        };
        responses: {
            /** @description What the receiver answered. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookTestResult"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            /** @description More than 10 test events this minute for the account (or team). */
            429: {
                headers: {
                    /** @description Seconds until the minute ends and test events are accepted again. */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorDetail"];
                };
            };
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description Only deliveries in this state. */
                status?: "pending" | "delivered" | "gone" | "dead";
                /** @description The previous page's `next_before`: only the deliveries after that page's last one. A date and time (such as 2026-11-29T06:00:00Z) also works: only deliveries created before it. */
                before?: string;
                limit?: number;
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of deliveries. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryLog"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    redeliverDeadWebhooks: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: date-time
                     * @description Deliveries created at or after this time.
                     */
                    since: string;
                };
            };
        };
        responses: {
            /** @description Scheduled. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description How many deliveries were scheduled again. */
                        count: number;
                        /** @description Their ids (`webhook-id`). */
                        ids: string[];
                        /** @description True when more dead deliveries since that time are left; call again. */
                        more: boolean;
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    redeliverWebhook: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Scheduled. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {string} */
                        status: "pending";
                    };
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    cancelPrediction: {
        parameters: {
            query?: {
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
            };
            header?: {
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
            };
            path: {
                /** @description The `request_id` returned by the generation request. */
                request_id: components["parameters"]["RequestIdPath"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The cancelled prediction. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PredictionResult"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listTeams: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The teams. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Team"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createTeam: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TeamNameRequest"];
            };
        };
        responses: {
            /** @description The team, with the caller's role (owner). */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Team"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    getTeam: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The team. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Team"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    deleteTeam: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The team was deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeleteResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    renameTeam: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TeamNameRequest"];
            };
        };
        responses: {
            /** @description The renamed team. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Team"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listTeamMembers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The members. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamMember"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    removeTeamMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
                /** @description The member's user `id`. */
                user_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The member was removed, and the team keys they created revoked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamMemberRemoved"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    changeTeamMemberRole: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
                /** @description The member's user `id`. */
                user_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TeamRoleRequest"];
            };
        };
        responses: {
            /** @description The member with the new role. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamMember"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    leaveTeam: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The caller left the team, and the team keys they created were revoked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamMemberRemoved"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listTeamInvites: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The invites. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamInvite"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createTeamInvite: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TeamInviteRequest"];
            };
        };
        responses: {
            /** @description The invite (without its token). */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamInvite"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["TooManyAttempts"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    revokeTeamInvite: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
                /** @description The invite's `id`. */
                invite_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The invite was revoked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeleteResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    listTeamApiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The keys. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamAPIKeyResponse"][];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    createTeamApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["APIKeyCreateRequest"];
            };
        };
        responses: {
            /** @description The created key, including its value. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamAPIKeyCreatedResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    revokeTeamApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
                /** @description The key's `id`. */
                key_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The key was revoked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeleteResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    updateTeamApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
                /** @description The key's `id`. */
                key_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["APIKeyUpdateRequest"];
            };
        };
        responses: {
            /** @description The updated key. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TeamAPIKeyResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    rotateTeamApiKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The team's `id`. */
                team_id: number;
                /** @description The key's `id`. */
                key_id: number;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["APIKeyRotateRequest"];
            };
        };
        responses: {
            /** @description The key with its new secret (`key`), shown only this once. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["APIKeyRotatedResponse"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    acceptTeamInvite: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TeamInviteAcceptRequest"];
            };
        };
        responses: {
            /** @description The team joined, with the caller's new role. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Team"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "aurora-v3-standard-text-to-video": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AuroraV3TextToVideoInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "aurora-v3-pro-text-to-video": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AuroraV3TextToVideoInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "aurora-v3-4k-text-to-video": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AuroraV3TextToVideo4kInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "aurora-v3-standard-image-to-video": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AuroraV3ImageToVideoInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "aurora-v3-pro-image-to-video": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AuroraV3ImageToVideoInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "aurora-v3-4k-image-to-video": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AuroraV3ImageToVideo4kInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "aurora-v3-omni-reference-to-video": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AuroraV3OmniReferenceToVideoInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "aurora-v3-standard-motion-control": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AuroraV3MotionControlInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "aurora-v3-pro-motion-control": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AuroraV3MotionControlInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "forma-v2-best-image-to-3d": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["FormaV2ImageTo3dInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "lexi-v1-balanced-chat": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LexiV1ChatInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "canvas-v1-fast-text-to-image": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CanvasV1FastTextToImageInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "canvas-v1-budget-text-to-image": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CanvasV1BudgetTextToImageInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "chime-v1-fast-text-to-audio": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ChimeV1TextToAudioInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "forma-v1-fast-text-to-3d": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["FormaV1TextTo3dInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "lumen-dev-text-to-image": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LumenDevTextToImageInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "lumen-dev-i2i": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LumenImageToImageInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "lumen-pro-text-to-image": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LumenTextToImageInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "lumen-pro-i2i": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LumenImageToImageInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "lumen-max-text-to-image": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LumenTextToImageInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "lumen-max-i2i": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LumenImageToImageInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "lumen-effects-text-to-image": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LumenEffectsTextToImageInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "lumen-effects-i2i": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LumenEffectsImageToImageInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "recut-v1-pro-video-edit": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RecutV1VideoEditInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "sonar-v2-best-text-to-speech": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SonarV2TextToSpeechInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "sonar-v2-balanced-text-to-music": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SonarV2TextToMusicInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "syncra-v1-balanced-lipsync": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SyncraV1LipsyncInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "veloce-v2-standard-text-to-video": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["VeloceV2TextToVideoInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "veloce-v2-fast-text-to-video": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["VeloceV2TextToVideoInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "veloce-v2-standard-image-to-video": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["VeloceV2ImageToVideoInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    "veloce-v2-fast-image-to-video": {
        parameters: {
            query?: {
                /** @description HTTPS URL that receives the result. When the prediction reaches `completed` or `failed` (never other states, unless `webhook_events_filter` asks for events while it runs), the service POSTs a `WebhookPayload` to it, signed per Standard Webhooks v1 (`webhook-id`, `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`, keyed with the account's secret from `GET /app/webhook_secret`, a sandbox prediction's with the sandbox secret from `GET /app/webhook_secret?sandbox=true`). An attempt fails on a network error, a timeout (15 s by default), or any non-2xx answer; redirects are not followed. It is retried up to three times, by default about 1 minute, 15 minutes and 4 hours after the first failure (each wait ±20%; the operator may set other times; `Retry-After` on 429/503 is honoured, up to one hour); `410 Gone` stops at once; after the last failure the delivery is dead-lettered and can be sent again with `POST /app/webhook_deliveries/{id}/redeliver`. Every attempt of one delivery carries the same `webhook-id`: receivers must be idempotent. Only `https://` URLs with a public destination are accepted: credentials in the URL, and loopback, private, link-local, unique-local, multicast or metadata addresses in any notation, are refused with 422, and the host is resolved again and checked at send time. */
                webhook?: components["parameters"]["Webhook"];
                /** @description The events the `webhook` receives, as Replicate's `webhook_events_filter`: repeat the parameter (`webhook_events_filter=start&webhook_events_filter=completed`) or separate names with commas (`webhook_events_filter=start,progress,completed`). `start`: once, when a worker starts the prediction. `progress`: when the provider reports progress or a queue position. `logs`: when the run writes log lines (it carries them). At most one `progress` or `logs` event is sent every 5 seconds per prediction (the operator may set another interval). `completed`: the result, `completed` or `failed`, sent last and retried as without a filter. A filter without `completed` sends no result. The running events carry the result's fields (`status` `queued` or `processing`) plus `event`, `progress` and `queue_position`, and are tried once, never retried. Without this parameter the webhook receives the result only. An unknown event name, or this parameter without `webhook`, is refused with 422. */
                webhook_events_filter?: components["parameters"]["WebhookEventsFilter"];
                /** @description Act on the resources of this team instead of the caller's own; the caller must be a member (404 otherwise) whose role has the operation's permission (403 otherwise). Absent means the caller's own resources, or, with a team's API key, that team's. A team API key naming another team is 403. */
                team_id?: components["parameters"]["TeamId"];
                /** @description The same as the `Max-Cost` header, for clients that cannot set headers: the most this request may cost, in credits; a higher price is 402 `max_cost_exceeded` and nothing is held. */
                max_cost?: components["parameters"]["MaxCostQuery"];
            };
            header?: {
                /**
                 * @description Makes a retry safe. The same key with the same request (path, query and body) from the
                 *     same account (and team; sandbox and production keys apart) within 24 hours answers
                 *     with the first answer (same status, body and headers, plus `Idempotent-Replayed: true`)
                 *     and runs and charges nothing again; a concurrent duplicate waits for the first to answer.
                 *     The same key with another request is 409. Only a successful answer is kept: after an
                 *     error the same key runs the request again. 1-255 printable ASCII characters (a UUID is a
                 *     good choice); anything else is 400.
                 * @example 5f0c8a52-3f5e-4a8e-9d0c-2a7e6b1f4d93
                 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
                /**
                 * @description `wait=N` (RFC 7240): hold the answer until the prediction is finished, for up to N
                 *     seconds (at most 60; a larger N is treated as 60). Finished in time: the answer is the
                 *     getPredictionResult body (`id`, `status`, `outputs`, ...) with `Preference-Applied: wait=N`
                 *     and the cost headers. Otherwise the usual submit answer (`request_id`, ...). Other
                 *     preferences, and a malformed `wait`, are ignored. With an `Idempotency-Key`, a replay
                 *     answers whichever of the two the first request got.
                 */
                Prefer?: components["parameters"]["PreferWait"];
                /** @description The slug of the whitelabel studio this call is made in. A studio's end users send it on every call (or call through one of the studio's domains instead); the credential must belong to the studio (its users, its owner or its owning team's members), otherwise 403 `studio_forbidden`. An unknown slug is 404 `studio_not_found`; a disabled studio's is 403 `studio_disabled` except for signing in, the session, exportAccount and requesting or cancelling the account's deletion. Without it, calls are made outside any studio. In a studio's context only its allowed models exist and runs are priced at the studio's price. In a team's `owner_pays` studio the team's wallet pays every run: a member of the team running a model there with their own credential needs the team's `generate` permission (403 otherwise). */
                "x-whitelabel-studio"?: components["parameters"]["WhitelabelStudio"];
                /** @description The most this request may cost, in credits. When the price (after discounts, in a studio its price) is above it the answer is 402 `max_cost_exceeded` with the price in `detail` and `X-Cost`, and nothing is held or recorded. A price equal to it is accepted. Sandbox keys pay nothing, so they are never refused by it. With `max_cost` as well, the lower of the two applies. */
                "Max-Cost"?: components["parameters"]["MaxCost"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["VeloceV2ImageToVideoInput"];
            };
        };
        responses: {
            200: components["responses"]["Submitted"];
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            402: components["responses"]["InsufficientCredit"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["IdempotencyConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            422: components["responses"]["ValidationFailed"];
            429: components["responses"]["GenerationRateLimited"];
            503: components["responses"]["ServiceUnavailable"];
        };
    };
    predictionEvent: {
        parameters: {
            query?: never;
            header: {
                /** @description This event's id (each event has its own). */
                "webhook-id": string;
                /** @description Unix seconds when it was sent; reject stale ones (the standardwebhooks libraries allow 5 minutes). */
                "webhook-timestamp": string;
                /** @description As on `predictionFinished`. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookEventPayload"];
            };
        };
        responses: {
            /** @description Received. The answer is not read beyond its first 4 KiB, and no answer is retried. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    predictionFinished: {
        parameters: {
            query?: never;
            header: {
                /** @description The delivery's id, the same on every attempt (and on a redelivery); deduplicate on it. */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was sent; reject stale ones (the standardwebhooks libraries allow 5 minutes). */
                "webhook-timestamp": string;
                /** @description `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the secret's bytes (the base64 after `whsec_`), over the exact bytes sent. For 24 hours after a rotation two signatures are sent, space-separated, one per secret. */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookPayload"];
            };
        };
        responses: {
            /** @description Gone; the gateway stops retrying this delivery. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received. Answer quickly; the body is not read beyond its first 4 KiB and not kept. */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer, a timeout or a network error fails the attempt; it is retried. */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}

/** Model endpoints (x-model): all served by handlers/generate.ts with a generic input. */
export type ModelOperationId =
    | "aurora-v3-4k-image-to-video"
    | "aurora-v3-4k-text-to-video"
    | "aurora-v3-omni-reference-to-video"
    | "aurora-v3-pro-image-to-video"
    | "aurora-v3-pro-motion-control"
    | "aurora-v3-pro-text-to-video"
    | "aurora-v3-standard-image-to-video"
    | "aurora-v3-standard-motion-control"
    | "aurora-v3-standard-text-to-video"
    | "canvas-v1-budget-text-to-image"
    | "canvas-v1-fast-text-to-image"
    | "chime-v1-fast-text-to-audio"
    | "forma-v1-fast-text-to-3d"
    | "forma-v2-best-image-to-3d"
    | "lexi-v1-balanced-chat"
    | "lumen-dev-i2i"
    | "lumen-dev-text-to-image"
    | "lumen-effects-i2i"
    | "lumen-effects-text-to-image"
    | "lumen-max-i2i"
    | "lumen-max-text-to-image"
    | "lumen-pro-i2i"
    | "lumen-pro-text-to-image"
    | "recut-v1-pro-video-edit"
    | "sonar-v2-balanced-text-to-music"
    | "sonar-v2-best-text-to-speech"
    | "syncra-v1-balanced-lipsync"
    | "veloce-v2-fast-image-to-video"
    | "veloce-v2-fast-text-to-video"
    | "veloce-v2-standard-image-to-video"
    | "veloce-v2-standard-text-to-video";

/** Operations whose security is not empty: their handlers always receive a caller. */
export type ProtectedOperationId =
    | "acceptTeamInvite"
    | "adminAuditLog"
    | "adminDeductCredits"
    | "adminDeleteUser"
    | "adminFailures"
    | "adminListUsers"
    | "adminManageSubscription"
    | "adminModelMargins"
    | "adminPasswordResetLink"
    | "adminRefund"
    | "adminReloadCatalog"
    | "adminStats"
    | "adminStripeCharges"
    | "adminStripeRefund"
    | "adminSupportLoginLink"
    | "adminTopup"
    | "adminUsage"
    | "adminUserInfo"
    | "adminUserRuns"
    | "aurora-v3-4k-image-to-video"
    | "aurora-v3-4k-text-to-video"
    | "aurora-v3-omni-reference-to-video"
    | "aurora-v3-pro-image-to-video"
    | "aurora-v3-pro-motion-control"
    | "aurora-v3-pro-text-to-video"
    | "aurora-v3-standard-image-to-video"
    | "aurora-v3-standard-motion-control"
    | "aurora-v3-standard-text-to-video"
    | "bulkDeleteUsageLogs"
    | "bulkUpdateReviewStatus"
    | "calculateDynamicCost"
    | "cancelAccountDeletion"
    | "cancelPrediction"
    | "canvas-v1-budget-text-to-image"
    | "canvas-v1-fast-text-to-image"
    | "changeTeamMemberRole"
    | "chime-v1-fast-text-to-audio"
    | "createApiKey"
    | "createBillingPortalSession"
    | "createChatCompletion"
    | "createCheckoutSession"
    | "createEmbedCode"
    | "createImage"
    | "createLora"
    | "createMediaAsset"
    | "createOAuthClient"
    | "createStudio"
    | "createTeam"
    | "createTeamApiKey"
    | "createTeamInvite"
    | "deleteApiKey"
    | "deleteMediaAsset"
    | "deleteModelDiscount"
    | "deleteOAuthClient"
    | "deleteTeam"
    | "disableStudio"
    | "exportAccount"
    | "forma-v1-fast-text-to-3d"
    | "forma-v2-best-image-to-3d"
    | "generateApiKey"
    | "getAlertSettings"
    | "getBalance"
    | "getEmbedCode"
    | "getFileUploadUrl"
    | "getGallery"
    | "getMySubscription"
    | "getPredictionResponse"
    | "getPredictionResult"
    | "getRunHistory"
    | "getSession"
    | "getStudio"
    | "getStudioUsage"
    | "getTeam"
    | "getUsage"
    | "getUserDetails"
    | "getUserKeys"
    | "getWebhookSecret"
    | "leaveTeam"
    | "lexi-v1-balanced-chat"
    | "listAlerts"
    | "listCreditTransactions"
    | "listEmbedCodes"
    | "listInvoices"
    | "listMediaAssets"
    | "listModelDiscounts"
    | "listOAuthClients"
    | "listOwnLoras"
    | "listPurchases"
    | "listStaffAccess"
    | "listStudios"
    | "listTeamApiKeys"
    | "listTeamInvites"
    | "listTeamMembers"
    | "listTeams"
    | "listWebhookDeliveries"
    | "logout"
    | "lumen-dev-i2i"
    | "lumen-dev-text-to-image"
    | "lumen-effects-i2i"
    | "lumen-effects-text-to-image"
    | "lumen-max-i2i"
    | "lumen-max-text-to-image"
    | "lumen-pro-i2i"
    | "lumen-pro-text-to-image"
    | "myModelDiscounts"
    | "recut-v1-pro-video-edit"
    | "redeliverDeadWebhooks"
    | "redeliverWebhook"
    | "removeTeamMember"
    | "renameTeam"
    | "requestAccountDeletion"
    | "revokeEmbedCode"
    | "revokeTeamApiKey"
    | "revokeTeamInvite"
    | "rotateApiKey"
    | "rotateTeamApiKey"
    | "rotateWebhookSecret"
    | "searchRunHistory"
    | "sendAlertTest"
    | "sendWebhookTest"
    | "sonar-v2-balanced-text-to-music"
    | "sonar-v2-best-text-to-speech"
    | "streamPrediction"
    | "syncra-v1-balanced-lipsync"
    | "updateAlertSettings"
    | "updateApiKey"
    | "updateEmbedCode"
    | "updateReviewStatus"
    | "updateStudio"
    | "updateTeamApiKey"
    | "upsertModelDiscounts"
    | "veloce-v2-fast-image-to-video"
    | "veloce-v2-fast-text-to-video"
    | "veloce-v2-standard-image-to-video"
    | "veloce-v2-standard-text-to-video"
    | "verifyStudioDomains"
    | "virtualLogin";

/** The scopes the OAuth2 security scheme declares: the only list of scopes (spec/scopes.ts). */
export type DeclaredScope =
    | "generate:write"
    | "generate:read"
    | "files:write"
    | "account:read"
    | "keys:manage";
