// The caller's predictions: poll a result, cancel a running one. Both are scoped to the owner in
// the query (db/owner.ts): someone else's id is as unknown as a made-up one. The result read and
// the cancel go through the store (app.store); the stream reads the whole record.
import { PassThrough } from 'node:stream';
import type { Handler, HandlerContext, OwnedCaller } from './types.ts';
import { resolveOwner } from '../lib/caller.ts';
import { ConflictError, NotFoundError } from '../lib/errors.ts';
import { findPrediction, findRunLogs, providerMetadataOf } from '../db/predictions/record.ts';
import { parseRunLogs } from '../lib/run-logs.ts';
import type { LogLine } from '../lib/run-logs.ts';
import { predictionView } from '../lib/prediction-view.ts';
import { removeOutputsLogged } from '../lib/storage.ts';
import { findInlineUsage } from '../db/prediction-usage.ts';
import type { InlineUsageRecord } from '../db/prediction-usage.ts';
import type { Prediction } from '../db/predictions/record.ts';
import { canSee } from './guards.ts';
import { disconnectSignal, statusKey, watchPrediction } from './prediction-watch.ts';

/** GET /api/v1/predictions/{request_id}/result (a sandbox key sees only sandbox predictions) */
export const getPredictionResult: Handler<'getPredictionResult'> = async ({ app, caller, params, query }) => {
  const p = await app.store.readResult(caller.owner, params.request_id);
  if (!p || !canSee(caller, p)) throw new NotFoundError('prediction not found');
  const view = { ...predictionView(app, p), queue_position: p.queuePosition, progress: p.progress };
  // the log only when asked: a second read, off the hot path of plain polling
  const logs = query.logs ? { logs: logLinesView(parseRunLogs(await findRunLogs(app.db, caller.owner, p.id))?.lines ?? []) } : {};
  // a language model's answer inline (a second read, for those only), so its text needs no download
  const answer = p.status === 'completed' && app.spec.models.get(p.model)?.category === 'llm' ? answerOf(await findInlineUsage(app.db, p.id)) : {};
  // what the provider said of a completed result (seed, size, timings), read with the row, beside the interface's fields
  return p.providerMetadata ? { ...view, provider_metadata: p.providerMetadata, ...logs, ...answer } : { ...view, ...logs, ...answer };
};

/** A completed language model answer's `output_text` and `usage`, when its usage row has them. */
function answerOf(u: InlineUsageRecord | undefined): { output_text?: string; usage?: { input_tokens: number; output_tokens: number; source: 'reported' | 'counted' } } {
  if (!u || u.text === null || u.inputTokens === null || u.outputTokens === null || u.source === null) return {};
  return { output_text: u.text, usage: { input_tokens: u.inputTokens, output_tokens: u.outputTokens, source: u.source } };
}

/** Log lines as the API shows them. */
export function logLinesView(lines: readonly LogLine[]): Array<{ at: string; message: string }> {
  return lines.map((l) => ({ at: new Date(l.at).toISOString(), message: l.message }));
}

/** The lines of `p`'s log written after the first `seen` (what a stream has not sent yet). */
export function newLogLines(p: Prediction, seen: number): { seen: number; lines: LogLine[] } {
  const logs = parseRunLogs(p.logsText);
  if (!logs || logs.seen <= seen) return { seen: logs?.seen ?? seen, lines: [] };
  // `lines` holds the last of `logs.seen` lines: the first of them is line number logs.seen - lines.length
  const first = logs.seen - logs.lines.length;
  return { seen: logs.seen, lines: logs.lines.slice(Math.max(0, seen - first)) };
}

/** POST /app/cancel_prediction/{request_id}: queued, pending or processing -> cancelled; the hold is released. */
export const cancelPrediction: Handler<'cancelPrediction'> = async ({ app, request, caller, params }) => {
  if (!canSee(caller, await findPrediction(app.db, caller.owner, params.request_id))) throw new NotFoundError('prediction not found');
  const outcome = await app.store.cancel(caller.owner, params.request_id, app.clock());
  if (outcome === 'not-found') throw new NotFoundError('prediction not found');
  const p = await findPrediction(app.db, caller.owner, params.request_id);
  if (!p) throw new NotFoundError('prediction not found');
  if (outcome === 'finished') throw new ConflictError(`prediction is already ${p.status} and cannot be cancelled`);
  // In the background (the answer does not wait for storage). A run still going finds the
  // prediction cancelled when it completes and removes what it stored after this; this covers an
  // attempt whose retry never comes (its in-process timer was lost at a restart).
  if (p.attempts > 0) void removeOutputsLogged(app.storage, app.log, p.id, 'the stored outputs of a cancelled prediction', { fields: { requestId: request.app.requestId } });
  return predictionView(app, p);
};

