import { randomBytes } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import { accounts, grants, passkeys, sessions, settings, tokens, transactions, users } from '../src/db/schema';
import { mintToken } from '../src/identity/tokens';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { describeEachDatabase, type Harness } from './support/harness';
import { CHALLENGE, expectAuthenticationRequired, sha256Hex } from './support/http';

// Spec: Authentication — the tier table (open, half-session, full) and the session-only list;
// Endpoints "Tiers"; Errors rules 4 and 5; D13 (a half-session on a full route, an invalid or expired
// bearer on any protected route — session-only ones included — is the same 401; 403 is only for a
// valid bearer token on a session-only route).

const PASSWORD = 'tiers owner password 0001';
const NEW_PASSWORD = 'tiers owner password 0002';


type Tier = 'half' | 'full' | 'session-only';

/** What a request names: the owner's real things (refused requests) or harmless ones (accepted requests). */
interface Target {
  transactionId: number;
  passkeyId: number;
  tokenId: string;
  passwordChange: unknown;
  newAccount: () => unknown;
  settingsPatch: unknown;
  newTransaction: unknown;
}

interface Route {
  tier: Tier;
  method: string;
  path: (t: Target) => string;
  body?: (t: Target) => unknown;
  /** The status an authorized caller gets for the harmless target (full session; bearer on full routes). */
  authorized: number;
}

/** Every protected route that exists now (spec: Authentication, tier table and session-only list). */
const PROTECTED: Route[] = [
  { tier: 'full', method: 'GET', path: () => '/accounts', authorized: 200 },
  { tier: 'full', method: 'POST', path: () => '/accounts', body: (t) => t.newAccount(), authorized: 201 },
  { tier: 'full', method: 'GET', path: () => '/settings', authorized: 200 },
  { tier: 'full', method: 'PUT', path: () => '/settings', body: (t) => t.settingsPatch, authorized: 200 },
  { tier: 'full', method: 'GET', path: () => '/transactions', authorized: 200 },
  { tier: 'full', method: 'POST', path: () => '/transactions', body: (t) => t.newTransaction, authorized: 400 },
  { tier: 'full', method: 'DELETE', path: (t) => `/transactions/${t.transactionId}`, authorized: 404 },
  { tier: 'full', method: 'GET', path: () => '/auth/me', authorized: 200 },
  { tier: 'full', method: 'GET', path: () => '/auth/passkeys', authorized: 200 },
  { tier: 'full', method: 'GET', path: () => '/auth/tokens', authorized: 200 },
  { tier: 'session-only', method: 'POST', path: () => '/auth/password', body: (t) => t.passwordChange, authorized: 400 },
  { tier: 'session-only', method: 'DELETE', path: (t) => `/auth/passkeys/${t.passkeyId}`, authorized: 404 },
  { tier: 'session-only', method: 'DELETE', path: (t) => `/auth/tokens/${t.tokenId}`, authorized: 404 },
  // Half tier: the full session's answers (register/begin 200, garbage finish bodies 400).
  { tier: 'half', method: 'POST', path: () => '/auth/webauthn/register/begin', authorized: 200 },
  { tier: 'half', method: 'POST', path: () => '/auth/webauthn/register/finish', body: () => ({}), authorized: 400 },
  { tier: 'half', method: 'POST', path: () => '/auth/webauthn/auth/begin', authorized: 200 },
  { tier: 'half', method: 'POST', path: () => '/auth/webauthn/auth/finish', body: () => ({}), authorized: 400 },
];

const label = (r: Route, t: Target) => `${r.method} ${r.path(t)} (${r.tier})`;

/** Harmless targets: an authorized request changes nothing that matters (unknown ids, invalid bodies). */
let accountSerial = 0;
const HARMLESS: Target = {
  transactionId: 2_147_483_000,
  passkeyId: 2_147_483_000,
  tokenId: '0'.repeat(64),
  passwordChange: {},
  newAccount: () => ({ name: `Tier account ${++accountSerial}`, kind: 'asset' }),
  settingsPatch: { book_style: 'personal' },
  newTransaction: {},
};

type Credential =
  | { kind: 'none' }
  | { kind: 'authorization'; header: string }
  | { kind: 'browser'; browser: Browser };

