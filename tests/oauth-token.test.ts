import { randomBytes } from 'node:crypto';
import { and, count, eq, inArray, sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import { authorizationCodes, tokens } from '../src/db/schema';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { describeEachDatabase, type Harness } from './support/harness';
import { pkce, sha256Hex } from './support/http';

// Spec: POST /oauth/token, POST /oauth/revoke; Authorization code and Refresh token state tables;
// Tokens and codes; Connection (GET/DELETE /auth/tokens); OAuth error codes; error rules 6–7;
// Limits (code 60 s, access 1 h, refresh 60 days, reuse grace 10 s); D5, D11, D13.

const API = 'http://localhost:38081';
const PASSWORD = 'correct horse battery staple';
const CALLBACK = 'http://127.0.0.1:53123/callback';
const TOKEN_FORMAT = /^lg_[A-Za-z0-9_-]{43}$/;
const CODE_NOT_REDEEMABLE = { error: 'invalid_grant', error_description: 'that code is not redeemable' };
const REFRESH_NOT_REDEEMABLE = { error: 'invalid_grant', error_description: 'that refresh token is not redeemable' };

interface TokenPair {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token: string;
}

interface Grant {
  code: string;
  verifier: string;
  redirectUri: string;
  clientId: string;
}


const tokenRequest = (h: Harness, params: Record<string, string>) => h.postForm('/oauth/token', params);
const revoke = (h: Harness, params: Record<string, string>) => h.postForm('/oauth/revoke', params);

function codeParams(g: Grant, overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const params: Record<string, string | undefined> = {
    grant_type: 'authorization_code',
    code: g.code,
    redirect_uri: g.redirectUri,
    client_id: g.clientId,
    code_verifier: g.verifier,
    ...overrides,
  };
  return Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
}

function refreshParams(refreshToken: string, overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const params: Record<string, string | undefined> = {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: 'ledger-cli',
    ...overrides,
  };
  return Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
}

async function expectOAuthError(res: Response, status: number, body: { error: string; error_description?: string }) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const json = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(json).sort()).toEqual(['error', 'error_description']);
  if (body.error_description === undefined) {
    expect(json.error).toBe(body.error);
    expect(json.error_description).toEqual(expect.any(String));
  } else {
    expect(json).toStrictEqual(body);
  }
}

async function expectPlainText(res: Response, status: number): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const text = await res.text();
  expect(text.length).toBeGreaterThan(0);
  expect(() => JSON.parse(text)).toThrow();
}

async function expectPair(res: Response): Promise<TokenPair> {
  expect(res.status).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const body = (await res.json()) as TokenPair;
  expect(body).toStrictEqual({
    access_token: expect.stringMatching(TOKEN_FORMAT),
    token_type: 'Bearer',
    expires_in: 3600,
    refresh_token: expect.stringMatching(TOKEN_FORMAT),
  });
  expect(body.access_token).not.toBe(body.refresh_token);
  return body;
}

