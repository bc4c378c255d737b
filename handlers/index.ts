// The static operationId -> handler map. Model endpoints (x-model) all use `generate`.
// Operations listed in NOT_YET answer 501 until the issue that implements them lands
// (README "What is live"); an operationId in neither list stops start-up.
import type { Handler } from './types.ts';
import { httpError } from '../plugins/errors.ts';
import { generate } from './generate.ts';
import { cancelPrediction, getPredictionResult } from './predictions.ts';
import { getBalance, getUserDetails } from './account.ts';
import { cliLogin, login, register } from './auth.ts';
import { createApiKey, deleteApiKey, getUserKeys } from './keys.ts';
import { getHealth } from './health.ts';

export { generate };

const handlers: Readonly<Record<string, Handler>> = {
  getHealth,
  getPredictionResult,
  cancelPrediction,
  getBalance,
  getUserDetails,
  register,
  login,
  cliLogin,
  createApiKey,
  generateApiKey: createApiKey,
  getUserKeys,
  deleteApiKey,
};

export const NOT_YET: readonly string[] = [
  // OAuth client credentials (issue 5)
  'listScopes', 'createOAuthClient', 'listOAuthClients', 'deleteOAuthClient', 'issueToken',
  // end-user auth beyond password login (issue 4)
  'logout', 'verifyOtp', 'requestOtp', 'loginOtp', 'forgotPassword', 'resetPassword', 'getGoogleUrl', 'googleCallback', 'googleMobileLogin',
  // support and administration
  'supportLogin', 'supportResetPassword', 'adminTopup', 'adminDeductCredits', 'adminUserInfo', 'adminManageSubscription',
  'listModelDiscounts', 'upsertModelDiscounts', 'deleteModelDiscount', 'myModelDiscounts', 'adminStripeCharges', 'adminStripeRefund',
  'adminRefund', 'virtualLogin', 'adminSupportLoginLink', 'adminPasswordResetLink', 'adminDeleteUser',
  // dashboard
  'getLoraData', 'getLoraModelsData', 'updateApiKey', 'exportAccount', 'requestAccountDeletion', 'cancelAccountDeletion', 'getTaskData',
  'calculateDynamicCost', 'getFileUploadUrl', 'createMediaAsset', 'listMediaAssets', 'deleteMediaAsset', 'getHomepageModels',
  'getModelNameForEmbedcode', 'listCreditTransactions', 'getRunHistory', 'searchRunHistory', 'getGallery', 'updateReviewStatus',
  'bulkUpdateReviewStatus', 'bulkDeleteUsageLogs', 'getPredictionResponse',
];

const notImplemented: Handler = async () => {
  throw httpError(501, 'not implemented');
};

export function handlerFor(operationId: string): Handler | undefined {
  if (Object.hasOwn(handlers, operationId)) return handlers[operationId];
  if (NOT_YET.includes(operationId)) return notImplemented;
  return undefined;
}

export const LIVE_OPERATIONS: readonly string[] = Object.keys(handlers);
