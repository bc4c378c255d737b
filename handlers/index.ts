// The static operationId -> handler map. Model endpoints (x-model) all use `generate`;
// operations with `x-handled-by: oauth-provider` (issueToken) are served by plugins/oauth.ts.
// Operations listed in NOT_YET answer 501 until the issue that implements them lands
// (README "What is live"); an operationId in neither list stops start-up.
import type { Handler, HandledOperationId } from './types.ts';
import { NotImplementedError } from '../lib/errors.ts';
import { generate } from './generate.ts';
import { cancelPrediction, getPredictionResult, streamPrediction } from './predictions.ts';
import { cancelAccountDeletion, getBalance, getUserDetails, requestAccountDeletion } from './account.ts';
import { exportAccount } from './account-export.ts';
import { listStaffAccess } from './staff-access.ts';
import { cliLogin, login, logout, register } from './auth.ts';
import { getSession, getSiteInfo } from './site.ts';
import { createBillingPortalSession, createCheckoutSession, listInvoices, listPurchases } from './checkout.ts';
import { forgotPassword, loginOtp, requestOtp, resetPassword, verifyOtp } from './otp.ts';
import { getGoogleUrl, googleCallback, googleHandoff, googleMobileLogin } from './google.ts';
import {
  createApiKey, createTeamApiKey, deleteApiKey, getUserKeys, listTeamApiKeys, revokeTeamApiKey, rotateApiKey, rotateTeamApiKey, updateApiKey, updateTeamApiKey,
} from './keys.ts';
import { calculateDynamicCost, getHomepageModels, getTaskData } from './catalog.ts';
import { createLora, getLoraData, getLoraModelsData, listOwnLoras } from './loras.ts';
import { getHealth } from './health.ts';
import { listModels } from './models.ts';
import { chatWaitMs, createChatCompletion, createImage, getOpenAIModel, IMAGES_READ_MS, listOpenAIModels } from './openai.ts';
import { PREFER_WAIT_MAX_S } from './admission.ts';
import type { Config } from '../config.ts';
import { receiveUpstreamWebhook } from './upstream-webhooks.ts';
import { createEmbedCode, getEmbedCode, getModelNameForEmbedcode, listEmbedCodes, revokeEmbedCode, updateEmbedCode } from './embeds.ts';
import { getPredictionResponse, getWebhookSecret, listWebhookDeliveries, redeliverDeadWebhooks, redeliverWebhook, rotateWebhookSecret, sendWebhookTest } from './webhooks.ts';
import {
  createOAuthClient, deleteOAuthClient, getAuthorizationServerMetadata, getProtectedResourceMetadata, listOAuthClients, listScopes,
} from './oauth.ts';
import {
  acceptTeamInvite, changeTeamMemberRole, createTeam, createTeamInvite, deleteTeam, getTeam, leaveTeam, listTeamInvites, listTeamMembers, listTeams,
  removeTeamMember, renameTeam, revokeTeamInvite,
} from './teams.ts';
import { bulkDeleteUsageLogs, bulkUpdateReviewStatus, getGallery, getRunHistory, searchRunHistory, updateReviewStatus } from './run-history.ts';
import { listCreditTransactions } from './ledger.ts';
import { createStudio, disableStudio, getStudio, getStudioUsage, listStudios, updateStudio, verifyStudioDomains } from './studios.ts';
import { createMediaAsset, deleteMediaAsset, getFileUploadUrl, listMediaAssets } from './media.ts';
import { adminAuditLog, adminDeductCredits, adminRefund, adminTopup, adminUserInfo } from './admin.ts';
import { adminModelMargins } from './margins.ts';
import { adminUsage, getUsage } from './usage.ts';
import { getAlertSettings, listAlertsRoute, sendAlertTest, updateAlertSettingsRoute } from './alerts.ts';
import { adminReloadCatalog } from './catalog-reload.ts';
import { deleteModelDiscount, listModelDiscounts, myModelDiscounts, upsertModelDiscounts } from './discounts.ts';
import { adminManageSubscription, getMySubscription } from './subscriptions.ts';
import { adminPasswordResetLink, adminSupportLoginLink, supportLogin, supportResetPassword, virtualLogin } from './impersonation.ts';
import { adminDeleteUser } from './admin-users.ts';
import { adminFailures, adminListUsers, adminStats, adminUserRuns } from './admin-console.ts';
import { adminStripeCharges, adminStripeRefund, receiveStripeWebhook } from './stripe.ts';

export { generate };

/** Typed by operationId: an entry must be that operation's Handler<Op>. */
export type HandlerMap = { readonly [Op in HandledOperationId]?: Handler<Op> };

