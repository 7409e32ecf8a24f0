import { eq, sql } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { accounts, passkeys, sessions } from '../src/db/schema';
import { createApp, type App } from '../src/http/app';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { describeEachDatabase, Harness, TEST_ENV } from './support/harness';
import { CHALLENGE, expectAuthenticationRequired, sha256Hex } from './support/http';

// Spec: States and transitions / Session; Login and second factor rules 1, 2, 5; Limits;
// D4 (cookie attributes, logout), D10 (logs), D13 (half-session on a full route).

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** Slack for comparing a database `now()` with the test's clock (same machine). */
const SLACK = 5_000;


/** The attributes of one Set-Cookie line, names lower-cased (RFC 6265 §5.2). */
function cookieAttributes(line: string): Map<string, string> {
  const [, ...parts] = line.split(';');
  return new Map(
    parts.map((part) => {
      const eq = part.indexOf('=');
      return eq < 0
        ? [part.trim().toLowerCase(), '']
        : [part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim()];
    }),
  );
}

function lgSessionCookies(res: Response): string[] {
  return res.headers.getSetCookie().filter((line) => line.startsWith('lg_session='));
}

/**
 * The same database behind an app built with other configuration (API_ORIGIN https, another
 * SESSION_TTL_DAYS). It subclasses the harness only so that `Browser` can drive it; it answers
 * `request` with its own app and never opens a database of its own.
 */
class ConfiguredApp extends Harness {
  readonly #app: App;
  readonly #origin: string;

  constructor(base: Harness, env: Record<string, string>) {
    super(base.backend);
    const config = loadConfig({ ...TEST_ENV, ...env });
    this.#app = createApp({ db: base.db, config, log: base.log });
    this.#origin = config.apiOrigin;
  }

