// The caller's predictions: poll a result, cancel a running one. Both are scoped to the owner in
// the query (db/owner.ts): someone else's id is as unknown as a made-up one.
import type { Handler } from './types.ts';
import { ConflictError, NotFoundError } from '../lib/errors.ts';
import { cancelPrediction as cancelRow, findPrediction } from '../db/predictions.ts';
import { predictionView } from '../lib/prediction-view.ts';
import { canSee } from './guards.ts';

/** GET /api/v1/predictions/{request_id}/result (a sandbox key sees only sandbox predictions) */
export const getPredictionResult: Handler<'getPredictionResult'> = async ({ app, caller, params }) => {
  const p = await findPrediction(app.db, caller.owner, params.request_id);
  if (!p || !canSee(caller, p)) throw new NotFoundError('prediction not found');
  return predictionView(app, p);
};

/** POST /app/cancel_prediction/{request_id}: queued, pending or processing -> cancelled; the hold is released. */
export const cancelPrediction: Handler<'cancelPrediction'> = async ({ app, caller, params }) => {
  if (!canSee(caller, await findPrediction(app.db, caller.owner, params.request_id))) throw new NotFoundError('prediction not found');
  const outcome = await cancelRow(app.db, caller.owner, params.request_id, app.clock());
  if (outcome === 'not-found') throw new NotFoundError('prediction not found');
  const p = await findPrediction(app.db, caller.owner, params.request_id);
  if (!p) throw new NotFoundError('prediction not found');
  if (outcome === 'finished') throw new ConflictError(`prediction is already ${p.status} and cannot be cancelled`);
  return predictionView(app, p);
};