const handlers: HandlerMap = {
  getHealth,
  listModels,
  createChatCompletion,
  createImage,
  listOpenAIModels,
  getOpenAIModel,
  getWebhookSecret,
  rotateWebhookSecret,
  getPredictionResponse,
  redeliverWebhook,
  sendWebhookTest,
  listWebhookDeliveries,
  redeliverDeadWebhooks,
  getPredictionResult,
  streamPrediction,
  cancelPrediction,
  receiveUpstreamWebhook,
  getBalance,
  getUserDetails,
  exportAccount,
  listStaffAccess,
  requestAccountDeletion,
  cancelAccountDeletion,
  register,
  login,
  logout,
  getSession,
  getSiteInfo,
  cliLogin,
  requestOtp,
  loginOtp,
  verifyOtp,
  forgotPassword,
  resetPassword,
  getGoogleUrl,
  googleCallback,
  googleHandoff,
  googleMobileLogin,
  createApiKey,
  generateApiKey: createApiKey,
  getUserKeys,
  deleteApiKey,
  listScopes,
  createOAuthClient,
  listOAuthClients,
  deleteOAuthClient,
  getAuthorizationServerMetadata,
  getProtectedResourceMetadata,
  createTeam,
  listTeams,
  getTeam,
  renameTeam,
  deleteTeam,
  listTeamMembers,
  changeTeamMemberRole,
  removeTeamMember,
  leaveTeam,
  createTeamInvite,
  listTeamInvites,
  revokeTeamInvite,
  acceptTeamInvite,
  createTeamApiKey,
  listTeamApiKeys,
  revokeTeamApiKey,
  updateTeamApiKey,
  rotateApiKey,
  rotateTeamApiKey,
  getRunHistory,
  searchRunHistory,
  getGallery,
  updateReviewStatus,
  bulkUpdateReviewStatus,
  bulkDeleteUsageLogs,
  listCreditTransactions,
  updateApiKey,
  calculateDynamicCost,
  getHomepageModels,
  getTaskData,
  getLoraData,
  getLoraModelsData,
  createLora,
  listOwnLoras,
  getFileUploadUrl,
  createMediaAsset,
  listMediaAssets,
  deleteMediaAsset,
  adminTopup,
  adminDeductCredits,
  adminRefund,
  adminUserInfo,
  adminAuditLog,
  adminModelMargins,
  adminUsage,
  getUsage,
  getAlertSettings,
  updateAlertSettings: updateAlertSettingsRoute,
  sendAlertTest,
  listAlerts: listAlertsRoute,
  adminReloadCatalog,
  listModelDiscounts,
  upsertModelDiscounts,
  deleteModelDiscount,
  myModelDiscounts,
  adminManageSubscription,
  getMySubscription,
  virtualLogin,
  adminSupportLoginLink,
  adminPasswordResetLink,
  supportLogin,
  supportResetPassword,
  adminDeleteUser,
  adminListUsers,
  adminUserRuns,
  adminStats,
  adminFailures,
  adminStripeCharges,
  adminStripeRefund,
  receiveStripeWebhook,
  createCheckoutSession,
  listPurchases,
  listInvoices,
  createBillingPortalSession,
  createEmbedCode,
  listEmbedCodes,
  getEmbedCode,
  updateEmbedCode,
  revokeEmbedCode,
  createStudio,
  listStudios,
  getStudio,
  updateStudio,
  verifyStudioDomains,
  disableStudio,
  getStudioUsage,
  getModelNameForEmbedcode,
};

/**
 * The operations whose handler waits by design, and how long at most (ms): a model submit for its
 * `Prefer: wait`, an OpenAI-style call for its provider or its prediction. The server gives such a
 * route this much time beyond every route's own (plugins/spec-routes.ts), so that the handler's
 * own bound answers first: a 504 naming the prediction, or the provider's timeout with nothing
 * charged, never the server's "may still complete" while the work goes on unseen.
 */
export function longestWaitMs(config: Config, operationId: string, isModel: boolean): number {
  if (isModel) return PREFER_WAIT_MAX_S * 1000;
  if (operationId === 'createChatCompletion') return chatWaitMs(config);
  if (operationId === 'createImage') return config.imagesWaitMs + IMAGES_READ_MS;
  return 0;
}

/** The longest any route waits by design: the most longestWaitMs gives any operation under `config`. */
export function longestRouteWaitMs(config: Config): number {
  return Math.max(longestWaitMs(config, '', true), longestWaitMs(config, 'createChatCompletion', false), longestWaitMs(config, 'createImage', false));
}

export const NOT_YET: readonly string[] = [
  // support and administration
];

const notImplemented = async (): Promise<never> => {
  throw new NotImplementedError();
};

type RegisteredHandler = NonNullable<HandlerMap[HandledOperationId]>;

export function handlerFor(operationId: string): RegisteredHandler | undefined {
  if (Object.hasOwn(handlers, operationId)) return handlers[operationId as HandledOperationId];
  if (NOT_YET.includes(operationId)) return notImplemented;
  return undefined;
}

export const LIVE_OPERATIONS: readonly string[] = Object.keys(handlers);