  override request(path: string, init: RequestInit = {}): Promise<Response> {
    return Promise.resolve(this.#app.request(new URL(path, this.#origin).href, init));
  }
}

describeEachDatabase('Sessions (spec: Session state table; D4)', (h) => {
  /** Every cookie value and password this file handles, for the log check at the end (D10). */
  const seenCookies = new Set<string>();
  const passwords = new Set<string>();
  let serial = 0;

  /** A browser that remembers every session id it was handed. */
  class TrackedBrowser extends Browser {
    override async request(path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
      const res = await super.request(path, init);
      if (this.session) seenCookies.add(this.session);
      return res;
    }
  }

  const browser = (app: Harness = h) => new TrackedBrowser(app);

  async function newUser(label: string) {
    serial += 1;
    const email = `${label}-${serial}@sessions.example`;
    const password = `sessions pw ${label} ${serial} ${randomBytes(6).toString('hex')}`;
    passwords.add(password);
    const { userId, token } = await h.userWithToken(email, password);
    return { email, password, userId, token };
  }

  /** A request carrying `cookie` as lg_session, the way a stale browser tab would send it. */
  function withCookie(cookie: string, method: string, path: string, json?: unknown): Promise<Response> {
    const headers: Record<string, string> = { cookie: `lg_session=${cookie}` };
    if (json !== undefined) headers['content-type'] = 'application/json';
    return h.request(path, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
  }

  async function sessionRow(cookie: string) {
    const [row] = await h.db.select().from(sessions).where(eq(sessions.idHash, sha256Hex(cookie)));
    return row;
  }

  async function sessionsOf(userId: number) {
    return h.db.select().from(sessions).where(eq(sessions.userId, userId));
  }

  async function passkeyCount(userId: number): Promise<number> {
    return (await h.db.select().from(passkeys).where(eq(passkeys.userId, userId))).length;
  }

  /** Expires `cookie`'s session one second ago, straight in the database. */
  async function expire(cookie: string): Promise<void> {
    const updated = await h.db
      .update(sessions)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(sessions.idHash, sha256Hex(cookie)))
      .returning({ idHash: sessions.idHash });
    expect(updated).toHaveLength(1);
  }

  function expectExpiryAround(expiresAt: Date, before: number, after: number, lifetimeMs: number): void {
    expect(expiresAt.getTime()).toBeGreaterThanOrEqual(before + lifetimeMs - SLACK);
    expect(expiresAt.getTime()).toBeLessThanOrEqual(after + lifetimeMs + SLACK);
  }

  it('none → half-session: a correct password answers 200 exactly {has_passkeys:false, mfa_complete:false} and sets lg_session HttpOnly, SameSite=Lax, Path=/, not Secure on an http API_ORIGIN, valid 10 minutes (D4)', async () => {
    const user = await newUser('login');
    const b = browser();
    const res = await b.login(user.email, user.password);
    expect(res.status).toBe(200);
    expect(await res.json()).toStrictEqual({ has_passkeys: false, mfa_complete: false });

    const cookies = lgSessionCookies(res);
    expect(cookies).toHaveLength(1);
    const attributes = cookieAttributes(cookies[0]!);
    expect(attributes.has('httponly')).toBe(true);
    expect(attributes.get('samesite')).toBe('Lax');
    expect(attributes.get('path')).toBe('/');
    expect(attributes.has('secure')).toBe(false);
    // Limits: a half-session lives 10 minutes; the cookie says so too.
    const maxAge = Number(attributes.get('max-age'));
    expect(maxAge).toBeGreaterThanOrEqual(600 - 5);
    expect(maxAge).toBeLessThanOrEqual(600);
    expect(b.session).toBeDefined();
  });

  it('the half-session row: mfa_complete false, expires_at 10 minutes from now; the cookie is 256 bits (43 base64url) and only its SHA-256 hex is stored', async () => {
    const user = await newUser('row');
    const b = browser();
    const before = Date.now();
    expect((await b.login(user.email, user.password)).status).toBe(200);
    const after = Date.now();
    const cookie = b.session!;
    expect(cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(cookie, 'base64url')).toHaveLength(32);

    const rows = await sessionsOf(user.userId);
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row.idHash).toBe(sha256Hex(cookie));
    expect(row.mfaComplete).toBe(false);
    expectExpiryAround(row.expiresAt, before, after, 10 * MINUTE);

    // The cookie value itself appears in no column of any session row.
    const everything = await h.db.select().from(sessions);
    expect(everything.length).toBeGreaterThan(0);
    expect(JSON.stringify(everything)).not.toContain(cookie);
  });

  it('login answers has_passkeys true once the account has a passkey (mfa_complete still false)', async () => {
    const user = await newUser('haspk');
    const key = new SoftwareAuthenticator();
    await browser().signIn(user.email, user.password, key);
    const b = browser();
    const res = await b.login(user.email, user.password);
    expect(res.status).toBe(200);
    expect(await res.json()).toStrictEqual({ has_passkeys: true, mfa_complete: false });
    expect((await sessionRow(b.session!))?.mfaComplete).toBe(false);
  });

  it('D4: with an https API_ORIGIN the session cookie is also Secure, on login, on elevation and on the logout expiry', async () => {
    const secureApp = new ConfiguredApp(h, { API_ORIGIN: 'https://ledger.example' });
    const user = await newUser('secure');
    const b = browser(secureApp);

    const login = await b.login(user.email, user.password);
    expect(login.status).toBe(200);
    const loginCookie = cookieAttributes(lgSessionCookies(login)[0]!);
    expect(loginCookie.has('secure')).toBe(true);
    expect(loginCookie.has('httponly')).toBe(true);
    expect(loginCookie.get('samesite')).toBe('Lax');
    expect(loginCookie.get('path')).toBe('/');

    expect((await b.enrol(new SoftwareAuthenticator())).status).toBe(200);
    expect(cookieAttributes(b.lastSetCookie!).has('secure')).toBe(true);

    const logout = await b.post('/auth/logout');
    expect(logout.status).toBe(204);
    const cleared = lgSessionCookies(logout);
    expect(cleared).toHaveLength(1);
    expect(cookieAttributes(cleared[0]!).has('secure')).toBe(true);
  });

  it('Login rule 1 / D13: a half-session reaches the WebAuthn routes, but every full-tier route answers 401 {error:"authentication required"} with WWW-Authenticate, and changes nothing', async () => {
    const user = await newUser('halftier');
    const b = browser();
    expect((await b.login(user.email, user.password)).status).toBe(200);

    expect((await b.post('/auth/webauthn/register/begin')).status).toBe(200);

    await expectAuthenticationRequired(await b.request('/auth/me'), 'GET /auth/me');
    await expectAuthenticationRequired(await b.request('/accounts'), 'GET /accounts');
    await expectAuthenticationRequired(await b.request('/auth/passkeys'), 'GET /auth/passkeys');
    await expectAuthenticationRequired(await b.request('/auth/tokens'), 'GET /auth/tokens');
    const accountName = `half-session account ${serial}`;
    await expectAuthenticationRequired(await b.post('/accounts', { name: accountName, kind: 'asset' }), 'POST /accounts');
    const newPassword = `a brand new password ${serial}`;
    passwords.add(newPassword);
    await expectAuthenticationRequired(
      await b.post('/auth/password', { current_password: user.password, new_password: newPassword }),
      'POST /auth/password',
    );

    // Nothing changed: no account was created, the password is the old one, the session is still half.
    expect(await h.db.select().from(accounts).where(eq(accounts.name, accountName))).toEqual([]);
    expect((await browser().login(user.email, user.password)).status).toBe(200);
    expect((await sessionRow(b.session!))?.mfaComplete).toBe(false);
  });

  it('a half-session of an account with a passkey reaches auth/begin (half tier) but not GET /auth/me', async () => {
    const user = await newUser('halfauth');
    const key = new SoftwareAuthenticator();
    await browser().signIn(user.email, user.password, key);
    const b = browser();
    expect((await b.login(user.email, user.password)).status).toBe(200);
    expect((await b.post('/auth/webauthn/auth/begin')).status).toBe(200);
    await expectAuthenticationRequired(await b.request('/auth/me'), 'GET /auth/me');
  });

  it('Login rule 5: a wrong password and an unknown email give an identical 401 (status, body, headers apart from Date) and set no cookie or session', async () => {
    const user = await newUser('wrongpw');
    const wrong = await browser().login(user.email, `${user.password} but wrong`);
    const unknownEmail = `nobody-${serial}@sessions.example`;
    const unknown = await browser().login(unknownEmail, user.password);

    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const wrongBody = await wrong.text();
    expect(await unknown.text()).toBe(wrongBody);
    expect(JSON.parse(wrongBody)).toEqual({ error: expect.any(String) });
    const headersOf = (res: Response) => {
      const pairs: [string, string][] = [];
      res.headers.forEach((value, name) => {
        if (name !== 'date') pairs.push([name, value]);
      });
      return pairs;
    };
    expect(headersOf(wrong).length).toBeGreaterThan(0);
    expect(headersOf(unknown)).toEqual(headersOf(wrong));
    expect(wrong.headers.getSetCookie()).toEqual([]);
    expect(unknown.headers.getSetCookie()).toEqual([]);
    expect(await sessionsOf(user.userId)).toEqual([]);
  });

  it('half → full by enrolling the first passkey: the session id rotates, the old id works nowhere, mfa_complete true, expiry SESSION_TTL_DAYS (30) from now', async () => {
    const user = await newUser('elevreg');
    const b = browser();
    expect((await b.login(user.email, user.password)).status).toBe(200);
    const half = b.session!;

    const before = Date.now();
    const finish = await b.enrol(new SoftwareAuthenticator());
    const after = Date.now();
    expect(finish.status).toBe(200);
    expect(await finish.json()).toStrictEqual({ mfa_complete: true });
    const full = b.session!;
    expect(full).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(full).not.toBe(half);
    const cookie = cookieAttributes(lgSessionCookies(finish)[0]!);
    expect(cookie.has('httponly')).toBe(true);
    expect(cookie.get('samesite')).toBe('Lax');
    expect(Number(cookie.get('max-age'))).toBeGreaterThan(30 * 86400 - 10);
    expect(Number(cookie.get('max-age'))).toBeLessThanOrEqual(30 * 86400);

    expect(await sessionRow(half)).toBeUndefined();
    const row = await sessionRow(full);
    expect(row?.mfaComplete).toBe(true);
    expectExpiryAround(row!.expiresAt, before, after, 30 * DAY);
    expect(await sessionsOf(user.userId)).toHaveLength(1);

    await expectAuthenticationRequired(await withCookie(half, 'GET', '/auth/me'), 'old id on /auth/me');
    await expectAuthenticationRequired(await withCookie(half, 'POST', '/auth/webauthn/register/begin'), 'old id on register/begin');
    await expectAuthenticationRequired(await withCookie(half, 'POST', '/auth/webauthn/auth/begin'), 'old id on auth/begin');

    const me = await b.request('/auth/me');
    expect(me.status).toBe(200);
    expect(await me.json()).toStrictEqual({ email: user.email, has_passkeys: true, mfa_complete: true, via: 'session' });
  });

  it('half → full by authenticating with an enrolled passkey: the session id rotates, the old id works nowhere, mfa_complete true, expiry SESSION_TTL_DAYS (30) from now', async () => {
    const user = await newUser('elevauth');
    const key = new SoftwareAuthenticator();
    await browser().signIn(user.email, user.password, key);

    const b = browser();
    expect((await b.login(user.email, user.password)).status).toBe(200);
    const half = b.session!;
    const before = Date.now();
    const finish = await b.assert(key);
    const after = Date.now();
    expect(finish.status).toBe(200);
    expect(await finish.json()).toStrictEqual({ mfa_complete: true });
    const full = b.session!;
    expect(full).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(full).not.toBe(half);

    expect(await sessionRow(half)).toBeUndefined();
    const row = await sessionRow(full);
    expect(row?.mfaComplete).toBe(true);
    expectExpiryAround(row!.expiresAt, before, after, 30 * DAY);

    await expectAuthenticationRequired(await withCookie(half, 'GET', '/auth/me'), 'old id on /auth/me');
    await expectAuthenticationRequired(await withCookie(half, 'GET', '/accounts'), 'old id on /accounts');
    await expectAuthenticationRequired(await withCookie(half, 'POST', '/auth/webauthn/auth/begin'), 'old id on auth/begin');
    await expectAuthenticationRequired(
      await withCookie(half, 'POST', '/auth/webauthn/auth/finish', key.authenticate({ challenge: 'x', rpId: 'localhost' })),
      'old id on auth/finish',
    );
    expect((await b.request('/auth/me')).status).toBe(200);
  });

  it('SESSION_TTL_DAYS=2 (a second app on the same database): both kinds of elevation expire 2 days from now', async () => {
    const shortApp = new ConfiguredApp(h, { SESSION_TTL_DAYS: '2' });
    const user = await newUser('ttl2');
    const key = new SoftwareAuthenticator();

    const first = browser(shortApp);
    expect((await first.login(user.email, user.password)).status).toBe(200);
    let before = Date.now();
    expect((await first.enrol(key)).status).toBe(200);
    let after = Date.now();
    let row = await sessionRow(first.session!);
    expect(row?.mfaComplete).toBe(true);
    expectExpiryAround(row!.expiresAt, before, after, 2 * DAY);
    expect(Number(cookieAttributes(first.lastSetCookie!).get('max-age'))).toBeLessThanOrEqual(2 * 86400);

    const second = browser(shortApp);
    expect((await second.login(user.email, user.password)).status).toBe(200);
    before = Date.now();
    expect((await second.assert(key)).status).toBe(200);
    after = Date.now();
    row = await sessionRow(second.session!);
    expect(row?.mfaComplete).toBe(true);
    expectExpiryAround(row!.expiresAt, before, after, 2 * DAY);
  });

  it('SESSION_TTL_DAYS above 400 (the configuration accepts up to 3650): elevation still answers 200 and the session expires TTL days from now', async () => {
    // Browsers cap a cookie's lifetime at 400 days (RFC 6265bis §5.6.1/§5.6.2); the server must
    // still elevate rather than fail while writing the Set-Cookie header.
    const longApp = new ConfiguredApp(h, { SESSION_TTL_DAYS: '500' });
    const user = await newUser('ttl500');
    const b = browser(longApp);
    expect((await b.login(user.email, user.password)).status).toBe(200);
    const half = b.session!;
    const before = Date.now();
    const finish = await b.enrol(new SoftwareAuthenticator());
    const after = Date.now();
    expect(finish.status).toBe(200);
    expect(await finish.json()).toStrictEqual({ mfa_complete: true });
    expect(b.session).toBeDefined();
    expect(b.session).not.toBe(half);
    const row = await sessionRow(b.session!);
    expect(row?.mfaComplete).toBe(true);
    expectExpiryAround(row!.expiresAt, before, after, 500 * DAY);
  });

  it('"use never extends it": requests with a full session leave expires_at unchanged and set no new cookie', async () => {
    const user = await newUser('noslide');
    const b = browser();
    await b.signIn(user.email, user.password, new SoftwareAuthenticator());
    const cookie = b.session!;
    const initial = (await sessionRow(cookie))!.expiresAt;

    // A real pause, so that any "now() + TTL" rewrite would land on a different instant.
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const path of ['/auth/me', '/accounts', '/auth/passkeys', '/auth/tokens']) {
      const res = await b.request(path);
      expect(res.status, path).toBe(200);
      expect(lgSessionCookies(res), path).toEqual([]);
    }
    expect((await b.post('/auth/webauthn/register/begin')).status).toBe(200);
    expect((await b.post('/auth/webauthn/auth/begin')).status).toBe(200);

    expect(b.session).toBe(cookie);
    expect((await sessionRow(cookie))!.expiresAt.getTime()).toBe(initial.getTime());
  });

