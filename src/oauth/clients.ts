import { and, count, eq, isNotNull, isNull, lt, notExists, sql } from 'drizzle-orm';
import type { Db } from '../db/database';
import { CLIENT_REGISTRATION_LOCK } from '../db/locks';
import { authorizationCodes, deviceGrants, oauthClients, tokens } from '../db/schema';
import { randomSecret } from '../identity/secrets';
import { OAuthError, unknownClient } from './errors';
import { isMetadataDocumentUrl, type ClientMetadataDocuments } from './metadata-documents';
import { isAcceptableRedirectUri } from './redirect-uris';
import type { Client } from './views';
import type * as v from 'valibot';

export { CLIENT_NAME_MAX_LENGTH, sanitiseClientName, UNNAMED_CLIENT } from './client-names';

export type OAuthClient = typeof oauthClients.$inferSelect;

/** Spec: Limits. */
export const MAX_DYNAMIC_CLIENTS = 20;
export const MAX_REDIRECT_URIS = 5;
const REAP_AFTER_HOURS = 24;

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

/** Does this client come from a Client ID Metadata Document (D18)? */
export const hasMetadataDocument = (client: OAuthClient): boolean => client.metadataUpdatedAt !== null;

/**
 * The client a client_id names, everywhere one is accepted. An `https` URL names the client its
 * metadata document describes (D18): fetched or cached, every refusal thrown as 401
 * invalid_client; its name and redirect URIs come from the document, its use (first_use) from its
 * row, which exists once a grant referenced it. Other ids are looked up in the table.
 */
export async function findClient(db: Db, documents: ClientMetadataDocuments, id: string): Promise<OAuthClient | undefined> {
  if (isMetadataDocumentUrl(id)) return findMetadataDocumentClient(db, documents, id);
  // Anything else names no client, and a NUL would be a database fault rather than an unknown id.
  if (!CLIENT_ID.test(id)) return undefined;
  const [row] = await db.select().from(oauthClients).where(eq(oauthClients.id, id));
  return row;
}

/** findClient, for callers that want the spec's 401 invalid_client for an unknown client. */
export async function requireClient(db: Db, documents: ClientMetadataDocuments, id: string): Promise<OAuthClient> {
  const client = await findClient(db, documents, id);
  if (!client) throw unknownClient();
  return client;
}

async function findMetadataDocumentClient(db: Db, documents: ClientMetadataDocuments, id: string): Promise<OAuthClient> {
  const { metadata, fresh } = await documents.resolve(id);
  // A document fetched anew also refreshes the row, if there is one: connections show its name.
  const [row] = fresh
    ? await db
        .update(oauthClients)
        .set({ name: metadata.name, redirectUris: metadata.redirectUris, metadataUpdatedAt: sql`now()` })
        .where(eq(oauthClients.id, id))
        .returning()
    : await db.select().from(oauthClients).where(eq(oauthClients.id, id));
  return {
    id,
    name: metadata.name,
    dynamic: true,
    redirectUris: metadata.redirectUris,
    createdAt: row?.createdAt ?? new Date(),
    firstUsedAt: row?.firstUsedAt ?? null,
    lastUsedAt: row?.lastUsedAt ?? null,
    metadataUpdatedAt: row?.metadataUpdatedAt ?? new Date(),
  };
}

/**
 * D18: the row of a metadata-document client, written (or brought up to date) when something is
 * about to reference it: an authorization code or a device grant. Dynamic, never counted against
 * the cap of dynamic registrations; nothing for any other client.
 */
export async function storeMetadataDocumentClient(db: Db, client: OAuthClient): Promise<void> {
  if (!hasMetadataDocument(client)) return;
  const document = { name: client.name, redirectUris: client.redirectUris, metadataUpdatedAt: sql`now()` };
  await db
    .insert(oauthClients)
    .values({ id: client.id, dynamic: true, ...document })
    .onConflictDoUpdate({ target: oauthClients.id, set: document });
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
    await tx.execute(sql`select pg_advisory_xact_lock(${CLIENT_REGISTRATION_LOCK})`);
    // D18: clients with a metadata document count against no cap.
    const [existing] = await tx
      .select({ n: count() })
      .from(oauthClients)
      .where(and(eq(oauthClients.dynamic, true), isNull(oauthClients.metadataUpdatedAt)));
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
 * with them (foreign key cascade). Clients with a metadata document are not registered and are
 * not reaped here (reapUnusedMetadataDocumentClients).
 */
export async function reapUnusedClients(db: Db): Promise<void> {
  await db
    .delete(oauthClients)
    .where(
      and(
        eq(oauthClients.dynamic, true),
        isNull(oauthClients.metadataUpdatedAt),
        isNull(oauthClients.firstUsedAt),
        lt(oauthClients.createdAt, sql`now() - make_interval(hours => ${REAP_AFTER_HOURS})`),
        notExists(db.select({ one: sql`1` }).from(tokens).where(eq(tokens.clientId, oauthClients.id))),
        notExists(
          db.select({ one: sql`1` }).from(authorizationCodes).where(eq(authorizationCodes.clientId, oauthClients.id)),
        ),
      ),
    );
}

/**
 * README (D18): the row of a metadata-document client that was never used goes once nothing
 * references it (no code, token or device grant) and its document was last stored over 24 hours
 * ago: rows that unauthenticated device authorizations leave behind do not pile up. Run before
 * each device authorization of such a client. The document itself stays wherever it is published.
 */
export async function reapUnusedMetadataDocumentClients(db: Db): Promise<void> {
  await db
    .delete(oauthClients)
    .where(
      and(
        isNotNull(oauthClients.metadataUpdatedAt),
        isNull(oauthClients.firstUsedAt),
        lt(oauthClients.metadataUpdatedAt, sql`now() - make_interval(hours => ${REAP_AFTER_HOURS})`),
        notExists(db.select({ one: sql`1` }).from(tokens).where(eq(tokens.clientId, oauthClients.id))),
        notExists(
          db.select({ one: sql`1` }).from(authorizationCodes).where(eq(authorizationCodes.clientId, oauthClients.id)),
        ),
        notExists(db.select({ one: sql`1` }).from(deviceGrants).where(eq(deviceGrants.clientId, oauthClients.id))),
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