describeEachDatabase('POST /oauth/token and POST /oauth/revoke', (h) => {
  let browser: Browser;
  let userId: number;

  beforeAll(async () => {
    userId = (await h.userWithToken('oauth-token@example.com', PASSWORD)).userId;
    browser = new Browser(h);
    await browser.signIn('oauth-token@example.com', PASSWORD, new SoftwareAuthenticator());
  });

  /** A live authorization code from the full session's approval (spec: only approve mints codes). */
  async function approve(
    options: { clientId?: string; redirectUri?: string; resource?: string; b?: Browser } = {},
  ): Promise<Grant> {
    const clientId = options.clientId ?? 'ledger-cli';
    const redirectUri = options.redirectUri ?? CALLBACK;
    const { verifier, challenge } = pkce();
    const res = await (options.b ?? browser).post('/oauth/authorize/approve', {
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: options.resource ?? API,
      state: 's',
      approve: true,
    });
    expect(res.status).toBe(200);
    const { redirect } = (await res.json()) as { redirect: string };
    return { code: new URL(redirect).searchParams.get('code')!, verifier, redirectUri, clientId };
  }

  async function newPair(b?: Browser): Promise<TokenPair> {
    return expectPair(await tokenRequest(h, codeParams(await approve({ b }))));
  }

  async function rotate(refreshToken: string): Promise<TokenPair> {
    return expectPair(await tokenRequest(h, refreshParams(refreshToken)));
  }

  /** Does the access token work on a ledger route? */
  async function accessWorks(accessToken: string): Promise<boolean> {
    const res = await h.call(accessToken, 'GET', '/accounts');
    expect([200, 401]).toContain(res.status);
    return res.status === 200;
  }

  async function codeRowExists(code: string): Promise<boolean> {
    const [row] = await h.db.select({ n: count() }).from(authorizationCodes).where(eq(authorizationCodes.hash, sha256Hex(code)));
    return row!.n === 1;
  }

  async function tokenCount(): Promise<number> {
    const [row] = await h.db.select({ n: count() }).from(tokens).where(eq(tokens.userId, userId));
    return row!.n;
  }

  async function tokenRow(token: string) {
    const [row] = await h.db
      .select({
        kind: tokens.kind,
        userId: tokens.userId,
        clientId: tokens.clientId,
        parentHash: tokens.parentHash,
        grantId: tokens.grantId,
        audience: tokens.audience,
        retiredAt: tokens.retiredAt,
        revokedAt: tokens.revokedAt,
        lastUsedAt: tokens.lastUsedAt,
        lifetime: sql<number>`extract(epoch from ${tokens.expiresAt} - ${tokens.createdAt})::float8`,
      })
      .from(tokens)
      .where(eq(tokens.hash, sha256Hex(token)));
    return row;
  }

  /** A user of their own with a full session, for tests that look at one user's connections. */
  async function freshPerson(email: string): Promise<Browser> {
    await h.userWithToken(email, PASSWORD);
    const b = new Browser(h);
    await b.signIn(email, PASSWORD, new SoftwareAuthenticator());
    return b;
  }

  // ---- authorization_code ------------------------------------------------------------------

  it('authorization_code: 200 {access_token, token_type Bearer, expires_in 3600, refresh_token} with no-store; lg_ + 43 base64url', async () => {
    const grant = await approve();
    const pair = await expectPair(await tokenRequest(h, codeParams(grant)));
    expect(pair.access_token).toMatch(TOKEN_FORMAT);
    expect(Buffer.from(pair.access_token.slice(3), 'base64url')).toHaveLength(32);
    expect(Buffer.from(pair.refresh_token.slice(3), 'base64url')).toHaveLength(32);
    expect(await codeRowExists(grant.code)).toBe(false);
  });

  it('the pair is stored only as SHA-256 hex digests, audienced to API_ORIGIN, access 1 h and refresh 60 days, chained', async () => {
    const pair = await newPair();
    const access = await tokenRow(pair.access_token);
    const refresh = await tokenRow(pair.refresh_token);
    expect(access).toMatchObject({ kind: 'access', userId, clientId: 'ledger-cli', audience: API, parentHash: sha256Hex(pair.refresh_token) });
    expect(refresh).toMatchObject({ kind: 'refresh', userId, clientId: 'ledger-cli', audience: API, parentHash: null, retiredAt: null });
    expect(Number(access!.lifetime)).toBeCloseTo(3600, 0);
    expect(Number(refresh!.lifetime)).toBeCloseTo(60 * 86400, 0);
    for (const raw of [pair.access_token, pair.refresh_token]) {
      const [plain] = await h.db.select({ n: count() }).from(tokens).where(eq(tokens.hash, raw));
      expect(plain!.n).toBe(0);
    }
  });

  it('the access token works on the ledger routes; the refresh token is not a bearer credential', async () => {
    const pair = await newPair();
    expect(await accessWorks(pair.access_token)).toBe(true);
    const me = await h.call(pair.access_token, 'GET', '/auth/me');
    expect(await me.json()).toMatchObject({ email: 'oauth-token@example.com', via: 'bearer' });
    expect(await accessWorks(pair.refresh_token)).toBe(false);
  });

  it('D11: the audience is API_ORIGIN even when resource was API_ORIGIN/mcp (approve and token)', async () => {
    const grant = await approve({ resource: `${API}/mcp` });
    const pair = await expectPair(await tokenRequest(h, codeParams(grant, { resource: `${API}/mcp` })));
    expect((await tokenRow(pair.access_token))!.audience).toBe(API);
    expect((await tokenRow(pair.refresh_token))!.audience).toBe(API);
    expect(await accessWorks(pair.access_token)).toBe(true);
  });

  it('resource is optional at the token step, and API_ORIGIN itself is accepted', async () => {
    await expectPair(await tokenRequest(h, codeParams(await approve(), { resource: API })));
    await expectPair(await tokenRequest(h, codeParams(await approve(), { resource: `${API}/` })));
  });

  it('a dynamic client redeems its own code on its https redirect URI', async () => {
    const reg = await h.request('/oauth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Token app', redirect_uris: ['https://token.example/cb'] }),
    });
    const { client_id } = (await reg.json()) as { client_id: string };
    const grant = await approve({ clientId: client_id, redirectUri: 'https://token.example/cb' });
    const pair = await expectPair(await tokenRequest(h, codeParams(grant)));
    expect((await tokenRow(pair.refresh_token))!.clientId).toBe(client_id);
  });

  const KILLERS: [string, (g: Grant) => Record<string, string>][] = [
    ['a wrong code_verifier (PKCE mismatch)', (g) => codeParams(g, { code_verifier: pkce().verifier })],
    ['a code_verifier that is too short', (g) => codeParams(g, { code_verifier: g.verifier.slice(0, 42) })],
    ['another client_id', (g) => codeParams(g, { client_id: 'ledger-desktop' })],
    ['an unknown client_id', (g) => codeParams(g, { client_id: 'no-such-client' })],
    ['a redirect_uri differing by one character in the path', (g) => codeParams(g, { redirect_uri: 'http://127.0.0.1:53123/callbacK' })],
    ['a redirect_uri differing only in the loopback port (D13: exact)', (g) => codeParams(g, { redirect_uri: 'http://127.0.0.1:53124/callback' })],
    ['the registered redirect_uri without the approved port (D13: exact)', (g) => codeParams(g, { redirect_uri: 'http://127.0.0.1/callback' })],
    ['a redirect_uri with a trailing slash', (g) => codeParams(g, { redirect_uri: `${CALLBACK}/` })],
  ];

  it.each(KILLERS)(
    'code failure, %s: the identical 400 invalid_grant, no token issued, and the code is killed',
    async (_why, bad) => {
      const grant = await approve();
      const before = await tokenCount();
      await expectOAuthError(await tokenRequest(h, bad(grant)), 400, CODE_NOT_REDEEMABLE);
      expect(await codeRowExists(grant.code)).toBe(false);
      // Killed: the correct redemption that follows fails the same way.
      await expectOAuthError(await tokenRequest(h, codeParams(grant)), 400, CODE_NOT_REDEEMABLE);
      expect(await tokenCount()).toBe(before);
    },
  );

  it('code failure, expired (60 s passed): the identical invalid_grant, and the code is gone', async () => {
    const grant = await approve();
    await h.db.execute(sql`update authorization_codes set expires_at = now() - interval '1 second' where hash = ${sha256Hex(grant.code)}`);
    const before = await tokenCount();
    await expectOAuthError(await tokenRequest(h, codeParams(grant)), 400, CODE_NOT_REDEEMABLE);
    expect(await codeRowExists(grant.code)).toBe(false);
    await expectOAuthError(await tokenRequest(h, codeParams(grant)), 400, CODE_NOT_REDEEMABLE);
    expect(await tokenCount()).toBe(before);
  });

  it('code failure, reused: single-use, the second redemption is the identical invalid_grant', async () => {
    const grant = await approve();
    await expectPair(await tokenRequest(h, codeParams(grant)));
    const before = await tokenCount();
    await expectOAuthError(await tokenRequest(h, codeParams(grant)), 400, CODE_NOT_REDEEMABLE);
    expect(await tokenCount()).toBe(before);
  });

  it('code failure, unknown code: the identical invalid_grant', async () => {
    const grant = await approve();
    const unknown = { ...grant, code: randomBytes(32).toString('base64url') };
    await expectOAuthError(await tokenRequest(h, codeParams(unknown)), 400, CODE_NOT_REDEEMABLE);
    // Someone else's unknown code kills nothing of ours.
    await expectPair(await tokenRequest(h, codeParams(grant)));
  });

  it.each(['code', 'redirect_uri', 'client_id', 'code_verifier'])(
    'D13: a missing %s is 400 invalid_request and consumes nothing (the correct request then succeeds)',
    async (field) => {
      const grant = await approve();
      await expectOAuthError(await tokenRequest(h, codeParams(grant, { [field]: undefined })), 400, { error: 'invalid_request' });
      await expectOAuthError(await tokenRequest(h, codeParams(grant, { [field]: '' })), 400, { error: 'invalid_request' });
      expect(await codeRowExists(grant.code)).toBe(true);
      await expectPair(await tokenRequest(h, codeParams(grant)));
    },
  );

  it.each([
    ['another port', 'http://localhost:38082'],
    ['another host', 'https://evil.example'],
    ['a query', `${API}/mcp?x=1`],
    ['empty', ''],
  ])('D13: a resource that is not this API (%s) is 400 invalid_request and consumes nothing', async (_why, resource) => {
    const grant = await approve();
    await expectOAuthError(await tokenRequest(h, codeParams(grant, { resource })), 400, { error: 'invalid_request' });
    expect(await codeRowExists(grant.code)).toBe(true);
    await expectPair(await tokenRequest(h, codeParams(grant)));
  });

  it('D11 over HTTP: resource with an upper-case host and a trailing slash is this API (code and refresh)', async () => {
    const pair = await expectPair(await tokenRequest(h, codeParams(await approve(), { resource: 'HTTP://LOCALHOST:38081/' })));
    await expectPair(await tokenRequest(h, refreshParams(pair.refresh_token, { resource: 'http://LocalHost:38081/mcp/' })));
  });

  it.each([
    ['a port with a leading zero', 'http://localhost:038081'],
    ['a percent-encoded host', 'http://%6cocalhost:38081'],
    ['a backslash after the port', 'http://localhost:38081\\evil'],
  ])('D11 over HTTP: a resource WHATWG URL would repair into ours (%s) is 400 invalid_request and consumes nothing', async (_why, resource) => {
    const grant = await approve();
    await expectOAuthError(await tokenRequest(h, codeParams(grant, { resource })), 400, { error: 'invalid_request' });
    expect(await codeRowExists(grant.code)).toBe(true);
    const pair = await expectPair(await tokenRequest(h, codeParams(grant)));
    await expectOAuthError(await tokenRequest(h, refreshParams(pair.refresh_token, { resource })), 400, { error: 'invalid_request' });
    expect((await tokenRow(pair.refresh_token))!.retiredAt).toBeNull();
  });

  it('open tier: the token endpoint ignores a bogus bearer token and a bogus cookie (answers as if none)', async () => {
    const grant = await approve();
    const res = await h.request('/oauth/token', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: 'Bearer lg_not_a_token',
        cookie: 'lg_session=not-a-session',
      },
      body: new URLSearchParams(codeParams(grant)).toString(),
    });
    const pair = await expectPair(res);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(res.headers.get('set-cookie')).toBeNull();
    const refused = await h.request('/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Bearer lg_not_a_token' },
      body: new URLSearchParams(refreshParams(`lg_${randomBytes(32).toString('base64url')}`)).toString(),
    });
    await expectOAuthError(refused, 400, REFRESH_NOT_REDEEMABLE);
    expect(await accessWorks(pair.access_token)).toBe(true);
  });

  it('error rule 6 / D13: a JSON body is a plain-text 415 with no-store, and consumes nothing', async () => {
    const grant = await approve();
    const json = await h.request('/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(codeParams(grant)),
    });
    await expectPlainText(json, 415);
    const none = await h.request('/oauth/token', { method: 'POST', body: new URLSearchParams(codeParams(grant)).toString() });
    expect(none.status).toBe(415);
    const multipart = new FormData();
    for (const [k, v] of Object.entries(codeParams(grant))) multipart.set(k, v);
    const viaMultipart = await h.request('/oauth/token', { method: 'POST', body: multipart });
    await expectPlainText(viaMultipart, 415);
    expect(await codeRowExists(grant.code)).toBe(true);
    await expectPair(await tokenRequest(h, codeParams(grant)));
  });

  it('form encoding with a charset parameter is still form encoding', async () => {
    const grant = await approve();
    await expectPair(await h.postForm('/oauth/token', codeParams(grant), 'application/x-www-form-urlencoded; charset=UTF-8'));
  });

  it('error rule 6 / D13: a missing grant_type is a plain-text 422 with no-store, and consumes nothing', async () => {
    const grant = await approve();
    await expectPlainText(await tokenRequest(h, codeParams(grant, { grant_type: undefined })), 422);
    expect(await codeRowExists(grant.code)).toBe(true);
    await expectPair(await tokenRequest(h, codeParams(grant)));
  });

  it.each(['password', 'client_credentials', 'implicit', 'AUTHORIZATION_CODE', ''])(
    'an unsupported grant_type %j is 400 unsupported_grant_type with no-store, consuming nothing',
    async (grantType) => {
      const grant = await approve();
      await expectOAuthError(await tokenRequest(h, codeParams(grant, { grant_type: grantType })), 400, {
        error: 'unsupported_grant_type',
      });
      expect(await codeRowExists(grant.code)).toBe(true);
    },
  );

  it('README: a parameter sent twice is 400 invalid_request and consumes nothing', async () => {
    const grant = await approve();
    const body = `${new URLSearchParams(codeParams(grant))}&client_id=ledger-cli`;
    const res = await h.request('/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    await expectOAuthError(res, 400, { error: 'invalid_request' });
    expect(await codeRowExists(grant.code)).toBe(true);
  });

  // ---- refresh_token -----------------------------------------------------------------------

  it('refresh: rotation returns a new pair, retires the presented token and chains the new one to it', async () => {
    const first = await newPair();
    const second = await rotate(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await tokenRow(first.refresh_token))!.retiredAt).toBeInstanceOf(Date);
    expect((await tokenRow(second.refresh_token))).toMatchObject({
      kind: 'refresh',
      parentHash: sha256Hex(first.refresh_token),
      retiredAt: null,
      audience: API,
    });
    expect((await tokenRow(second.access_token))!.parentHash).toBe(sha256Hex(second.refresh_token));
    expect(await accessWorks(second.access_token)).toBe(true);
    const third = await rotate(second.refresh_token);
    expect(await accessWorks(third.access_token)).toBe(true);
  });

  it('refresh: resource API_ORIGIN/mcp is accepted and the audience stays API_ORIGIN', async () => {
    const first = await newPair();
    const second = await expectPair(await tokenRequest(h, refreshParams(first.refresh_token, { resource: `${API}/mcp` })));
    expect((await tokenRow(second.access_token))!.audience).toBe(API);
  });

  it('refresh: the old refresh token reused within 10 s is 400 invalid_grant and nothing else happens', async () => {
    const first = await newPair();
    const second = await rotate(first.refresh_token);
    const before = await tokenCount();
    await expectOAuthError(await tokenRequest(h, refreshParams(first.refresh_token)), 400, REFRESH_NOT_REDEEMABLE);
    expect(await tokenCount()).toBe(before);
    expect((await tokenRow(second.refresh_token))!.revokedAt).toBeNull();
    expect(await accessWorks(second.access_token)).toBe(true);
    await rotate(second.refresh_token);
  });

  it('refresh: the old refresh token reused 9 s after rotation (inside the 10-second grace) is refused and revokes nothing', async () => {
    const first = await newPair();
    const second = await rotate(first.refresh_token);
    await h.db.execute(sql`update tokens set retired_at = now() - interval '9 seconds' where hash = ${sha256Hex(first.refresh_token)}`);
    const before = await tokenCount();
    await expectOAuthError(await tokenRequest(h, refreshParams(first.refresh_token)), 400, REFRESH_NOT_REDEEMABLE);
    expect(await tokenCount()).toBe(before);
    expect((await tokenRow(second.refresh_token))!.revokedAt).toBeNull();
    expect((await tokenRow(second.access_token))!.revokedAt).toBeNull();
    expect(await accessWorks(second.access_token)).toBe(true);
    await rotate(second.refresh_token);
  });

  it('refresh: the old refresh token reused more than 10 s after rotation is refused and revokes the whole family', async () => {
    const first = await newPair();
    const second = await rotate(first.refresh_token);
    await h.db.execute(sql`update tokens set retired_at = now() - interval '11 seconds' where hash = ${sha256Hex(first.refresh_token)}`);
    await expectOAuthError(await tokenRequest(h, refreshParams(first.refresh_token)), 400, REFRESH_NOT_REDEEMABLE);
    // The pair in current use is gone, and so is the first access token.
    expect(await accessWorks(second.access_token)).toBe(false);
    expect(await accessWorks(first.access_token)).toBe(false);
    await expectOAuthError(await tokenRequest(h, refreshParams(second.refresh_token)), 400, REFRESH_NOT_REDEEMABLE);
  });

  it('refresh: a replay of the first token of a long chain revokes every descendant, the newest pair included', async () => {
    const chain = [await newPair()];
    for (let i = 0; i < 3; i++) chain.push(await rotate(chain.at(-1)!.refresh_token));
    const other = await newPair(); // another grant of the same person must survive
    await h.db.execute(sql`update tokens set retired_at = now() - interval '11 seconds' where hash = ${sha256Hex(chain[0]!.refresh_token)}`);
    await expectOAuthError(await tokenRequest(h, refreshParams(chain[0]!.refresh_token)), 400, REFRESH_NOT_REDEEMABLE);
    for (const pair of chain) expect(await accessWorks(pair.access_token)).toBe(false);
    await expectOAuthError(await tokenRequest(h, refreshParams(chain.at(-1)!.refresh_token)), 400, REFRESH_NOT_REDEEMABLE);
    expect(await accessWorks(other.access_token)).toBe(true);
    await rotate(other.refresh_token);
  });

  it('refresh: another client_id is the identical invalid_grant and rotates nothing', async () => {
    const pair = await newPair();
    const before = await tokenCount();
    await expectOAuthError(await tokenRequest(h, refreshParams(pair.refresh_token, { client_id: 'ledger-desktop' })), 400, REFRESH_NOT_REDEEMABLE);
    expect(await tokenCount()).toBe(before);
    expect((await tokenRow(pair.refresh_token))!.retiredAt).toBeNull();
    await rotate(pair.refresh_token);
  });

  it('refresh: an access token presented as refresh_token is the identical invalid_grant', async () => {
    const pair = await newPair();
    await expectOAuthError(await tokenRequest(h, refreshParams(pair.access_token)), 400, REFRESH_NOT_REDEEMABLE);
    expect(await accessWorks(pair.access_token)).toBe(true);
    const minted = (await h.userWithToken('minted-as-refresh@example.com', PASSWORD)).token;
    await expectOAuthError(await tokenRequest(h, refreshParams(minted)), 400, REFRESH_NOT_REDEEMABLE);
  });

  it('refresh: an expired refresh token (60 days passed) is the identical invalid_grant', async () => {
    const pair = await newPair();
    await h.db.execute(sql`update tokens set expires_at = now() - interval '1 second' where hash = ${sha256Hex(pair.refresh_token)}`);
    await expectOAuthError(await tokenRequest(h, refreshParams(pair.refresh_token)), 400, REFRESH_NOT_REDEEMABLE);
  });

  it('refresh: a revoked refresh token is the identical invalid_grant', async () => {
    const pair = await newPair();
    expect((await revoke(h, { token: pair.refresh_token })).status).toBe(200);
    await expectOAuthError(await tokenRequest(h, refreshParams(pair.refresh_token)), 400, REFRESH_NOT_REDEEMABLE);
  });

  it('refresh: an unknown refresh token is the identical invalid_grant', async () => {
    await expectOAuthError(await tokenRequest(h, refreshParams(`lg_${randomBytes(32).toString('base64url')}`)), 400, REFRESH_NOT_REDEEMABLE);
  });

  it('refresh, D13: a missing refresh_token or client_id, or a wrong resource, is 400 invalid_request and rotates nothing', async () => {
    const pair = await newPair();
    await expectOAuthError(await tokenRequest(h, refreshParams(pair.refresh_token, { refresh_token: undefined })), 400, {
      error: 'invalid_request',
    });
    await expectOAuthError(await tokenRequest(h, refreshParams(pair.refresh_token, { client_id: undefined })), 400, {
      error: 'invalid_request',
    });
    await expectOAuthError(await tokenRequest(h, refreshParams(pair.refresh_token, { resource: 'https://evil.example' })), 400, {
      error: 'invalid_request',
    });
    expect((await tokenRow(pair.refresh_token))!.retiredAt).toBeNull();
    await rotate(pair.refresh_token);
  });

  // ---- connections -------------------------------------------------------------------------

  it('GET /auth/tokens shows one row per grant, the live refresh token, after several rotations (last used at the last rotation)', async () => {
    const person = await freshPerson('connections@example.com');
    const first = await newPair(person);
    let pair = first;
    for (let i = 0; i < 3; i++) pair = await rotate(pair.refresh_token);
    const lastRotation = (await tokenRow(pair.refresh_token))!.lastUsedAt!;
    const res = await person.request('/auth/tokens');
    expect(res.status).toBe(200);
    const rows = (await res.json()) as Record<string, unknown>[];
    const grants = rows.filter((r) => r.kind === 'refresh');
    expect(grants).toHaveLength(1);
    expect(grants[0]).toStrictEqual({
      id: sha256Hex(pair.refresh_token),
      client_id: 'ledger-cli',
      client_name: 'Ledger CLI',
      kind: 'refresh',
      // D25: the family of the first pair, unchanged by every rotation.
      grant_id: (await tokenRow(first.refresh_token))!.grantId,
      label: null,
      last_used_at: lastRotation.toISOString(),
      expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
    });
    expect(Math.abs(lastRotation.getTime() - Date.now())).toBeLessThan(30_000);
    const days = (Date.parse(grants[0]!.expires_at as string) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(59.9);
    expect(days).toBeLessThanOrEqual(60);
    // The rest is the token minted for this person by the harness: no access token of the grant is listed.
    expect(rows.filter((r) => r.kind === 'access')).toHaveLength(1);
    expect(rows).toHaveLength(2);
  });

  it('spec Connection: the grant\'s row shows its last use; using an access token stamps the live refresh token too (once a minute), and rotation carries the stamp', async () => {
    const person = await freshPerson('connection-last-used@example.com');
    const first = await newPair(person);
    const grantRow = async () =>
      ((await (await person.request('/auth/tokens')).json()) as { kind: string; last_used_at: string | null }[]).filter(
        (r) => r.kind === 'refresh',
      );
    // Issued but never used: no last use yet.
    expect((await grantRow())[0]!.last_used_at).toBeNull();

    // Using the access token stamps it and its grant's live refresh token, in the same statement (same now()).
    expect(await accessWorks(first.access_token)).toBe(true);
    const stamped = (await tokenRow(first.refresh_token))!.lastUsedAt!;
    expect(stamped).toBeInstanceOf(Date);
    expect(stamped.getTime()).toBe((await tokenRow(first.access_token))!.lastUsedAt!.getTime());
    expect((await grantRow())[0]!.last_used_at).toBe(stamped.toISOString());

    // At most once a minute: a second use within the minute writes nothing.
    expect(await accessWorks(first.access_token)).toBe(true);
    expect((await tokenRow(first.refresh_token))!.lastUsedAt!.getTime()).toBe(stamped.getTime());

    // A minute later, the next use stamps both again.
    const twoMinutesAgo = sql`now() - interval '2 minutes'`;
    await h.db.update(tokens).set({ lastUsedAt: twoMinutesAgo }).where(eq(tokens.userId, (await tokenRow(first.refresh_token))!.userId));
    expect(await accessWorks(first.access_token)).toBe(true);
    const restamped = (await tokenRow(first.refresh_token))!.lastUsedAt!;
    expect(Math.abs(restamped.getTime() - Date.now())).toBeLessThan(30_000);

    // Rotation: the successor starts with the rotation's stamp, the one its predecessor got.
    const second = await rotate(first.refresh_token);
    const retired = (await tokenRow(first.refresh_token))!.lastUsedAt!;
    expect((await tokenRow(second.refresh_token))!.lastUsedAt!.getTime()).toBe(retired.getTime());
    expect((await grantRow()).map((r) => r.last_used_at)).toEqual([retired.toISOString()]);

    // The previous access token (still valid for its hour) is a use of the same grant: it stamps
    // the live successor, found down the refresh chain, and leaves the retired token as it was.
    await h.db
      .update(tokens)
      .set({ lastUsedAt: twoMinutesAgo })
      .where(inArray(tokens.hash, [sha256Hex(first.access_token), sha256Hex(second.refresh_token)]));
    const retiredBefore = (await tokenRow(first.refresh_token))!.lastUsedAt!.getTime();
    expect(await accessWorks(first.access_token)).toBe(true);
    const live = (await tokenRow(second.refresh_token))!.lastUsedAt!;
    expect(Math.abs(live.getTime() - Date.now())).toBeLessThan(30_000);
    expect((await tokenRow(first.refresh_token))!.lastUsedAt!.getTime()).toBe(retiredBefore);
    expect((await grantRow())[0]!.last_used_at).toBe(live.toISOString());
  });

  it('DELETE /auth/tokens/{id} of the grant revokes the current access token too, and the connection disappears', async () => {
    const person = await freshPerson('disconnect@example.com');
    let pair = await newPair(person);
    pair = await rotate(pair.refresh_token);
    pair = await rotate(pair.refresh_token);
    expect(await accessWorks(pair.access_token)).toBe(true);
    const id = sha256Hex(pair.refresh_token);
    const del = await person.request(`/auth/tokens/${id}`, { method: 'DELETE' });
    expect(del.status).toBe(204);
    expect(await accessWorks(pair.access_token)).toBe(false);
    await expectOAuthError(await tokenRequest(h, refreshParams(pair.refresh_token)), 400, REFRESH_NOT_REDEEMABLE);
    const rows = (await (await person.request('/auth/tokens')).json()) as { id: string }[];
    expect(rows.map((r) => r.id)).not.toContain(id);
  });

  // ---- POST /oauth/revoke ------------------------------------------------------------------

  it('revoke: 200, empty body and no-store for a live, an unknown, an expired and an already revoked token', async () => {
    const live = await newPair();
    const expired = await newPair();
    await h.db.execute(sql`update tokens set expires_at = now() - interval '1 second' where hash = ${sha256Hex(expired.refresh_token)}`);
    const cases = [
      live.access_token,
      `lg_${randomBytes(32).toString('base64url')}`,
      'not even a token',
      expired.refresh_token,
      live.access_token, // now already revoked
    ];
    for (const token of cases) {
      const res = await revoke(h, { token });
      expect(res.status, token).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.text()).toBe('');
    }
  });

  it('revoke: revoking a refresh token revokes the access tokens it minted', async () => {
    const pair = await newPair();
    expect((await revoke(h, { token: pair.refresh_token, token_type_hint: 'refresh_token' })).status).toBe(200);
    expect(await accessWorks(pair.access_token)).toBe(false);
    await expectOAuthError(await tokenRequest(h, refreshParams(pair.refresh_token)), 400, REFRESH_NOT_REDEEMABLE);
    expect((await tokenRow(pair.refresh_token))!.revokedAt).toBeInstanceOf(Date);
    expect((await tokenRow(pair.access_token))!.revokedAt).toBeInstanceOf(Date);
  });

  it('revoke: revoking a rotated grant by its live refresh token ends the access token of the current pair', async () => {
    const first = await newPair();
    const second = await rotate(first.refresh_token);
    expect((await revoke(h, { token: second.refresh_token })).status).toBe(200);
    expect(await accessWorks(second.access_token)).toBe(false);
  });

  it('revoke: a retired refresh token is not live, so revoking it is a 200 no-op that leaves the grant alone', async () => {
    const first = await newPair();
    const second = await rotate(first.refresh_token);
    const res = await revoke(h, { token: first.refresh_token });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.text()).toBe('');
    expect((await tokenRow(first.refresh_token))!.revokedAt).toBeNull();
    expect((await tokenRow(second.refresh_token))!.revokedAt).toBeNull();
    expect(await accessWorks(second.access_token)).toBe(true);
    // The previous access token was not the retired token's to take with it either.
    expect(await accessWorks(first.access_token)).toBe(true);
    await rotate(second.refresh_token);
  });

  it('revoke: a retired refresh token with its client_id is the same no-op; the live one still ends the grant', async () => {
    const first = await newPair();
    const second = await rotate(first.refresh_token);
    expect((await revoke(h, { token: first.refresh_token, client_id: 'ledger-cli' })).status).toBe(200);
    expect(await accessWorks(second.access_token)).toBe(true);
    expect((await revoke(h, { token: second.refresh_token, client_id: 'ledger-cli' })).status).toBe(200);
    expect(await accessWorks(second.access_token)).toBe(false);
    expect(await accessWorks(first.access_token)).toBe(false);
  });

  it('revoke: revoking an access token leaves its refresh token working', async () => {
    const pair = await newPair();
    expect((await revoke(h, { token: pair.access_token, token_type_hint: 'access_token' })).status).toBe(200);
    expect(await accessWorks(pair.access_token)).toBe(false);
    expect((await tokenRow(pair.refresh_token))!.revokedAt).toBeNull();
    const next = await rotate(pair.refresh_token);
    expect(await accessWorks(next.access_token)).toBe(true);
  });

  it('revoke: token_type_hint is ignored (a wrong hint still revokes)', async () => {
    const pair = await newPair();
    expect((await revoke(h, { token: pair.access_token, token_type_hint: 'refresh_token' })).status).toBe(200);
    expect(await accessWorks(pair.access_token)).toBe(false);
  });

  it('revoke: a client_id mismatch revokes nothing but answers 200; the matching client_id revokes', async () => {
    const pair = await newPair();
    for (const token of [pair.refresh_token, pair.access_token]) {
      const res = await revoke(h, { token, client_id: 'ledger-desktop' });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('');
    }
    expect(await accessWorks(pair.access_token)).toBe(true);
    expect((await tokenRow(pair.refresh_token))!.revokedAt).toBeNull();

    expect((await revoke(h, { token: pair.refresh_token, client_id: 'ledger-cli' })).status).toBe(200);
    expect(await accessWorks(pair.access_token)).toBe(false);
  });

  it('revoke: a missing or empty token is 400 invalid_request with no-store', async () => {
    await expectOAuthError(await revoke(h, {}), 400, { error: 'invalid_request' });
    await expectOAuthError(await revoke(h, { token: '' }), 400, { error: 'invalid_request' });
    await expectOAuthError(await revoke(h, { token_type_hint: 'access_token' }), 400, { error: 'invalid_request' });
  });

  it('revoke: a body that is not form-encoded is a plain-text 415 and revokes nothing', async () => {
    const pair = await newPair();
    const res = await h.request('/oauth/revoke', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: pair.access_token }),
    });
    expect(res.status).toBe(415);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await accessWorks(pair.access_token)).toBe(true);
  });

  it('revoke is open: it needs no credential, and a session gives no power over other tokens (it is by token only)', async () => {
    const pair = await newPair();
    const res = await h.request('/oauth/revoke', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Bearer lg_garbage' },
      body: new URLSearchParams({ token: pair.access_token }).toString(),
    });
    expect(res.status).toBe(200);
    expect(await accessWorks(pair.access_token)).toBe(false);
  });

  // ---- concurrency -------------------------------------------------------------------------

  it('concurrency: 10 parallel redemptions of one code give exactly one 200; one pair issued', async () => {
    const grant = await approve();
    const before = await tokenCount();
    const results = await Promise.all(Array.from({ length: 10 }, () => tokenRequest(h, codeParams(grant))));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400, 400, 400, 400, 400]);
    for (const res of results.filter((r) => r.status === 400)) {
      expect(await res.json()).toStrictEqual(CODE_NOT_REDEEMABLE);
    }
    const winner = (await results.find((r) => r.status === 200)!.json()) as TokenPair;
    expect(await accessWorks(winner.access_token)).toBe(true);
    expect(await tokenCount()).toBe(before + 2);
  });

  it('concurrency: 10 parallel rotations of one refresh token give exactly one 200; the family survives', async () => {
    const pair = await newPair();
    const before = await tokenCount();
    const results = await Promise.all(Array.from({ length: 10 }, () => tokenRequest(h, refreshParams(pair.refresh_token))));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400, 400, 400, 400, 400]);
    for (const res of results.filter((r) => r.status === 400)) {
      expect(await res.json()).toStrictEqual(REFRESH_NOT_REDEEMABLE);
    }
    expect(await tokenCount()).toBe(before + 2);
    const winner = (await results.find((r) => r.status === 200)!.json()) as TokenPair;
    // The losers were retries within the grace period: nothing was revoked.
    expect(await accessWorks(winner.access_token)).toBe(true);
    expect(await accessWorks(pair.access_token)).toBe(true);
    await rotate(winner.refresh_token);
    // Exactly one successor was chained to the presented token.
    const [successors] = await h.db
      .select({ n: count() })
      .from(tokens)
      .where(and(eq(tokens.parentHash, sha256Hex(pair.refresh_token)), eq(tokens.kind, 'refresh')));
    expect(successors!.n).toBe(1);
  });
});

// Error rule 3 on the token endpoint, with a real database fault: this block's own database loses
// its tokens table, so a rotation's first statement fails inside the driver.
describeEachDatabase('POST /oauth/token on a database fault (error rule 3)', (h) => {
  it('500 {error: server_error, error_description: the generic sentence} with no-store; no SQL text; the detail is logged', async () => {
    await h.db.execute(sql`alter table tokens rename to tokens_gone`);
    const res = await tokenRequest(h, refreshParams(`lg_${randomBytes(32).toString('base64url')}`));
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();
    expect(JSON.parse(text)).toStrictEqual({ error: 'server_error', error_description: 'something went wrong on the server' });
    expect(text).not.toMatch(/tokens|relation|select|update|postgres|sql/i);
    expect(h.logs.some((line) => line.level === 'error' && line.event === 'request.fault' && line.fields.path === '/oauth/token')).toBe(true);
  });
});