  it('"use never extends it" for half-sessions too: register/begin and auth/begin leave expires_at unchanged and set no cookie; D3: each stores a challenge of its purpose that expires 5 minutes from now', async () => {
    const fresh = await newUser('halfnoslide');
    const enrolled = await newUser('halfnoslide-auth');
    await browser().signIn(enrolled.email, enrolled.password, new SoftwareAuthenticator());
    const ceremonies = [
      [fresh, '/auth/webauthn/register/begin', 'register'],
      [enrolled, '/auth/webauthn/auth/begin', 'authenticate'],
    ] as const;
    for (const [user, path, purpose] of ceremonies) {
      const b = browser();
      expect((await b.login(user.email, user.password)).status).toBe(200);
      const cookie = b.session!;
      const initial = (await sessionRow(cookie))!.expiresAt;
      // A real pause, so that any "now() + lifetime" rewrite would land on a different instant.
      await new Promise((resolve) => setTimeout(resolve, 50));
      for (let i = 1; i <= 2; i++) {
        const what = `${path} #${i}`;
        const before = Date.now();
        const res = await b.post(path);
        const after = Date.now();
        expect(res.status, what).toBe(200);
        expect(lgSessionCookies(res), what).toEqual([]);
        const { challenge } = (await res.json()) as { challenge: string };
        const row = (await sessionRow(cookie))!;
        expect(row.expiresAt.getTime(), what).toBe(initial.getTime());
        expect(row.mfaComplete, what).toBe(false);
        expect(row.challenge, what).toBe(challenge);
        expect(row.challengePurpose, what).toBe(purpose);
        expectExpiryAround(row.challengeExpiresAt!, before, after, 5 * MINUTE);
      }
      expect(b.session).toBe(cookie);
    }
  });

