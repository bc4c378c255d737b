// Static migration list: knex records names without extensions, so .ts vs .js never drifts,
// and no directory is scanned at run time.
import type { Knex } from 'knex';
import * as m20261121_0001_accounts from './20261121_0001_accounts.ts';
import * as m20261121_0002_predictions from './20261121_0002_predictions.ts';
import * as m20261121_0003_auth from './20261121_0003_auth.ts';
import * as m20261121_0004_webhooks from './20261121_0004_webhooks.ts';
import * as m20261121_0005_oauth from './20261121_0005_oauth.ts';
import * as m20261123_0101_api_key_scopes from './20261123_0101_api_key_scopes.ts';
import * as m20261123_0201_signup_credit_on_verify from './20261123_0201_signup_credit_on_verify.ts';
import * as m20261123_0202_otp_codes_keep_previous from './20261123_0202_otp_codes_keep_previous.ts';
import * as m20261123_0301_predictions_pending_age from './20261123_0301_predictions_pending_age.ts';
import * as m20261123_0701_teams from './20261123_0701_teams.ts';
import * as m20261123_1001_prediction_upstream_job from './20261123_1001_prediction_upstream_job.ts';
import * as m20261123_1101_idempotency_keys from './20261123_1101_idempotency_keys.ts';
import * as m20261123_1201_retention from './20261123_1201_retention.ts';
import * as m20261123_1301_generation_limits from './20261123_1301_generation_limits.ts';
import * as m20261123_1401_prediction_upstream_progress from './20261123_1401_prediction_upstream_progress.ts';
import * as m20261123_1501_prediction_provider from './20261123_1501_prediction_provider.ts';
import * as m20261123_1601_ledger_and_audit from './20261123_1601_ledger_and_audit.ts';
import * as m20261123_1701_run_history from './20261123_1701_run_history.ts';
import * as m20261123_1801_media_library from './20261123_1801_media_library.ts';
import * as m20261123_1901_embed_codes from './20261123_1901_embed_codes.ts';
import * as m20261123_2001_keys_loras from './20261123_2001_keys_loras.ts';
import * as m20261123_2101_account_deletion from './20261123_2101_account_deletion.ts';
import * as m20261124_2201_model_discounts from './20261124_2201_model_discounts.ts';
import * as m20261124_2301_subscriptions from './20261124_2301_subscriptions.ts';
import * as m20261124_2401_stripe_payments from './20261124_2401_stripe_payments.ts';
import * as m20261124_2501_impersonation from './20261124_2501_impersonation.ts';
import * as m20261124_2601_studios from './20261124_2601_studios.ts';
import * as m20261124_2801_history_counts from './20261124_2801_history_counts.ts';
import * as m20261124_3001_oauth_state_studio from './20261124_3001_oauth_state_studio.ts';
import * as m20261124_3101_prediction_billing from './20261124_3101_prediction_billing.ts';
import * as m20261124_3101_wallet_discount_marker from './20261124_3101_wallet_discount_marker.ts';
import * as m20261124_3101_wallet_grant_marker from './20261124_3101_wallet_grant_marker.ts';
import * as m20261125_0101_credential_cache_leases from './20261125_0101_credential_cache_leases.ts';
import * as m20261125_0401_stripe_refund_reversed from './20261125_0401_stripe_refund_reversed.ts';
import * as m20261125_0402_embed_code_origins from './20261125_0402_embed_code_origins.ts';
import * as m20261126_0101_predictions_unfinished from './20261126_0101_predictions_unfinished.ts';
import * as m20261126_0102_predictions_redundant_indexes from './20261126_0102_predictions_redundant_indexes.ts';
import * as m20261127_0101_predictions_output_expiry from './20261127_0101_predictions_output_expiry.ts';
import * as m20261127_0201_predictions_sweep_index from './20261127_0201_predictions_sweep_index.ts';
import * as m20261128_0101_wallet_submit_seq from './20261128_0101_wallet_submit_seq.ts';
import * as m20261128_0401_predictions_claim_digest from './20261128_0401_predictions_claim_digest.ts';
import * as m20261129_0101_team_webhook_secrets from './20261129_0101_team_webhook_secrets.ts';
import * as m20261129_0201_predictions_scoped_unfinished from './20261129_0201_predictions_scoped_unfinished.ts';
import * as m20261129_4001_owner_key_history_counts from './20261129_4001_owner_key_history_counts.ts';
import * as m20261129_4002_owner_key_model_discounts from './20261129_4002_owner_key_model_discounts.ts';
import * as m20261129_5001_oauth_state_cookie from './20261129_5001_oauth_state_cookie.ts';
import * as m20261129_5002_api_key_rotation from './20261129_5002_api_key_rotation.ts';
import * as m20261129_5003_stripe_team_purchases from './20261129_5003_stripe_team_purchases.ts';
import * as m20261129_6001_prediction_costs from './20261129_6001_prediction_costs.ts';
import * as m20261129_6002_prediction_metadata from './20261129_6002_prediction_metadata.ts';
import * as m20261129_7001_prediction_usage from './20261129_7001_prediction_usage.ts';
import * as m20261129_7101_usage_ledger_indexes from './20261129_7101_usage_ledger_indexes.ts';
import * as m20261129_7500_prediction_logs from './20261129_7500_prediction_logs.ts';
import * as m20261129_7901_session_handoffs from './20261129_7901_session_handoffs.ts';
import * as m20261129_7950_alerts from './20261129_7950_alerts.ts';
import * as m20261129_8001_alert_webhooks from './20261129_8001_alert_webhooks.ts';
import * as m20261129_8101_webhook_event_filters from './20261129_8101_webhook_event_filters.ts';
import * as m20261130_0101_idempotency_takeover from './20261130_0101_idempotency_takeover.ts';
import * as m20261130_0201_stripe_subscription_checkouts from './20261130_0201_stripe_subscription_checkouts.ts';
import * as m20261201_0101_studio_domain_claims from './20261201_0101_studio_domain_claims.ts';
import * as m20261201_0201_prediction_price_rules from './20261201_0201_prediction_price_rules.ts';
import * as m20261201_0301_subscription_stripe_source from './20261201_0301_subscription_stripe_source.ts';
import * as m20261201_0401_pseudonymise_staff_text from './20261201_0401_pseudonymise_staff_text.ts';
import * as m20261201_0501_stripe_cancellations from './20261201_0501_stripe_cancellations.ts';
import * as m20261201_0601_api_key_previous_holder from './20261201_0601_api_key_previous_holder.ts';
import * as m20261201_0701_cancelled_inline_price from './20261201_0701_cancelled_inline_price.ts';
import * as m20261201_0801_sandbox_webhook_secrets from './20261201_0801_sandbox_webhook_secrets.ts';
import * as m20261201_0901_embed_code_binary from './20261201_0901_embed_code_binary.ts';
import * as m20261201_1001_upstream_cancellations from './20261201_1001_upstream_cancellations.ts';

interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

const migrations: ReadonlyArray<[string, Migration]> = [
  ['20261121_0001_accounts', m20261121_0001_accounts],
  ['20261121_0002_predictions', m20261121_0002_predictions],
  ['20261121_0003_auth', m20261121_0003_auth],
  ['20261121_0004_webhooks', m20261121_0004_webhooks],
  ['20261121_0005_oauth', m20261121_0005_oauth],
  ['20261123_0101_api_key_scopes', m20261123_0101_api_key_scopes],
  ['20261123_0201_signup_credit_on_verify', m20261123_0201_signup_credit_on_verify],
  ['20261123_0202_otp_codes_keep_previous', m20261123_0202_otp_codes_keep_previous],
  ['20261123_0301_predictions_pending_age', m20261123_0301_predictions_pending_age],
  ['20261123_0701_teams', m20261123_0701_teams],
  ['20261123_1001_prediction_upstream_job', m20261123_1001_prediction_upstream_job],
  ['20261123_1101_idempotency_keys', m20261123_1101_idempotency_keys],
  ['20261123_1201_retention', m20261123_1201_retention],
  ['20261123_1301_generation_limits', m20261123_1301_generation_limits],
  ['20261123_1401_prediction_upstream_progress', m20261123_1401_prediction_upstream_progress],
  ['20261123_1501_prediction_provider', m20261123_1501_prediction_provider],
  ['20261123_1601_ledger_and_audit', m20261123_1601_ledger_and_audit],
  ['20261123_1701_run_history', m20261123_1701_run_history],
  ['20261123_1801_media_library', m20261123_1801_media_library],
  ['20261123_1901_embed_codes', m20261123_1901_embed_codes],
  ['20261123_2001_keys_loras', m20261123_2001_keys_loras],
  ['20261123_2101_account_deletion', m20261123_2101_account_deletion],
  ['20261124_2201_model_discounts', m20261124_2201_model_discounts],
  ['20261124_2301_subscriptions', m20261124_2301_subscriptions],
  ['20261124_2401_stripe_payments', m20261124_2401_stripe_payments],
  ['20261124_2501_impersonation', m20261124_2501_impersonation],
  ['20261124_2601_studios', m20261124_2601_studios],
  ['20261124_2801_history_counts', m20261124_2801_history_counts],
  ['20261124_3001_oauth_state_studio', m20261124_3001_oauth_state_studio],
  ['20261124_3101_prediction_billing', m20261124_3101_prediction_billing],
  ['20261124_3101_wallet_discount_marker', m20261124_3101_wallet_discount_marker],
  ['20261124_3101_wallet_grant_marker', m20261124_3101_wallet_grant_marker],
  ['20261125_0101_credential_cache_leases', m20261125_0101_credential_cache_leases],
  ['20261125_0401_stripe_refund_reversed', m20261125_0401_stripe_refund_reversed],
  ['20261125_0402_embed_code_origins', m20261125_0402_embed_code_origins],
  ['20261126_0101_predictions_unfinished', m20261126_0101_predictions_unfinished],
  ['20261126_0102_predictions_redundant_indexes', m20261126_0102_predictions_redundant_indexes],
  ['20261127_0101_predictions_output_expiry', m20261127_0101_predictions_output_expiry],
  ['20261127_0201_predictions_sweep_index', m20261127_0201_predictions_sweep_index],
  ['20261128_0101_wallet_submit_seq', m20261128_0101_wallet_submit_seq],
  ['20261128_0401_predictions_claim_digest', m20261128_0401_predictions_claim_digest],
  ['20261129_0101_team_webhook_secrets', m20261129_0101_team_webhook_secrets],
  ['20261129_0201_predictions_scoped_unfinished', m20261129_0201_predictions_scoped_unfinished],
  ['20261129_4001_owner_key_history_counts', m20261129_4001_owner_key_history_counts],
  ['20261129_4002_owner_key_model_discounts', m20261129_4002_owner_key_model_discounts],
  ['20261129_5001_oauth_state_cookie', m20261129_5001_oauth_state_cookie],
  ['20261129_5002_api_key_rotation', m20261129_5002_api_key_rotation],
  ['20261129_5003_stripe_team_purchases', m20261129_5003_stripe_team_purchases],
  ['20261129_6001_prediction_costs', m20261129_6001_prediction_costs],
  ['20261129_6002_prediction_metadata', m20261129_6002_prediction_metadata],
  ['20261129_7001_prediction_usage', m20261129_7001_prediction_usage],
  ['20261129_7101_usage_ledger_indexes', m20261129_7101_usage_ledger_indexes],
  ['20261129_7500_prediction_logs', m20261129_7500_prediction_logs],
  ['20261129_7901_session_handoffs', m20261129_7901_session_handoffs],
  ['20261129_7950_alerts', m20261129_7950_alerts],
  ['20261129_8001_alert_webhooks', m20261129_8001_alert_webhooks],
  ['20261129_8101_webhook_event_filters', m20261129_8101_webhook_event_filters],
  ['20261130_0101_idempotency_takeover', m20261130_0101_idempotency_takeover],
  ['20261130_0201_stripe_subscription_checkouts', m20261130_0201_stripe_subscription_checkouts],
  ['20261201_0101_studio_domain_claims', m20261201_0101_studio_domain_claims],
  ['20261201_0201_prediction_price_rules', m20261201_0201_prediction_price_rules],
  ['20261201_0301_subscription_stripe_source', m20261201_0301_subscription_stripe_source],
  ['20261201_0401_pseudonymise_staff_text', m20261201_0401_pseudonymise_staff_text],
  ['20261201_0501_stripe_cancellations', m20261201_0501_stripe_cancellations],
  ['20261201_0601_api_key_previous_holder', m20261201_0601_api_key_previous_holder],
  ['20261201_0701_cancelled_inline_price', m20261201_0701_cancelled_inline_price],
  ['20261201_0801_sandbox_webhook_secrets', m20261201_0801_sandbox_webhook_secrets],
  ['20261201_0901_embed_code_binary', m20261201_0901_embed_code_binary],
  ['20261201_1001_upstream_cancellations', m20261201_1001_upstream_cancellations],
];

export const migrationSource: Knex.MigrationSource<[string, Migration]> = {
  getMigrations: async () => [...migrations],
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
};