function send(h: Harness, credential: Credential, route: Route, target: Target): Promise<Response> {
  const path = route.path(target);
  const body = route.body?.(target);
  if (credential.kind === 'browser') return credential.browser.request(path, { method: route.method, json: body });
  const headers: Record<string, string> = {};
  if (credential.kind === 'authorization') headers.authorization = credential.header;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return h.request(path, { method: route.method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

describeEachDatabase('tiers (spec: Authentication tier table and session-only routes; errors 4, 5; D13)', (h) => {
  const ownerEmail = 'owner@tiers.example';
  let ownerId: number;
  /** A valid bearer token of the owner (minted, ledger-cli). */
  let bearer: string;
  /** A second live token of the owner: the target of DELETE /auth/tokens/{id}. */
  let victimToken: string;
  /** The owner's full session (password + passkey) and half-session (password only). */
  let full: Browser;
  let half: Browser;
  /** The owner's real things: every refused request names one of them. */
  let real: Target;
  /** Invalid bearer credentials: label → Authorization header. */
  const invalidBearers = new Map<string, string>();

  beforeAll(async () => {
    ({ userId: ownerId, token: bearer } = await h.userWithToken(ownerEmail, PASSWORD));
    const audience = h.config.apiOrigin;
    victimToken = await mintToken(h.db, { userId: ownerId, label: 'victim', days: 30, audience });

    // A full session that enrolled the first passkey, then a second one (so a passkey delete would succeed).
    full = new Browser(h);
    await full.signIn(ownerEmail, PASSWORD, new SoftwareAuthenticator());
    expect((await full.enrol(new SoftwareAuthenticator(), 'second')).status).toBe(200);
    const owned = await h.db.select().from(passkeys).where(eq(passkeys.userId, ownerId)).orderBy(passkeys.id);
    expect(owned).toHaveLength(2);

    half = new Browser(h);
    const login = await half.login(ownerEmail, PASSWORD);
    expect(login.status).toBe(200);
    expect(await login.json()).toEqual({ has_passkeys: true, mfa_complete: false });

    // A transaction to delete.
    const cash = await h.call(bearer, 'POST', '/accounts', { name: 'Tier cash', kind: 'asset' });
    const food = await h.call(bearer, 'POST', '/accounts', { name: 'Tier food', kind: 'expense' });
    const cashId = ((await cash.json()) as { id: number }).id;
    const foodId = ((await food.json()) as { id: number }).id;
    const posted = await h.call(bearer, 'POST', '/transactions', {
      occurred_on: '2026-03-01',
      description: 'groceries',
      entries: [
        { account_id: foodId, amount_cents: 1250 },
        { account_id: cashId, amount_cents: -1250 },
      ],
    });
    expect(posted.status).toBe(201);
    const transactionId = ((await posted.json()) as { id: number }).id;

    real = {
      transactionId,
      passkeyId: owned[1]!.id,
      tokenId: sha256Hex(victimToken),
      passwordChange: { current_password: PASSWORD, new_password: NEW_PASSWORD },
      newAccount: () => ({ name: 'Refused account', kind: 'asset' }),
      settingsPatch: { book_style: 'club' },
      newTransaction: {
        occurred_on: '2026-03-02',
        description: 'refused',
        entries: [
          { account_id: foodId, amount_cents: 1 },
          { account_id: cashId, amount_cents: -1 },
        ],
      },
    };

    const expired = await mintToken(h.db, { userId: ownerId, label: 'expired', days: 1, audience });
    await h.db.update(tokens).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(tokens.hash, sha256Hex(expired)));
    const revoked = await mintToken(h.db, { userId: ownerId, label: 'revoked', days: 1, audience });
    await h.db.update(tokens).set({ revokedAt: sql`now()` }).where(eq(tokens.hash, sha256Hex(revoked)));
    // A refresh token of an OAuth grant is not a bearer credential (only access tokens are).
    const refresh = `lg_${randomBytes(32).toString('base64url')}`;
    const [grant] = await h.db.insert(grants).values({ userId: ownerId, clientId: 'ledger-desktop' }).returning({ id: grants.id });
    await h.db.insert(tokens).values({
      hash: sha256Hex(refresh),
      kind: 'refresh',
      userId: ownerId,
      clientId: 'ledger-desktop',
      grantId: grant!.id,
      audience,
      expiresAt: new Date(Date.now() + 86_400_000),
    });

    invalidBearers.set('unknown lg_ token', `Bearer lg_${randomBytes(32).toString('base64url')}`);
    invalidBearers.set('expired token', `Bearer ${expired}`);
    invalidBearers.set('revoked token', `Bearer ${revoked}`);
    invalidBearers.set('refresh token', `Bearer ${refresh}`);
    invalidBearers.set('the digest of a valid token', `Bearer ${sha256Hex(bearer)}`);
    invalidBearers.set('malformed Bearer value', 'Bearer not a token!');
    invalidBearers.set('Basic scheme', `Basic ${Buffer.from(`${ownerEmail}:${PASSWORD}`).toString('base64')}`);
  });

  /** Everything a refused request could change, read straight from the database. */
  async function snapshot() {
    const [owner] = await h.db.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, ownerId));
    return {
      accounts: (await h.db.select().from(accounts).orderBy(accounts.id)).map((a) => a.name),
      settings: await h.db.select().from(settings),
      transactions: (await h.db.select().from(transactions).orderBy(transactions.id)).map((t) => t.id),
      passkeys: (await h.db.select().from(passkeys).where(eq(passkeys.userId, ownerId)).orderBy(passkeys.id)).map((p) => p.id),
      tokens: (await h.db.select().from(tokens).where(eq(tokens.userId, ownerId)).orderBy(tokens.hash)).map((t) => ({
        hash: t.hash,
        revokedAt: t.revokedAt,
        lastUsedAt: t.lastUsedAt,
      })),
      passwordHash: owner?.passwordHash,
      sessions: (await h.db.select().from(sessions).where(eq(sessions.userId, ownerId)).orderBy(sessions.idHash)).map((s) => ({
        idHash: s.idHash,
        mfaComplete: s.mfaComplete,
        expiresAt: s.expiresAt,
      })),
    };
  }

  /** The owner's full session, half-session and bearer all still work afterwards. */
  async function expectCredentialsIntact(): Promise<void> {
    expect((await full.request('/auth/me')).status, 'full session').toBe(200);
    expect((await half.request('/auth/me')).status, 'half-session is still half').toBe(401);
    expect((await half.post('/auth/webauthn/auth/begin')).status, 'half-session still reaches the half tier').toBe(200);
    expect((await h.call(bearer, 'GET', '/auth/me')).status, 'bearer').toBe(200);
    expect((await h.call(victimToken, 'GET', '/accounts')).status, 'the victim token is still live').toBe(200);
  }

  it('spec tier table: the open routes (GET /health, POST /auth/login, POST /auth/logout) answer without any credential, and ignore an invalid bearer', async () => {
    const { userId } = await h.userWithToken('opener@tiers.example', PASSWORD);
    expect(userId).toBeGreaterThan(0);
    for (const authorization of [undefined, 'Bearer lg_not-a-real-token']) {
      const headers: Record<string, string> = authorization ? { authorization } : {};
      const health = await h.request('/health', { headers });
      expect(health.status).toBe(200);
      expect(await health.text()).toBe('ok');

      const login = await h.request('/auth/login', {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'opener@tiers.example', password: PASSWORD }),
      });
      expect(login.status).toBe(200);
      expect(login.headers.has('www-authenticate')).toBe(false);
      expect(await login.json()).toEqual({ has_passkeys: false, mfa_complete: false });

      const logout = await h.request('/auth/logout', { method: 'POST', headers });
      expect(logout.status).toBe(204);
      expect(logout.headers.has('www-authenticate')).toBe(false);
    }
  });

  it('error rule 4: with no credential every protected route (half, full, session-only) answers 401 {error:"authentication required"} with the exact WWW-Authenticate challenge, and changes nothing', async () => {
    const before = await snapshot();
    for (const route of PROTECTED) {
      await expectAuthenticationRequired(await send(h, { kind: 'none' }, route, real), label(route, real));
    }
    expect(await snapshot()).toEqual(before);
    await expectCredentialsIntact();
  });

  it('D13: an invalid bearer (unknown, expired, revoked, a refresh token, a digest, malformed, another scheme) gets the same 401 on every protected route, session-only ones included (never 403), and changes nothing', async () => {
    const before = await snapshot();
    for (const [kind, header] of invalidBearers) {
      for (const route of PROTECTED) {
        await expectAuthenticationRequired(
          await send(h, { kind: 'authorization', header }, route, real),
          `${kind}: ${label(route, real)}`,
        );
      }
    }
    expect(await snapshot()).toEqual(before);
    await expectCredentialsIntact();
  });

  it('half tier = a cookie session only: a valid bearer token (with no cookie) gets the 401 on the four /auth/webauthn/* routes', async () => {
    const before = await snapshot();
    for (const route of PROTECTED.filter((r) => r.tier === 'half')) {
      await expectAuthenticationRequired(await send(h, { kind: 'authorization', header: `Bearer ${bearer}` }, route, real), label(route, real));
    }
    expect(await snapshot()).toEqual(before);
  });

  it('D13 / Login rule 1: a half-session gets the 401 on every full and session-only route (nothing changes), but is NOT refused on the four half routes', async () => {
    const before = await snapshot();
    for (const route of PROTECTED.filter((r) => r.tier !== 'half')) {
      await expectAuthenticationRequired(await send(h, { kind: 'browser', browser: half }, route, real), label(route, real));
    }
    expect(await snapshot()).toEqual(before);

    // The half routes: the owner already has a passkey, so register/begin meets the registration
    // gate (403, rule 3), garbage finish bodies are 400, auth/begin is 200. None of them is a 401.
    const expected: Record<string, number> = {
      '/auth/webauthn/register/begin': 403,
      '/auth/webauthn/register/finish': 400,
      '/auth/webauthn/auth/begin': 200,
      '/auth/webauthn/auth/finish': 400,
    };
    for (const route of PROTECTED.filter((r) => r.tier === 'half')) {
      const res = await send(h, { kind: 'browser', browser: half }, route, HARMLESS);
      expect(res.status, label(route, HARMLESS)).not.toBe(401);
      expect(res.status, label(route, HARMLESS)).toBe(expected[route.path(HARMLESS)]);
      expect(res.headers.has('www-authenticate'), label(route, HARMLESS)).toBe(false);
    }
    // Still a half-session: nothing above elevated it.
    const [row] = await h.db.select().from(sessions).where(eq(sessions.idHash, sha256Hex(half.session!)));
    expect(row?.mfaComplete).toBe(false);
  });

  it('spec tiers: a full session is accepted everywhere — no 401 or 403 on any half, full or session-only route', async () => {
    for (const route of PROTECTED) {
      const res = await send(h, { kind: 'browser', browser: full }, route, HARMLESS);
      expect(res.status, label(route, HARMLESS)).not.toBe(401);
      expect(res.status, label(route, HARMLESS)).not.toBe(403);
      expect(res.status, label(route, HARMLESS)).toBe(route.authorized);
    }
    expect(await (await full.request('/auth/me')).json()).toMatchObject({ email: ownerEmail, via: 'session' });
  });

  it('spec tiers / error rule 5: a valid bearer is accepted on every full route and refused 403 {error} on exactly the session-only routes', async () => {
    for (const route of PROTECTED.filter((r) => r.tier !== 'half')) {
      const res = await send(h, { kind: 'authorization', header: `Bearer ${bearer}` }, route, HARMLESS);
      if (route.tier === 'session-only') {
        expect(res.status, label(route, HARMLESS)).toBe(403);
        expect(await res.json(), label(route, HARMLESS)).toEqual({ error: expect.any(String) });
      } else {
        expect(res.status, label(route, HARMLESS)).not.toBe(401);
        expect(res.status, label(route, HARMLESS)).not.toBe(403);
        expect(res.status, label(route, HARMLESS)).toBe(route.authorized);
      }
    }
    expect(await (await h.call(bearer, 'GET', '/auth/me')).json()).toMatchObject({ email: ownerEmail, via: 'bearer' });
  });

  it('error rule 5: the 403 of a bearer on a session-only route changes nothing — DELETE /auth/tokens/{id} leaves the token live, POST /auth/password leaves the password, DELETE /auth/passkeys/{id} leaves the passkey, and the refused token\'s last_used_at and the user\'s last seen are not stamped', async () => {
    // Stamps are written at most once a minute: clear them, so that a stamp by the refusal would show.
    await h.db.update(tokens).set({ lastUsedAt: null }).where(eq(tokens.userId, ownerId));
    await h.db.update(users).set({ lastSeenAt: null }).where(eq(users.id, ownerId));
    const lastSeen = async () => (await h.db.select({ at: users.lastSeenAt }).from(users).where(eq(users.id, ownerId)))[0]?.at;
    const before = await snapshot();
    for (const route of PROTECTED.filter((r) => r.tier === 'session-only')) {
      const res = await send(h, { kind: 'authorization', header: `Bearer ${bearer}` }, route, real);
      expect(res.status, label(route, real)).toBe(403);
      expect(await res.json(), label(route, real)).toEqual({ error: expect.any(String) });
    }
    expect(await snapshot()).toEqual(before);
    expect(before.tokens.find((t) => t.hash === sha256Hex(bearer))?.lastUsedAt).toBeNull();
    expect(await lastSeen()).toBeNull();
    // Control: the same bearer accepted on a full route is stamped.
    expect((await h.call(bearer, 'GET', '/auth/me')).status).toBe(200);
    const [used] = await h.db.select({ at: tokens.lastUsedAt }).from(tokens).where(eq(tokens.hash, sha256Hex(bearer)));
    expect(used?.at).not.toBeNull();
    expect(await lastSeen()).not.toBeNull();
    const [victim] = await h.db.select().from(tokens).where(and(eq(tokens.hash, real.tokenId), eq(tokens.userId, ownerId)));
    expect(victim?.revokedAt).toBeNull();
    expect((await h.call(victimToken, 'GET', '/auth/tokens')).status).toBe(200);
    expect(await h.db.select().from(passkeys).where(eq(passkeys.id, real.passkeyId))).toHaveLength(1);
    // The password is the old one: it still signs in, the requested new one does not.
    expect((await new Browser(h).login(ownerEmail, PASSWORD)).status).toBe(200);
    expect((await new Browser(h).login(ownerEmail, NEW_PASSWORD)).status).toBe(401);
    expect((await new Browser(h).login(ownerEmail, PASSWORD)).status).toBe(200);
    await expectCredentialsIntact();
  });
});

