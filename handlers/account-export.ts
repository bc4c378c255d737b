// GET /app/account/export (README "Exporting an account"): everything the gateway holds about
// the caller, as one JSON document written as it is read. The small parts (profile, wallet,
// alert settings, keys, OAuth clients, memberships, embed codes, studios, subscription, discounts)
// are read before the answer starts, so their failures are
// ordinary error answers; the long lists (ledger, predictions, media, LoRAs, alerts) are then read in keyset
// pages of EXPORT_PAGE rows while the body streams, with back-pressure: Readable.from pulls the
// next page only when the previous one was sent. Personal data only: team rows belong to the
// team. Never a key value, hash, digest, sealed secret or token: every part goes through the
// same view the list routes use, which leave them out (and an embed code's view without the code).
import { Readable } from 'node:stream';
import type { App } from '../lib/context.ts';
import type { Handler, OwnedCaller } from './types.ts';
import { getBalance as readBalance } from '../db/wallet/ledger.ts';
import { listUserKeys } from '../db/api-keys.ts';
import { listUserOAuthClients } from '../db/oauth-clients.ts';
import { exportAlerts, exportLedger, exportLoras, exportMediaAssets, exportMemberships, exportPredictions } from '../db/account-export.ts';
import { alertSettings } from '../db/alerts.ts';
import { listAlertDeliveries } from '../db/webhooks.ts';
import type { PredictionCursor } from '../db/account-export.ts';
import { CREDIT_UNIT, userDetails } from './account.ts';
import { keyView } from './keys.ts';
import { clientView } from './oauth.ts';
import { deliveryView, usageLogDetail } from './webhooks.ts';
import { settingsView } from './alerts.ts';
import { loraView } from './loras.ts';
import { alertView } from '../workers/deliver-webhook.ts';
import { listEmbedCodes } from '../db/embed-codes.ts';
import type { EmbedCode } from '../db/embed-codes.ts';
import { listStudios } from '../db/studios.ts';
import { listDiscounts } from '../db/discounts.ts';
import { embedCodeView } from './embeds.ts';
import { studioView } from './studios.ts';
import { discountView } from './discounts.ts';
import { subscriptionView } from './subscription-view.ts';
import { webhookUrlView } from '../lib/webhook-visibility.ts';
import type { WebhookUrlView } from '../lib/webhook-visibility.ts';

/** rows read per query while streaming */
export const EXPORT_PAGE = 500;

const iso = (ms: number) => new Date(ms).toISOString();

/** `"name":[` + each item of each page + `]`, the items comma-separated. */
async function* jsonArray<T>(name: string, pages: AsyncIterable<T[]>): AsyncGenerator<string> {
  yield `,${JSON.stringify(name)}:[`;
  let first = true;
  for await (const page of pages) {
    if (page.length === 0) continue;
    yield (first ? '' : ',') + page.map((item) => JSON.stringify(item)).join(',');
    first = false;
  }
  yield ']';
}

async function* ledgerPages(app: App, userId: number) {
  for (let after = 0; ;) {
    const page = await exportLedger(app.db, userId, after, EXPORT_PAGE);
    yield page.map((e) => ({
      id: e.id, kind: e.kind, amount: e.amount, balance_after: e.balanceAfter, description: e.description,
      request_id: e.predictionId, user_id: e.userId, created_at: iso(e.createdAt),
    }));
    if (page.length < EXPORT_PAGE) return;
    after = page.at(-1)!.id;
  }
}

async function* predictionPages(app: App, userId: number, sandboxOnly: boolean, urls: WebhookUrlView) {
  for (let after: PredictionCursor | null = null; ;) {
    const { rows, next } = await exportPredictions(app.db, userId, after, EXPORT_PAGE, sandboxOnly);
    yield rows.map((p) => usageLogDetail(app, p, urls));
    if (next === null) return;
    after = next;
  }
}

async function* mediaPages(app: App, userId: number) {
  for (let after = 0; ;) {
    const page = await exportMediaAssets(app.db, userId, after, EXPORT_PAGE);
    yield page.map((a) => ({
      id: a.id, name: a.name, url: a.storageKey ? app.storage.url(a.storageKey) : a.url, media_type: a.mediaType,
      content_type: a.contentType, size_bytes: a.sizeBytes, request_id: a.requestId, team_id: null, created_at: iso(a.createdAt),
    }));
    if (page.length < EXPORT_PAGE) return;
    after = page.at(-1)!.id;
  }
}

