import type { Handler } from './types.ts';
import { httpError } from '../plugins/errors.ts';
import { cancelPrediction as cancelRow, findPrediction } from '../db/predictions.ts';
import { predictionView } from './render.ts';
import { canSee, requireCaller } from './guards.ts';

/** GET /api/v1/predictions/{request_id}/result. Someone else's id is as unknown as a made-up one. */
export const getPredictionResult: Handler = async (ctx) => {
  const caller = requireCaller(ctx);
  const p = await findPrediction(ctx.app.db, String(ctx.params.request_id));
  if (!p || !canSee(caller, p)) throw httpError(404, 'prediction not found');
  return predictionView(ctx.app, p);
};

/** POST /app/cancel_prediction/{request_id}: queued, pending or processing -> cancelled; the hold is released. */
export const cancelPrediction: Handler = async (ctx) => {
  const caller = requireCaller(ctx);
  const id = String(ctx.params.request_id);
  if (!canSee(caller, await findPrediction(ctx.app.db, id))) throw httpError(404, 'prediction not found');
  const outcome = await cancelRow(ctx.app.db, id, caller.userId, ctx.app.clock());
  if (outcome === 'not-found') throw httpError(404, 'prediction not found');
  const p = await findPrediction(ctx.app.db, id);
  if (outcome === 'finished') throw httpError(409, `prediction is already ${p?.status ?? 'finished'} and cannot be cancelled`);
  return predictionView(ctx.app, p!);
};
