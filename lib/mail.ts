// Outgoing mail (one-time codes, resets, invites, alerts, staff access notices). SMTP through nodemailer when SMTP_URL is set.
// Without it, on the embedded default (or with MAIL_TO_LOG=on), the mail is written to the log so
// that a local user can read the code: that log line is the only place a code is ever logged.
// With DATABASE_URL and no SMTP_URL the mail is dropped and a warning without its text is logged.
//
// Sending is not awaited by the routes: an answer must not take longer, or differ, when the
// address belongs to an account (no enumeration by timing), and a slow mail server must not
// hold a request. A lost mail is recovered by asking for a new code.
//
// nodemailer (some 100 ms to import) is loaded by the first mail sent over SMTP, not at start-up:
// most processes never send one.
import { onFirstUse } from './first-use.ts';
import type { Logger } from 'pino';
import type { App } from './context.ts';
import type { MailConfig } from '../config.ts';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** the sender's display name in place of MAIL_FROM's (a whitelabel studio's name); the address stays MAIL_FROM's */
  fromName?: string;
}

/** MAIL_FROM with another display name: `Name <address>` keeps the address. */
export function fromWithName(from: string, name: string | undefined): string | { name: string; address: string } {
  if (name === undefined) return from;
  const address = /<([^>]+)>/.exec(from)?.[1] ?? from.trim();
  return { name, address };
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
}

/** The marker of the log line that carries a mail when SMTP_URL is not set. */
export const LOGGED_MAIL_MESSAGE = 'MAIL NOT SENT (SMTP_URL is not set): the message is logged here instead';
/** The warning for a mail dropped (no SMTP_URL, MAIL_TO_LOG off): its text holds a code or a link, so it is left out. */
export const DROPPED_MAIL_MESSAGE = 'MAIL NOT SENT (SMTP_URL is not set): the message is dropped, and its text, which holds a code or a link, is not logged (MAIL_TO_LOG is off)';

/** What an API process says once at start-up when its mail goes nowhere (no SMTP_URL, MAIL_TO_LOG off). */
export function mailStartupWarning(config: MailConfig): string | undefined {
  if (config.smtpUrl || config.toLog) return undefined;
  return 'SMTP_URL is not set: one-time codes, password resets and team invites are not mailed, so no one can verify an address or sign in with a code';
}

export function createMailer(config: MailConfig, log: Logger): Mailer {
  if (!config.smtpUrl && !config.toLog) {
    return {
      async send(mail) {
        log.warn({ mail: { subject: mail.subject } }, DROPPED_MAIL_MESSAGE);
      },
    };
  }
  if (!config.smtpUrl) {
    return {
      async send(mail) {
        log.info({ mail: { from: fromWithName(config.from, mail.fromName), to: mail.to, subject: mail.subject, text: mail.text } }, LOGGED_MAIL_MESSAGE);
      },
    };
  }
  const smtpUrl = config.smtpUrl;
  // one transport per mailer, made with the first mail; a failed load is tried again by the next
  const transportOf = onFirstUse(async () => (await import('nodemailer')).default.createTransport({
    url: smtpUrl,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
    logger: false,
    debug: false,
  }));
  return {
    async send(mail) {
      await (await transportOf()).sendMail({ from: fromWithName(config.from, mail.fromName), to: mail.to, subject: mail.subject, text: mail.text });
    },
  };
}

const mailers = new WeakMap<App, Mailer>();

function mailerFor(app: App): Mailer {
  let mailer = mailers.get(app);
  if (!mailer) {
    mailer = createMailer(app.config.mail, app.log);
    mailers.set(app, mailer);
  }
  return mailer;
}

/**
 * Sends in the background; a failure is logged without the message (it holds a code), at `error`
 * unless `failure` says otherwise (a notice whose loss costs nobody a way in is a `warn`).
 */