  it('an expired full session answers 401 on full-tier routes and on the WebAuthn routes', async () => {
    const user = await newUser('expfull');
    const key = new SoftwareAuthenticator();
    const b = browser();
    await b.signIn(user.email, user.password, key);
    expect((await b.request('/auth/me')).status).toBe(200);
    await expire(b.session!);

    await expectAuthenticationRequired(await b.request('/auth/me'), 'GET /auth/me');
    await expectAuthenticationRequired(await b.request('/accounts'), 'GET /accounts');
    await expectAuthenticationRequired(await b.post('/auth/webauthn/register/begin'), 'register/begin');
    await expectAuthenticationRequired(await b.post('/auth/webauthn/auth/begin'), 'auth/begin');
    await expectAuthenticationRequired(
      await b.post('/auth/webauthn/auth/finish', key.authenticate({ challenge: 'x', rpId: 'localhost' })),
      'auth/finish',
    );
    expect(await passkeyCount(user.userId)).toBe(1);
  });

  it('an expired half-session answers 401 on register/begin and the other WebAuthn routes, and is not elevated', async () => {
    const user = await newUser('exphalf');
    const key = new SoftwareAuthenticator();
    const b = browser();
    expect((await b.login(user.email, user.password)).status).toBe(200);
    const options = await b.registerBegin();
    await expire(b.session!);

    await expectAuthenticationRequired(await b.post('/auth/webauthn/register/begin'), 'register/begin');
    await expectAuthenticationRequired(await b.post('/auth/webauthn/register/finish', key.register(options)), 'register/finish');
    await expectAuthenticationRequired(await b.post('/auth/webauthn/auth/begin'), 'auth/begin');
    expect(await passkeyCount(user.userId)).toBe(0);
    expect((await sessionRow(b.session!))?.mfaComplete).toBe(false);
  });