async function* loraPages(app: App, userId: number) {
  for (let after = 0; ;) {
    const page = await exportLoras(app.db, userId, after, EXPORT_PAGE);
    yield page.map(loraView);
    if (page.length < EXPORT_PAGE) return;
    after = page.at(-1)!.id;
  }
}

/** The alerts of the user's own wallet and keys, each with its webhook deliveries (a sandbox key's export has none, as its delivery log). */
async function* alertPages(app: App, userId: number, sandboxOnly: boolean, urls: WebhookUrlView) {
  if (sandboxOnly) return;
  for (let after = 0; ;) {
    const page = await exportAlerts(app.db, userId, after, EXPORT_PAGE);
    const deliveries = await listAlertDeliveries(app.db, page.map((a) => a.id));
    yield page.map((a) => ({ ...alertView(a), webhook_deliveries: (deliveries.get(a.id) ?? []).map((d) => ({ ...deliveryView(d), url: urls.alert(d.url) })) }));
    if (page.length < EXPORT_PAGE) return;
    after = page.at(-1)!.id;
  }
}

/** An embed code as its list route shows it, without the code itself: the export is a file that may be kept or passed on, and the code spends the wallet. */
function exportedEmbedCode(c: EmbedCode) {
  const { code: _code, ...rest } = embedCodeView(c);
  return rest;
}

/**
 * The head of the document: every part that is read before the answer starts. The key, OAuth
 * client, embed code and studio lists only for a credential holding `keys:manage`, which their
 * list routes require: an `account:read` token (or a key it made) reads the account, not its
 * credentials. The subscription and the discounts as getMySubscription and myModelDiscounts
 * (`account:read`) show them, the discounts expired ones included, oldest first.
 */
async function head(app: App, caller: OwnedCaller, now: number) {
  const userId = caller.userId;
  const personal = { userId, teamId: null };
  const listsCredentials = caller.scopes.includes('keys:manage');
  const [user, wallet, alerting, keys, clients, memberships, codes, studios, subscription, discounts] = await Promise.all([
    userDetails(app, userId), readBalance(app.db, userId), alertSettings(app.db, personal),
    listsCredentials ? listUserKeys(app.db, userId) : [], listsCredentials ? listUserOAuthClients(app.db, userId) : [], exportMemberships(app.db, userId),
    listsCredentials ? listEmbedCodes(app.db, personal) : [], listsCredentials ? listStudios(app.db, personal) : [],
    subscriptionView(app, personal), listDiscounts(app.db, { owner: personal }),
  ]);
  return {
    exported_at: iso(now),
    user,
    balance: { balance: wallet.balance, held: wallet.held, unit: CREDIT_UNIT },
    alert_settings: settingsView(alerting, webhookUrlView(caller)),
    api_keys: keys.map(keyView),
    oauth_clients: clients.map(clientView),
    team_memberships: memberships.map((m) => ({ team_id: m.teamId, name: m.name, role: m.role, joined_at: iso(m.joinedAt) })),
    // the list routes answer newest first; the export lists oldest first
    embed_codes: codes.toReversed().map(exportedEmbedCode),
    studios: studios.toReversed().map(studioView),
    subscription,
    model_discounts: discounts.toReversed().map(discountView),
  };
}

export const exportAccount: Handler<'exportAccount'> = async ({ app, caller, h }) => {
  const now = app.clock();
  const top = JSON.stringify(await head(app, caller, now));
  const userId = caller.userId;
  // a credential that could not set them (an `account:read` token) gets the webhook URLs redacted (lib/webhook-visibility.ts)
  const urls = webhookUrlView(caller);
  async function* document(): AsyncGenerator<string> {
    yield top.slice(0, -1); // the head without its closing brace
    yield* jsonArray('credit_transactions', ledgerPages(app, userId));
    yield* jsonArray('predictions', predictionPages(app, userId, caller.isTest, urls));
    yield* jsonArray('media_assets', mediaPages(app, userId));
    yield* jsonArray('loras', loraPages(app, userId));
    yield* jsonArray('alerts', alertPages(app, userId, caller.isTest, urls));
    yield '}';
  }
  const body = Readable.from(document(), { objectMode: false });
  // a failure mid-way destroys the stream: hapi cuts the connection, so the client never gets a truncated body that parses
  body.on('error', (err) => app.log.error({ err, userId }, 'account export failed mid-way'));
  return h.response(body)
    .type('application/json; charset=utf-8')
    .header('Content-Disposition', `attachment; filename="mediagate-export-${iso(now).slice(0, 10)}.json"`)
    .header('Cache-Control', 'no-store');
};
