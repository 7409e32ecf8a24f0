import { and, count, eq, isNull, lt, notExists, sql } from 'drizzle-orm';
import type { Db } from '../db/database';
import { authorizationCodes, oauthClients, tokens } from '../db/schema';
import { randomSecret } from '../identity/secrets';
import { OAuthError } from './errors';
import { isAcceptableRedirectUri } from './redirect-uris';
import type { Client } from './views';
import type * as v from 'valibot';

export type OAuthClient = typeof oauthClients.$inferSelect;

/** Spec: Limits. */
export const MAX_DYNAMIC_CLIENTS = 20;
export const MAX_REDIRECT_URIS = 5;
export const CLIENT_NAME_MAX_LENGTH = 60;
export const UNNAMED_CLIENT = 'an unnamed client';
const REAP_AFTER_HOURS = 24;

/** A key for pg_advisory_xact_lock: registrations run one at a time, so the cap of 20 holds under races. */
const REGISTRATION_LOCK_KEY = 0x1ed6e6;

/** Spec: OAuth client — the client shape of client_info and device_info. */
export type ClientView = v.InferOutput<typeof Client>;

export function describeClient(client: OAuthClient): ClientView {
  return {
    id: client.id,
    name: client.name,
    dynamic: client.dynamic,
    first_use: client.firstUsedAt === null,
    redirect_uris: client.redirectUris,
  };
}

/** Client ids are `dyn_` + base64url or a first-party name: printable ASCII (RFC 6749 Appendix A.1). */
const CLIENT_ID = /^[\x21-\x7e]{1,100}$/;

export async function findClient(db: Db, id: string): Promise<OAuthClient | undefined> {
  // Anything else names no client, and a NUL would be a database fault rather than an unknown id.
  if (!CLIENT_ID.test(id)) return undefined;
  const [row] = await db.select().from(oauthClients).where(eq(oauthClients.id, id));
  return row;
}

/**
 * Spec: OAuth client `name` — control characters and the listed Unicode format characters
 * removed, then the first 60 characters (code points) kept and trimmed (D13); nothing left gives
 * the default.
 */
export function sanitiseClientName(raw: unknown): string {
  if (typeof raw !== 'string') return UNNAMED_CLIENT;
  const cleaned = raw.replace(/[\p{Cc}\u202A-\u202E\u2066-\u2069\u200E\u200F\u2028\u2029]/gu, '');
  const kept = [...cleaned].slice(0, CLIENT_NAME_MAX_LENGTH).join('').trim();
  return kept || UNNAMED_CLIENT;
}

/** Spec: POST /oauth/register, 400 invalid_redirect_uri. */
export function checkRedirectUris(uris: readonly string[]): void {
  if (uris.length === 0) throw new OAuthError('invalid_redirect_uri', 'at least one redirect URI is required');
  if (uris.length > MAX_REDIRECT_URIS) {
    throw new OAuthError('invalid_redirect_uri', `at most ${MAX_REDIRECT_URIS} redirect URIs may be registered`);
  }
  for (const uri of uris) {
    if (!isAcceptableRedirectUri(uri)) {
      throw new OAuthError(
        'invalid_redirect_uri',
        'redirect URIs must be http://127.0.0.1 or http://[::1] (any port), or https:// without user info; no fragment',
      );
    }
  }
}

/**
 * Spec: Dynamic client — none → registered. The cap of 20 is checked and the client inserted under
 * one transaction-scoped advisory lock, so parallel registrations cannot pass it together.
 */
export function registerClient(db: Db, input: { redirectUris: string[]; name: string }): Promise<OAuthClient> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${REGISTRATION_LOCK_KEY})`);
    const [existing] = await tx.select({ n: count() }).from(oauthClients).where(eq(oauthClients.dynamic, true));
    if ((existing?.n ?? 0) >= MAX_DYNAMIC_CLIENTS) {
      throw new OAuthError('temporarily_unavailable', 'too many clients are registered; try again later', 429);
    }
    const [client] = await tx
      .insert(oauthClients)
      .values({ id: `dyn_${randomSecret(16)}`, name: input.name, dynamic: true, redirectUris: input.redirectUris })
      .returning();
    return client!;
  });
}

/**
 * Spec: Dynamic client — registered, never used → deleted, run first on each registration attempt:
 * clients never used, older than 24 hours, with no code or token rows; their device grants go
 * with them (foreign key cascade).
 */
export async function reapUnusedClients(db: Db): Promise<void> {
  await db
    .delete(oauthClients)
    .where(
      and(
        eq(oauthClients.dynamic, true),
        isNull(oauthClients.firstUsedAt),
        lt(oauthClients.createdAt, sql`now() - make_interval(hours => ${REAP_AFTER_HOURS})`),
        notExists(db.select({ one: sql`1` }).from(tokens).where(eq(tokens.clientId, oauthClients.id))),
        notExists(
          db.select({ one: sql`1` }).from(authorizationCodes).where(eq(authorizationCodes.clientId, oauthClients.id)),
        ),
      ),
    );
}

/** Spec: Authorization code and Device grant — approval marks the client used (first and last use). */
export async function markClientUsed(db: Db, clientId: string): Promise<void> {
  await db
    .update(oauthClients)
    .set({ firstUsedAt: sql`coalesce(${oauthClients.firstUsedAt}, now())`, lastUsedAt: sql`now()` })
    .where(eq(oauthClients.id, clientId));
}