  it('POST /auth/logout (D4): 204 with an expiring lg_session Set-Cookie; the row is gone and the old cookie no longer works', async () => {
    const user = await newUser('logout');
    const key = new SoftwareAuthenticator();
    const b = browser();
    await b.signIn(user.email, user.password, key);
    const full = b.session!;

    const res = await b.post('/auth/logout');
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    const cleared = lgSessionCookies(res);
    expect(cleared).toHaveLength(1);
    const attributes = cookieAttributes(cleared[0]!);
    const expires = attributes.get('expires');
    expect(attributes.get('max-age') === '0' || (expires !== undefined && Date.parse(expires) <= Date.now())).toBe(true);
    expect(cleared[0]!.split(';', 1)[0]).toBe('lg_session=');
    expect(attributes.get('path')).toBe('/');

    expect(await sessionRow(full)).toBeUndefined();
    expect(await sessionsOf(user.userId)).toEqual([]);
    await expectAuthenticationRequired(await withCookie(full, 'GET', '/auth/me'), 'old cookie on /auth/me');
    await expectAuthenticationRequired(await withCookie(full, 'POST', '/auth/webauthn/auth/begin'), 'old cookie on auth/begin');

    // A half-session is destroyed the same way (spec: "any → destroyed").
    const h2 = browser();
    expect((await h2.login(user.email, user.password)).status).toBe(200);
    const half = h2.session!;
    expect((await h2.post('/auth/logout')).status).toBe(204);
    expect(h2.session).toBeUndefined();
    expect(await sessionRow(half)).toBeUndefined();
    await expectAuthenticationRequired(await withCookie(half, 'POST', '/auth/webauthn/auth/begin'), 'old half cookie on auth/begin');
  });

