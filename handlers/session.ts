// What every login route answers: a new opaque session (SessionResponse), and the user view.
import type { App } from '../lib/context.ts';
import type { User } from '../db/users.ts';
import type { components } from '../spec/v1.generated.ts';
import { newSecret, sha256Hex, SESSION_PREFIX } from '../lib/secrets.ts';
import { insertSession } from '../db/sessions.ts';

export function userView(u: User): components['schemas']['UserResponse'] {
  return { id: u.id, email: u.email, email_verified: u.emailVerified, role: u.role, created_at: u.createdAt };
}

/** `mgs_` + 256 random bits; only its SHA-256 is stored. */
export async function startSession(app: App, userId: number): Promise<components['schemas']['SessionResponse']> {
  const token = newSecret(SESSION_PREFIX);
  await insertSession(app.db, userId, sha256Hex(token), app.clock(), app.config.sessionTtlSeconds);
  return { access_token: token, token_type: 'bearer', expires_in: app.config.sessionTtlSeconds };
}
