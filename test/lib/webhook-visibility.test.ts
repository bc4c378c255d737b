// lib/webhook-visibility.ts: a webhook URL redacted keeps which receiver it is (scheme, host,
// port, path, query keys) and nothing a receiver may take as a secret (query values, user name,
// password, fragment); who sees it whole.
import test from 'ava';
import { redactWebhookUrl, webhookUrlView } from '../../lib/webhook-visibility.ts';
import { CODE_SCOPES } from '../../spec/scopes.ts';

test('a redacted URL keeps scheme, host, port, path and every query key, and drops values, user name, password and fragment', (t) => {
  t.is(redactWebhookUrl('https://user:pass@host.example:8443/a/b?token=abc&x=1&x=2&empty=#frag'), 'https://host.example:8443/a/b?token=redacted&x=redacted&x=redacted&empty=redacted');
  t.is(redactWebhookUrl('https://host.example/hook'), 'https://host.example/hook');
  t.is(redactWebhookUrl('https://host.example/hook?'), 'https://host.example/hook');
  t.is(redactWebhookUrl('https://[2001:db8::1]/h?k%20ey=v'), 'https://[2001:db8::1]/h?k+ey=redacted');
  t.is(redactWebhookUrl('not a url?token=abc'), 'redacted');
});

test('whole to a submitter or a manage_keys member with generate:write, to a top_up member with keys:manage; on a personal account only the scope counts', (t) => {
  const url = 'https://h.example/x?t=1';
  const red = 'https://h.example/x?t=redacted';
  const team = { userId: 1, scopes: CODE_SCOPES, owner: { userId: 1, teamId: 7 } };
  t.is(webhookUrlView({ ...team, teamPermissions: ['read_history'] }).prediction(url, 1), url, 'the submitter');
  t.is(webhookUrlView({ ...team, teamPermissions: ['read_history'] }).prediction(url, 2), red);
  t.is(webhookUrlView({ ...team, teamPermissions: ['read_history', 'manage_keys'] }).prediction(url, 2), url);
  t.is(webhookUrlView(team).prediction(url, 2), red, 'a team owner without permissions: none');
  t.is(webhookUrlView({ ...team, teamPermissions: ['manage_keys'] }).alert(url), red);
  t.is(webhookUrlView({ ...team, teamPermissions: ['top_up'] }).alert(url), url);
  const personal = { userId: 1, owner: { userId: 1, teamId: null }, teamPermissions: null };
  t.is(webhookUrlView({ ...personal, scopes: CODE_SCOPES }).prediction(url, 1), url);
  t.is(webhookUrlView({ ...personal, scopes: ['generate:read', 'account:read'] }).prediction(url, 1), red);
  t.is(webhookUrlView({ ...personal, scopes: ['generate:read', 'account:read'] }).alert(url), red);
  t.is(webhookUrlView({ ...personal, scopes: ['keys:manage'] }).alert(url), url);
});