  it('POST /auth/logout with no session, or with an unknown or malformed cookie, answers 204 and ends no other session', async () => {
    const user = await newUser('logoutnone');
    const b = browser();
    await b.signIn(user.email, user.password, new SoftwareAuthenticator());
    const countBefore = (await h.db.select().from(sessions)).length;

    const none = await h.request('/auth/logout', { method: 'POST' });
    expect(none.status).toBe(204);
    const unknown = await withCookie(randomBytes(32).toString('base64url'), 'POST', '/auth/logout');
    expect(unknown.status).toBe(204);
    const malformed = await withCookie('not-a-session', 'POST', '/auth/logout');
    expect(malformed.status).toBe(204);

    expect((await h.db.select().from(sessions)).length).toBe(countBefore);
    expect((await b.request('/auth/me')).status).toBe(200);
  });

  it('Fetch Metadata: a request the browser marks Sec-Fetch-Site: cross-site carries no session: GET /auth/me and the WebAuthn routes 401; POST /auth/logout 204 but ends nothing and clears no cookie', async () => {
    const user = await newUser('crosssite');
    const b = browser();
    await b.signIn(user.email, user.password, new SoftwareAuthenticator());
    const full = b.session!;
    const crossSite = { 'sec-fetch-site': 'cross-site' };

    await expectAuthenticationRequired(await b.request('/auth/me', { headers: crossSite }), 'cross-site GET /auth/me');
    await expectAuthenticationRequired(
      await b.request('/auth/webauthn/register/begin', { method: 'POST', headers: crossSite }),
      'cross-site register/begin',
    );
    const logout = await b.request('/auth/logout', { method: 'POST', headers: crossSite });
    expect(logout.status).toBe(204);
    expect(lgSessionCookies(logout)).toEqual([]);
    expect(b.session).toBe(full);
    expect(await sessionRow(full)).toBeDefined();
    expect((await b.request('/auth/me')).status).toBe(200);

    // A half-session is not used cross-site either: no passkey ceremony starts for it.
    const half = browser();
    expect((await half.login(user.email, user.password)).status).toBe(200);
    await expectAuthenticationRequired(
      await half.request('/auth/webauthn/auth/begin', { method: 'POST', headers: crossSite }),
      'cross-site auth/begin with a half-session',
    );
  });