export function sendInBackground(app: App, mail: Mail, failure: { level: 'error' | 'warn'; event?: string } = { level: 'error' }): void {
  mailerFor(app).send(mail).catch((err: unknown) => {
    const e = err as { code?: unknown; responseCode?: unknown; message?: unknown };
    app.log[failure.level]({ ...(failure.event ? { event: failure.event } : {}), code: e?.code, responseCode: e?.responseCode, reason: String(e?.message ?? err) }, 'mail could not be sent');
  });
}

/** A one-time code; `brand` is a whitelabel studio's name, which then stands in the mail for the gateway's. */
export function otpMail(to: string, code: string, purpose: 'otp' | 'reset', brand?: string): Mail {
  const name = brand ?? 'mediagate';
  const from = brand === undefined ? {} : { fromName: brand };
  if (purpose === 'reset') {
    return {
      to, ...from,
      subject: `Your ${name} password reset code`,
      text: `Your password reset code is ${code}\n\n`
        + `Enter it with your new password to reset your ${name} password. It expires in 10 minutes and works once.\n`
        + 'Resetting the password signs out every session of the account.\n\n'
        + 'If you did not ask for a reset, ignore this message: your password stays as it is.\n',
    };
  }
  return {
    to, ...from,
    subject: `Your ${name} one-time code`,
    text: `Your one-time code is ${code}\n\n`
      + 'Use it to sign in or to verify this email address. It expires in 10 minutes and works once.\n\n'
      + 'If you did not ask for it, ignore this message.\n',
  };
}

/** A team invite (issue 8): the token is in the body only; it is stored as a digest. */
export function teamInviteMail(to: string, teamName: string, role: string, token: string, publicUrl: string): Mail {
  return {
    to,
    subject: `You are invited to the team "${teamName}" on mediagate`,
    text: `You are invited to join the team "${teamName}" on mediagate as ${role}.\n\n`
      + `To accept it, open this link and sign in, or create an account, with this email address:\n`
      + `  ${publicUrl}/dashboard#/teams?invite=${token}\n\n`
      + `Your invite token is ${token}\n`
      + `(with the API: POST ${publicUrl}/app/team_invites/accept  {"token": "${token}"})\n\n`
      + 'The invite expires in 7 days and works once. If you did not expect it, ignore this message.\n',
  };
}

/** What staff did for an account, as its notice says it (staffAccessNoticeMail). */
export type StaffAccessNoticeKind = 'impersonation' | 'support_login_link' | 'password_reset_link';

const STAFF_ACCESS_NOTICE: Readonly<Record<StaffAccessNoticeKind, { subject: string; did: string }>> = {
  impersonation: { subject: 'a staff member signed in to your account', did: 'signed in to your account' },
  support_login_link: { subject: 'staff made a sign-in link for your account', did: 'made a link that signs in to your account' },
  password_reset_link: { subject: 'staff made a password reset link for your account', did: 'made a link to reset your password' },
};

/**
 * The notice to an account's owner that staff acted for it (handlers/impersonation.ts): what, when
 * (UTC), the reason given and the staff role, never who, and never the token or link.
 */
export function staffAccessNoticeMail(to: string, n: { kind: StaffAccessNoticeKind; at: number; role: string; reason: string }): Mail {
  const { subject, did } = STAFF_ACCESS_NOTICE[n.kind];
  const when = `${new Date(n.at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return {
    to,
    subject: `mediagate: ${subject}`,
    text: `A staff member with the ${n.role} role ${did}.\n\n`
      + `When: ${when}\n`
      + `Reason they gave: ${n.reason}\n\n`
      + 'Staff act for an account only to help its owner, and every time they do it is recorded.\n'
      + 'You can see each time staff acted on or for your account on the Account page of the\n'
      + 'dashboard, under "Staff access to your account".\n\n'
      + 'If you did not ask for help, reset your password now (that signs out every session of the\n'
      + 'account) and tell the operator of this gateway.\n',
  };
}