/**
 * The rest of the tier table (issues 3/6 and 4/6): the OAuth routes, reports and MCP. Full-tier
 * ones accept a bearer token; the three OAuth session-only routes refuse it with 403; a half-session
 * or no credential is the same 401 everywhere.
 */
describeEachDatabase('tiers of the OAuth, report and MCP routes', (h) => {
  type Route = [method: string, path: string, body?: unknown];
  const full: Route[] = [
    ['GET', '/oauth/client_info?client_id=ledger-cli'],
    ['GET', '/reports/balances'],
    ['GET', '/reports/balance-sheet'],
    ['GET', '/reports/income-statement'],
    ['GET', '/reports/monthly'],
    ['GET', '/reports/accounts/999/register'],
    ['POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'ping' }],
  ];
  const sessionOnly: Route[] = [
    ['POST', '/oauth/authorize/approve', {}],
    ['GET', '/oauth/device_info?user_code=ABCD-EFGH'],
    ['POST', '/oauth/device/approve', { user_code: 'ABCD-EFGH', approve: false }],
  ];

  it('no credential and a half-session get the 401; a bearer is accepted on full routes and 403 on session-only ones', async () => {
    const { token } = await h.userWithToken('tiers-oauth@example.com', PASSWORD);
    const half = new Browser(h);
    expect((await half.login('tiers-oauth@example.com', PASSWORD)).status).toBe(200);
    const send = (route: Route, headers: Record<string, string>, who?: Browser) => {
      const [method, path, body] = route;
      const init = { method, headers: { ...headers, accept: 'application/json, text/event-stream' } };
      return who
        ? who.request(path, { ...init, json: body })
        : h.request(path, {
            ...init,
            headers: { ...init.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
    };
    for (const route of [...full, ...sessionOnly]) {
      for (const res of [await send(route, {}), await send(route, {}, half)]) {
        expect(res.status, `${route[0]} ${route[1]}`).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe(CHALLENGE);
      }
    }
    for (const route of full) {
      expect([401, 403], `${route[0]} ${route[1]}`).not.toContain((await send(route, { authorization: `Bearer ${token}` })).status);
    }
    for (const route of sessionOnly) {
      const res = await send(route, { authorization: `Bearer ${token}` });
      expect(res.status, `${route[0]} ${route[1]}`).toBe(403);
      expect(await res.json()).toEqual({ error: 'invalid_client', error_description: 'approve a client from the web app, not with a token' });
    }
  });
});
