import { eq, sql } from 'drizzle-orm';
import { createHash, timingSafeEqual } from 'node:crypto';
import * as v from 'valibot';
import type { Db } from '../db/database';
import { authorizationCodes } from '../db/schema';
import { randomSecret, sha256Hex } from '../identity/secrets';
import { holdUserForGrant } from '../identity/users';
import { issueTokenPair, type TokenPair } from './grants';
import { markClientUsed, requireClient, storeMetadataDocumentClient, type OAuthClient } from './clients';
import { invalidRequest } from './errors';
import type { ClientMetadataDocuments } from './metadata-documents';
import { isRegisteredRedirectUri } from './redirect-uris';
import { resolvesToThisApi } from './resource';

/** Spec: Limits — an authorization code lives 60 seconds. */
export const AUTHORIZATION_CODE_SECONDS = 60;
export const MIN_CODE_CHALLENGE_LENGTH = 43;

/** The parameters of GET /oauth/authorize, also the body of POST /oauth/authorize/approve (with `approve`). */
export const AuthorizationRequestSchema = v.object({
  client_id: v.string(),
  redirect_uri: v.string(),
  response_type: v.string(),
  code_challenge: v.string(),
  code_challenge_method: v.string(),
  resource: v.string(),
  state: v.optional(v.string()),
});
export type AuthorizationRequest = v.InferOutput<typeof AuthorizationRequestSchema>;

/** RFC 7636 §4.1: a code_verifier or challenge is made of unreserved characters. */
const PKCE_CHARSET = /^[A-Za-z0-9\-._~]+$/;

/**
 * Spec: OAuth authorization server — authorization validation, shared by authorize and approve:
 * client exists (401 invalid_client; for an https client_id, its metadata document fetched and
 * accepted, D18); redirect_uri registered for it (listed in the document); response_type `code`;
 * method `S256` and a challenge of at least 43 characters; resource is this API (400
 * invalid_request). A failure is a JSON error, never a redirect.
 */
export async function validateAuthorizationRequest(
  db: Db,
  documents: ClientMetadataDocuments,
  request: AuthorizationRequest,
  apiOrigin: string,
): Promise<OAuthClient> {
  const client = await requireClient(db, documents, request.client_id);
  if (!isRegisteredRedirectUri(client.redirectUris, request.redirect_uri)) {
    throw invalidRequest('redirect_uri is not registered for this client');
  }
  if (request.response_type !== 'code') throw invalidRequest('response_type must be code');
  if (request.code_challenge_method !== 'S256') throw invalidRequest('code_challenge_method must be S256');
  if (
    request.code_challenge.length < MIN_CODE_CHALLENGE_LENGTH ||
    request.code_challenge.length > 128 ||
    !PKCE_CHARSET.test(request.code_challenge)
  ) {
    throw invalidRequest('code_challenge must be 43 to 128 characters of [A-Za-z0-9-._~]');
  }
  if (!resolvesToThisApi(request.resource, apiOrigin)) throw invalidRequest('resource must be this API');
  return client;
}

/**
 * Spec: Authorization code, none → live (60 s), bound to client, redirect URI and PKCE challenge;
 * the client is marked used (a metadata-document client's row written first, D18). Returns the
 * code, which exists nowhere else (only its digest).
 */
export async function issueAuthorizationCode(
  db: Db,
  input: { client: OAuthClient; userId: number; redirectUri: string; codeChallenge: string },
): Promise<string> {
  const code = randomSecret(32);
  await db.transaction(async (tx) => {
    await storeMetadataDocumentClient(tx, input.client);
    await tx.insert(authorizationCodes).values({
      hash: sha256Hex(code),
      clientId: input.client.id,
      userId: input.userId,
      redirectUri: input.redirectUri,
      codeChallenge: input.codeChallenge,
      expiresAt: sql`now() + make_interval(secs => ${AUTHORIZATION_CODE_SECONDS})`,
    });
    await markClientUsed(tx, input.client.id);
    // Codes nobody redeemed are swept here, so the table holds little more than live codes.
    await tx.delete(authorizationCodes).where(sql`${authorizationCodes.expiresAt} < now() - interval '1 hour'`);
  });
  return code;
}

/** RFC 7636 §4.6: BASE64URL(SHA256(verifier)) equals the stored challenge, compared in constant time. */
function pkceMatches(verifier: string, challenge: string): boolean {
  if (!PKCE_CHARSET.test(verifier) || verifier.length < 43 || verifier.length > 128) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const stored = Buffer.from(challenge);
  return computed.length === stored.length && timingSafeEqual(computed, stored);
}

/**
 * Spec: Authorization code, live → consumed, or killed on any failure. The row is deleted first,
 * in one statement, so of parallel redemptions one at most gets it, and a failed check leaves
 * nothing to retry. `undefined` for every failure alike (the identical invalid_grant).
 * @see RFC 6749 §4.1.3, RFC 7636 §4.6
 */
export async function redeemAuthorizationCode(
  db: Db,
  input: { code: string; clientId: string; redirectUri: string; codeVerifier: string },
): Promise<{ userId: number; clientId: string } | undefined> {
  const [row] = await db
    .delete(authorizationCodes)
    .where(eq(authorizationCodes.hash, sha256Hex(input.code)))
    .returning({
      userId: authorizationCodes.userId,
      clientId: authorizationCodes.clientId,
      redirectUri: authorizationCodes.redirectUri,
      codeChallenge: authorizationCodes.codeChallenge,
      live: sql<boolean>`${authorizationCodes.expiresAt} > now()`,
    });
  if (!row?.live) return undefined;
  if (row.clientId !== input.clientId || row.redirectUri !== input.redirectUri) return undefined;
  if (!pkceMatches(input.codeVerifier, row.codeChallenge)) return undefined;
  return { userId: row.userId, clientId: row.clientId };
}

/**
 * POST /oauth/token, grant_type authorization_code: the code redeemed and its tokens issued in one
 * transaction, so a password change cancelling the user's codes (spec rule 6) either finds the
 * code gone with its tokens already written, or waits for both. A failed redemption still commits,
 * so the code dies. `undefined` is the identical invalid_grant.
 * @see RFC 6749 §4.1.3
 */
export function exchangeAuthorizationCode(
  db: Db,
  input: { code: string; clientId: string; redirectUri: string; codeVerifier: string },
  audience: string,
): Promise<TokenPair | undefined> {
  return db.transaction(async (tx) => {
    await holdUserForGrant(tx, sql`select ${authorizationCodes.userId} from ${authorizationCodes} where ${authorizationCodes.hash} = ${sha256Hex(input.code)}`);
    const grant = await redeemAuthorizationCode(tx, input);
    return grant ? issueTokenPair(tx, { ...grant, audience }) : undefined;
  });
}