  it('D25: the cookie counts with Origin: WEB_ORIGIN (the web app, same-site to the API) or with neither Origin nor Sec-Fetch-Site; Sec-Fetch-Site alone or another Origin does not; the web app\'s logout ends the session', async () => {
    const user = await newUser('samesite');
    const b = browser();
    await b.signIn(user.email, user.password, new SoftwareAuthenticator());
    const full = b.session!;
    for (const site of ['same-origin', 'same-site', 'cross-site', undefined]) {
      const headers: Record<string, string> = { origin: TEST_ENV.WEB_ORIGIN, ...(site ? { 'sec-fetch-site': site } : {}) };
      expect((await b.request('/auth/me', { headers })).status, `WEB_ORIGIN, ${site}`).toBe(200);
    }
    expect((await b.request('/auth/me')).status, 'no Origin, no Sec-Fetch-Site').toBe(200);
    for (const site of ['same-origin', 'same-site', 'none']) {
      await expectAuthenticationRequired(await b.request('/auth/me', { headers: { 'sec-fetch-site': site } }), `${site} without Origin`);
      await expectAuthenticationRequired(
        await b.request('/auth/me', { headers: { origin: 'http://localhost:38082', 'sec-fetch-site': site } }),
        `${site} from another port`,
      );
    }
    expect(await sessionRow(full)).toBeDefined();
    const logout = await b.request('/auth/logout', { method: 'POST', headers: { origin: TEST_ENV.WEB_ORIGIN, 'sec-fetch-site': 'same-site' } });
    expect(logout.status).toBe(204);
    expect(lgSessionCookies(logout)).toHaveLength(1);
    expect(b.session).toBeUndefined();
    expect(await sessionRow(full)).toBeUndefined();
  });

  it('a login while holding a session ends that previous session (and only that one)', async () => {
    const user = await newUser('relogin');
    const key = new SoftwareAuthenticator();
    const other = browser();
    await other.signIn(user.email, user.password, key);

    const b = browser();
    await b.signIn(user.email, user.password, key);
    const previousFull = b.session!;
    const res = await b.login(user.email, user.password);
    expect(res.status).toBe(200);
    expect(await res.json()).toStrictEqual({ has_passkeys: true, mfa_complete: false });
    expect(b.session).not.toBe(previousFull);

    expect(await sessionRow(previousFull)).toBeUndefined();
    await expectAuthenticationRequired(await withCookie(previousFull, 'GET', '/auth/me'), 'previous session');
    expect((await sessionRow(b.session!))?.mfaComplete).toBe(false);
    // The other browser's session is not this browser's to end.
    expect((await other.request('/auth/me')).status).toBe(200);
    expect(await sessionsOf(user.userId)).toHaveLength(2);
  });

  it('malformed login bodies answer 400 (415 for a non-JSON Content-Type) with {error}, and create no session', async () => {
    const user = await newUser('badbody');
    const json = (body: string) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const cases: [string, RequestInit, number][] = [
      ['missing email', json(JSON.stringify({ password: user.password })), 400],
      ['missing password', json(JSON.stringify({ email: user.email })), 400],
      ['numeric password', json(JSON.stringify({ email: user.email, password: 12345678901234 })), 400],
      ['array email', json(JSON.stringify({ email: [user.email], password: user.password })), 400],
      ['null body', json('null'), 400],
      ['array body', json(JSON.stringify([user.email, user.password])), 400],
      ['malformed JSON', json(`{"email": "${user.email}", "password": `), 400],
      ['empty body', json(''), 400],
      [
        'form-encoded body',
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ email: user.email, password: user.password }).toString(),
        },
        415,
      ],
      [
        'text/plain JSON',
        { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ email: user.email, password: user.password }) },
        415,
      ],
      ['no explicit Content-Type (fetch sends text/plain)', { method: 'POST', body: JSON.stringify({ email: user.email, password: user.password }) }, 415],
    ];
    for (const [what, init, status] of cases) {
      const res = await h.request('/auth/login', init);
      expect(res.status, what).toBe(status);
      const body = (await res.json()) as { error?: unknown };
      expect(Object.keys(body), what).toEqual(['error']);
      expect(typeof body.error, what).toBe('string');
      expect(res.headers.getSetCookie(), what).toEqual([]);
    }
    expect(await sessionsOf(user.userId)).toEqual([]);
    // The same credentials in a proper body still work.
    expect((await browser().login(user.email, user.password)).status).toBe(200);
  });

  it('D10: the logs hold request lines but never a session cookie value or a password', async () => {
    expect(h.logs.some((line) => line.event === 'request' && line.fields.path === '/auth/login')).toBe(true);
    expect(seenCookies.size).toBeGreaterThan(10);
    expect(passwords.size).toBeGreaterThan(10);
    const serialized = JSON.stringify(h.logs);
    for (const cookie of seenCookies) expect(serialized).not.toContain(cookie);
    for (const password of passwords) expect(serialized).not.toContain(password);
  });
});