/**
 * One stream event's data: the result route's body plus what the provider said of a running job,
 * `queue_position` (0: next to run) and `progress` (0..1), each null when not known.
 */
export function streamEvent(app: Parameters<typeof predictionView>[0], p: Prediction) {
  return { ...predictionView(app, p), queue_position: p.queuePosition, progress: p.progress };
}

/** The stream closes after this long even if the prediction is still running (reconnect to go on). */
export const STREAM_CAP_MS = 10 * 60 * 1000;
/** A comment line this often, so proxies and clients see the connection alive. */
export const HEARTBEAT_MS = 15_000;
let openStreams = 0;
/** Streams whose poll loop is still running (tests: a disconnect must bring it back to 0). */
export const openStreamCount = () => openStreams;

/**
 * A stream opened through a team membership asks again before each event whether the caller is
 * still a member with `read_history` (a removed member's stream ends at its next event); a team
 * API key and a personal owner need no check (a key's own revocation is checked per request).
 */
function accessCheck(app: HandlerContext['app'], caller: OwnedCaller): (() => Promise<boolean>) | undefined {
  const { teamId } = caller.owner;
  if (teamId === null || caller.keyTeamId !== undefined) return undefined;
  return () => resolveOwner(app, caller, teamId, 'read_history').then(() => true, () => false);
}

/**
 * GET /api/v1/predictions/{request_id}/stream: Server-Sent Events, one per state change, each
 * `event: <status>` with the result route's body as data (and, with `logs=true`, `event: logs`
 * with the new lines of the run's log); the stream ends after the terminal
 * state's event, after STREAM_CAP_MS, or when the client goes away (README "Following a prediction").
 */
export const streamPrediction: Handler<'streamPrediction'> = async ({ app, caller, params, query, request, h }) => {
  const visible = (p: Prediction) => canSee(caller, p);
  const first = await findPrediction(app.db, caller.owner, params.request_id);
  if (!first || !visible(first)) throw new NotFoundError('prediction not found');

  const stream = new PassThrough();
  const client = disconnectSignal(request);
  stream.once('close', client.abort);
  const heartbeat = setInterval(() => stream.write(': keep-alive\n\n'), HEARTBEAT_MS);
  openStreams++;
  void (async () => {
    try {
      const events = watchPrediction(app, caller.owner, params.request_id, { signal: client.signal, until: Date.now() + STREAM_CAP_MS, visible, stillAllowed: accessCheck(app, caller) });
      let lastStatus: string | undefined;
      let seen = 0;
      for await (const p of events) {
        // new log lines first, so the terminal event stays the stream's last
        const fresh = newLogLines(p, seen);
        seen = fresh.seen;
        // only when asked: a client that knows only status events is never sent another kind
        if (query.logs && fresh.lines.length > 0) stream.write(`event: logs\ndata: ${JSON.stringify({ id: p.id, lines: logLinesView(fresh.lines) })}\n\n`);
        const key = statusKey(p);
        if (key === lastStatus) continue;
        lastStatus = key;
        // the completed event carries the provider's metadata, as the result route does
        const metadata = await providerMetadataOf(app.db, p);
        const event = streamEvent(app, p);
        stream.write(`event: ${p.status}\ndata: ${JSON.stringify(metadata ? { ...event, provider_metadata: metadata } : event)}\n\n`);
      }
    } catch (err) {
      app.log.error({ err, predictionId: params.request_id }, 'prediction stream failed');
    } finally {
      clearInterval(heartbeat);
      client.dispose();
      openStreams--;
      stream.end();
    }
  })();
  return h.response(stream)
    .type('text/event-stream')
    .header('Cache-Control', 'no-cache')
    // no compression (hapi leaves an encoded response alone) and no proxy buffering: each event goes out as written
    .header('Content-Encoding', 'identity')
    .header('X-Accel-Buffering', 'no');
};
