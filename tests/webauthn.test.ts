import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { asc, eq, sql } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { passkeys, sessions } from '../src/db/schema';
import { createApp } from '../src/http/app';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { describeEachDatabase, TEST_ENV } from './support/harness';
import { CHALLENGE, expectAuthenticationRequired, sha256Hex } from './support/http';

// Spec: Login and second factor, rules 2-4; Session state table (elevation); D3 (route shapes,
// challenges, errors); error rule 4 (401 body and WWW-Authenticate).

const SLACK = 5_000;

const REGISTER_BEGIN = '/auth/webauthn/register/begin';
const REGISTER_FINISH = '/auth/webauthn/register/finish';
const AUTH_BEGIN = '/auth/webauthn/auth/begin';
const AUTH_FINISH = '/auth/webauthn/auth/finish';

/** A refusal in the `{error}` shape with the given status. */
async function expectRefused(res: Response, status: number, what: string): Promise<void> {
  expect(res.status, what).toBe(status);
  const body = (await res.json()) as Record<string, unknown>;
  expect(Object.keys(body), what).toEqual(['error']);
  expect(typeof body.error, what).toBe('string');
  expect(res.headers.getSetCookie(), `${what}: no new cookie`).toEqual([]);
}

/** Flips one bit in a base64url value. */
function tamper(value: string, index = 10): string {
  const bytes = Buffer.from(value, 'base64url');
  bytes[index % bytes.length]! ^= 0x01;
  return bytes.toString('base64url');
}

describeEachDatabase('WebAuthn routes (D3; Login and second factor rules 2-4)', (h) => {
  let serial = 0;

  async function newUser(label: string) {
    serial += 1;
    const email = `${label}-${serial}@webauthn.example`;
    const password = `webauthn pw ${label} ${serial}`;
    const { userId } = await h.userWithToken(email, password);
    return { email, password, userId };
  }

  type User = Awaited<ReturnType<typeof newUser>>;

  async function halfSession(user: User): Promise<Browser> {
    const b = new Browser(h);
    const res = await b.login(user.email, user.password);
    expect(res.status, 'login').toBe(200);
    return b;
  }

  async function fullSession(user: User, key: SoftwareAuthenticator): Promise<Browser> {
    const b = new Browser(h);
    await b.signIn(user.email, user.password, key);
    return b;
  }

  /** A user whose first passkey `key` is enrolled (by another browser, now forgotten). */
  async function userWithPasskey(label: string, key = new SoftwareAuthenticator()) {
    const user = await newUser(label);
    await fullSession(user, key);
    return { ...user, key };
  }

  function passkeysOf(userId: number) {
    return h.db.select().from(passkeys).where(eq(passkeys.userId, userId)).orderBy(asc(passkeys.id));
  }

  async function sessionRow(cookie: string) {
    const [row] = await h.db.select().from(sessions).where(eq(sessions.idHash, sha256Hex(cookie)));
    return row;
  }

  /** The browser's session is still half: same cookie, mfa_complete false, full routes 401. */
  async function expectStillHalf(b: Browser, cookie: string): Promise<void> {
    expect(b.session).toBe(cookie);
    expect((await sessionRow(cookie))?.mfaComplete).toBe(false);
    await expectAuthenticationRequired(await b.request('/auth/me'), 'GET /auth/me with the half-session');
  }

  it('error rule 4: without a session (none, unknown, malformed or bearer-only) all four WebAuthn routes answer 401 {error:"authentication required"} with WWW-Authenticate', async () => {
    const user = await newUser('nosession');
    const { token } = await h.userWithToken(`bearer-${serial}@webauthn.example`);
    const key = new SoftwareAuthenticator();
    const bodies: Record<string, unknown> = {
      [REGISTER_BEGIN]: undefined,
      [REGISTER_FINISH]: key.register({
        challenge: 'AAAA',
        rp: { id: 'localhost', name: 'Ledger' },
        user: { id: 'AAAA', name: user.email, displayName: '' },
        pubKeyCredParams: [{ alg: -7, type: 'public-key' }],
      }),
      [AUTH_BEGIN]: undefined,
      [AUTH_FINISH]: key.authenticate({ challenge: 'AAAA', rpId: 'localhost' }),
    };
    const credentials: [string, Record<string, string>][] = [
      ['no credential', {}],
      ['unknown cookie', { cookie: `lg_session=${randomBytes(32).toString('base64url')}` }],
      ['malformed cookie', { cookie: 'lg_session=abc' }],
      ['bearer token only', { authorization: `Bearer ${token}` }],
    ];
    for (const [what, headers] of credentials) {
      for (const [path, body] of Object.entries(bodies)) {
        const res = await h.request(path, {
          method: 'POST',
          headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        await expectAuthenticationRequired(res, `${what}: POST ${path}`);
      }
    }
    expect(await passkeysOf(user.userId)).toEqual([]);
  });

  it('D3 register/begin: creation options with a challenge, rp {id "localhost", name}, user.name = email, an opaque user.id, attestation none, residentKey and userVerification required, no excludeCredentials yet', async () => {
    const user = await newUser('regopts');
    const b = await halfSession(user);
    const res = await b.post(REGISTER_BEGIN);
    expect(res.status).toBe(200);
    const options = (await res.json()) as PublicKeyCredentialCreationOptionsJSON;

    expect(options.challenge).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    expect(options.rp).toEqual({ id: 'localhost', name: 'Ledger' });
    expect(options.user.name).toBe(user.email);
    expect(options.user.id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(options.user.id).not.toBe(user.email);
    expect(Buffer.from(options.user.id, 'base64url').toString('utf8')).not.toContain(user.email);
    expect(options.attestation).toBe('none');
    expect(options.authenticatorSelection?.residentKey).toBe('required');
    expect(options.authenticatorSelection?.userVerification).toBe('required');
    expect(options.excludeCredentials ?? []).toEqual([]);
    expect(options.pubKeyCredParams.map((p) => p.alg)).toContain(-7);

    // D3: the challenge lives server-side, bound to this session, for 5 minutes.
    const row = await sessionRow(b.session!);
    expect(row?.challenge).toBe(options.challenge);
    expect(row?.challengePurpose).toBe('register');
    expect(row!.challengeExpiresAt!.getTime()).toBeGreaterThan(Date.now() + 5 * 60_000 - SLACK);
    expect(row!.challengeExpiresAt!.getTime()).toBeLessThan(Date.now() + 5 * 60_000 + SLACK);

    // A fresh challenge each time; the same opaque user handle for the same account.
    const again = await b.registerBegin();
    expect(again.challenge).not.toBe(options.challenge);
    expect(again.user.id).toBe(options.user.id);
    const other = await halfSession(await newUser('regopts-other'));
    expect((await other.registerBegin()).user.id).not.toBe(options.user.id);
  });

  it('D3 register/finish: 200 exactly {"mfa_complete":true}; the passkey is stored under the given name, and a full session can add a second one (count 2) named "Passkey 2" by default; excludeCredentials then lists both', async () => {
    const user = await newUser('regfinish');
    const first = new SoftwareAuthenticator();
    const b = await halfSession(user);
    const finish = await b.enrol(first, '  Work laptop  ');
    expect(finish.status).toBe(200);
    expect(await finish.text()).toBe('{"mfa_complete":true}');
    let stored = await passkeysOf(user.userId);
    expect(stored.map((p) => [p.credentialId, p.name])).toEqual([[first.id, 'Work laptop']]);

    // From the full session: excludeCredentials lists the enrolled passkey; a second one is allowed.
    const options = await b.registerBegin();
    expect(options.excludeCredentials?.map((c) => c.id)).toEqual([first.id]);
    expect(options.excludeCredentials?.every((c) => c.type === 'public-key')).toBe(true);
    const second = new SoftwareAuthenticator();
    const res = await b.post(REGISTER_FINISH, second.register(options));
    expect(res.status).toBe(200);
    expect(await res.json()).toStrictEqual({ mfa_complete: true });
    stored = await passkeysOf(user.userId);
    expect(stored.map((p) => [p.credentialId, p.name])).toEqual([
      [first.id, 'Work laptop'],
      [second.id, 'Passkey 2'],
    ]);

    const third = await b.registerBegin();
    expect(third.excludeCredentials?.map((c) => c.id)).toEqual([first.id, second.id]);
  });

  it('register/finish without a name stores the first passkey as "Passkey 1"', async () => {
    const user = await newUser('defaultname');
    const b = await halfSession(user);
    expect((await b.enrol(new SoftwareAuthenticator())).status).toBe(200);
    expect((await passkeysOf(user.userId)).map((p) => p.name)).toEqual(['Passkey 1']);
  });

  it('register/finish refuses a passkey name with a text-direction control character or line separator (400, clear message); nothing stored, the ceremony can still finish', async () => {
    const user = await newUser('bidiname');
    const b = await halfSession(user);
    const cookie = b.session!;
    const key = new SoftwareAuthenticator();
    const response = key.register(await b.registerBegin());
    for (const hex of ['202A', '202B', '202C', '202D', '202E', '2066', '2067', '2068', '2069', '200E', '200F', '061C', '2028', '2029']) {
      const ch = String.fromCodePoint(Number.parseInt(hex, 16));
      const res = await b.post(REGISTER_FINISH, { ...response, name: `Work ${ch}potpal` });
      expect(res.status, `U+${hex}`).toBe(400);
      expect(await res.json(), `U+${hex}`).toEqual({ error: 'name must not contain text-direction control characters or line separators' });
    }
    const nul = await b.post(REGISTER_FINISH, { ...response, name: 'Work\u0000laptop' });
    expect(nul.status).toBe(400);
    expect(await nul.json()).toEqual({ error: 'name must not contain control characters' });
    expect(await passkeysOf(user.userId)).toEqual([]);
    await expectStillHalf(b, cookie);
    // The refusals spent nothing: the same ceremony finishes with a plain name.
    expect((await b.post(REGISTER_FINISH, { ...response, name: 'Work laptop' })).status).toBe(200);
    expect((await passkeysOf(user.userId)).map((p) => p.name)).toEqual(['Work laptop']);
  });

  it('rule 3 (register/begin): a half-session of an account that already has a passkey gets 403 {error}; no challenge is stored and the session stays half', async () => {
    const user = await userWithPasskey('gatebegin');
    const b = await halfSession(user);
    const cookie = b.session!;
    await expectRefused(await b.post(REGISTER_BEGIN), 403, 'register/begin');
    const row = await sessionRow(cookie);
    expect(row?.challenge).toBeNull();
    await expectStillHalf(b, cookie);
    expect(await passkeysOf(user.userId)).toHaveLength(1);
  });

  it('rule 3 (register/finish): a half-session that began while the account had no passkey is refused 403 at finish once another browser enrolled the first one; count stays 1', async () => {
    const user = await newUser('gatefinish');
    const a = await halfSession(user);
    const aCookie = a.session!;
    const aOptions = await a.registerBegin();

    const b = await halfSession(user);
    const winner = new SoftwareAuthenticator();
    expect((await b.enrol(winner)).status).toBe(200);

    const late = new SoftwareAuthenticator();
    await expectRefused(await a.post(REGISTER_FINISH, late.register(aOptions)), 403, 'register/finish of A');
    const stored = await passkeysOf(user.userId);
    expect(stored.map((p) => p.credentialId)).toEqual([winner.id]);
    await expectStillHalf(a, aCookie);
  });

  it('D3 challenges are single-use (registration): replaying a finish body, or answering the consumed challenge with another authenticator, is 400', async () => {
    const user = await userWithPasskey('oncereg');
    const b = await fullSession(user, user.key);
    const options = await b.registerBegin();
    const second = new SoftwareAuthenticator();
    const body = second.register(options);
    expect((await b.post(REGISTER_FINISH, body)).status).toBe(200);

    await expectRefused(await b.post(REGISTER_FINISH, body), 400, 'replayed finish');
    const third = new SoftwareAuthenticator();
    await expectRefused(await b.post(REGISTER_FINISH, third.register(options)), 400, 'consumed challenge, new authenticator');
    expect((await passkeysOf(user.userId)).map((p) => p.credentialId)).toEqual([user.key.id, second.id]);

    // Control: with a new challenge the third authenticator is accepted.
    expect((await b.enrol(third)).status).toBe(200);
  });

  it('D3 challenges are single-use (authentication): replaying a finish body is 400 even for an authenticator whose counter stays 0', async () => {
    const user = await userWithPasskey('onceauth');
    const b = await halfSession(user);
    const options = await b.authBegin();
    const body = user.key.authenticate(options, { counter: 0 });
    expect((await b.post(AUTH_FINISH, body)).status).toBe(200);
    const full = b.session!;

    await expectRefused(await b.post(AUTH_FINISH, body), 400, 'replayed auth finish');
    expect(b.session).toBe(full);

    // Control: the same counter over a new challenge is accepted, so the refusal was the challenge's.
    const next = await b.authBegin();
    expect((await b.post(AUTH_FINISH, user.key.authenticate(next, { counter: 0 }))).status).toBe(200);
  });

  it('D3 challenges are bound to the session (registration): a response to browser A\'s challenge is 400 in browser B of the same user, and still good in A', async () => {
    const user = await newUser('boundreg');
    const a = await halfSession(user);
    const b = await halfSession(user);
    const bCookie = b.session!;
    const aOptions = await a.registerBegin();
    await b.registerBegin();
    const key = new SoftwareAuthenticator();
    const response = key.register(aOptions);

    await expectRefused(await b.post(REGISTER_FINISH, response), 400, 'A\'s response in B');
    expect(await passkeysOf(user.userId)).toEqual([]);
    await expectStillHalf(b, bCookie);

    expect((await a.post(REGISTER_FINISH, response)).status).toBe(200);
    expect((await passkeysOf(user.userId)).map((p) => p.credentialId)).toEqual([key.id]);
  });

  it('D3 challenges are bound to the session (authentication): a response to browser A\'s challenge is 400 in browser B (with or without its own challenge), and still good in A', async () => {
    const user = await userWithPasskey('boundauth');
    const a = await halfSession(user);
    const b = await halfSession(user);
    const bCookie = b.session!;
    const aOptions = await a.authBegin();
    const response = user.key.authenticate(aOptions);

    await expectRefused(await b.post(AUTH_FINISH, response), 400, 'no challenge in B');
    await b.authBegin();
    await expectRefused(await b.post(AUTH_FINISH, response), 400, 'B\'s own challenge outstanding');
    await expectStillHalf(b, bCookie);

    expect((await a.post(AUTH_FINISH, response)).status).toBe(200);
    expect((await a.request('/auth/me')).status).toBe(200);
  });

  it('D3 challenges expire after 5 minutes: with challenge_expires_at in the past, register/finish and auth/finish are 400 and nothing is elevated', async () => {
    const expireChallenge = async (cookie: string) => {
      const updated = await h.db
        .update(sessions)
        .set({ challengeExpiresAt: sql`now() - interval '1 second'` })
        .where(eq(sessions.idHash, sha256Hex(cookie)))
        .returning({ idHash: sessions.idHash });
      expect(updated).toHaveLength(1);
    };

    const fresh = await newUser('oldreg');
    const r = await halfSession(fresh);
    const rCookie = r.session!;
    const regOptions = await r.registerBegin();
    await expireChallenge(rCookie);
    await expectRefused(await r.post(REGISTER_FINISH, new SoftwareAuthenticator().register(regOptions)), 400, 'stale register');
    expect(await passkeysOf(fresh.userId)).toEqual([]);
    await expectStillHalf(r, rCookie);

    const user = await userWithPasskey('oldauth');
    const a = await halfSession(user);
    const aCookie = a.session!;
    const authOptions = await a.authBegin();
    await expireChallenge(aCookie);
    await expectRefused(await a.post(AUTH_FINISH, user.key.authenticate(authOptions)), 400, 'stale auth');
    await expectStillHalf(a, aCookie);

    // Control: a new challenge works.
    expect((await a.assert(user.key)).status).toBe(200);
  });

  it('D3 challenges are purpose-bound: a registration challenge cannot finish an authentication, nor an authentication challenge a registration', async () => {
    const user = await userWithPasskey('purpose');
    const b = await fullSession(user, user.key);
    const full = b.session!;

    const regOptions = await b.registerBegin();
    const assertion = user.key.authenticate({ challenge: regOptions.challenge, rpId: 'localhost' });
    await expectRefused(await b.post(AUTH_FINISH, assertion), 400, 'register challenge on auth/finish');
    expect(b.session).toBe(full);

    const authOptions = await b.authBegin();
    const newcomer = new SoftwareAuthenticator();
    const registration = newcomer.register({ ...regOptions, challenge: authOptions.challenge });
    await expectRefused(await b.post(REGISTER_FINISH, registration), 400, 'auth challenge on register/finish');
    expect((await passkeysOf(user.userId)).map((p) => p.credentialId)).toEqual([user.key.id]);
  });

  it('rule 4 / D3: a registration without user verification is 400; nothing is stored and the session stays half', async () => {
    const user = await newUser('noUVreg');
    const b = await halfSession(user);
    const cookie = b.session!;
    const options = await b.registerBegin();
    await expectRefused(
      await b.post(REGISTER_FINISH, new SoftwareAuthenticator().register(options, { userVerified: false })),
      400,
      'register without UV',
    );
    expect(await passkeysOf(user.userId)).toEqual([]);
    await expectStillHalf(b, cookie);
  });

  it('rule 4: an authentication without user verification is 400; the session stays half and the stored counter is unchanged', async () => {
    const user = await userWithPasskey('noUVauth');
    const [before] = await passkeysOf(user.userId);
    const b = await halfSession(user);
    const cookie = b.session!;
    const options = await b.authBegin();
    await expectRefused(
      await b.post(AUTH_FINISH, user.key.authenticate(options, { userVerified: false, counter: 9 })),
      400,
      'auth without UV',
    );
    await expectStillHalf(b, cookie);
    await expectAuthenticationRequired(await b.request('/accounts'), 'GET /accounts');
    const [after] = await passkeysOf(user.userId);
    expect(after?.counter).toBe(before?.counter);
    expect(after?.lastUsedAt).toEqual(before?.lastUsedAt);
  });

  it('rule 4 counter: after an assertion with counter 5, counter 5 again is 400, 3 is 400, 6 is 200 (stored counter 5 then 6)', async () => {
    const user = await userWithPasskey('counter');
    const attempt = async (counter: number) => {
      const b = await halfSession(user);
      const cookie = b.session!;
      const options = await b.authBegin();
      const res = await b.post(AUTH_FINISH, user.key.authenticate(options, { counter }));
      return { b, cookie, res };
    };
    const storedCounter = async () => (await passkeysOf(user.userId))[0]?.counter;

    const five = await attempt(5);
    expect(five.res.status).toBe(200);
    expect(await storedCounter()).toBe(5);

    for (const counter of [5, 3, 0]) {
      const { b, cookie, res } = await attempt(counter);
      await expectRefused(res, 400, `counter ${counter} after 5`);
      await expectStillHalf(b, cookie);
      expect(await storedCounter()).toBe(5);
    }

    const six = await attempt(6);
    expect(six.res.status).toBe(200);
    expect(await six.res.json()).toStrictEqual({ mfa_complete: true });
    expect(await storedCounter()).toBe(6);
  });

  it('rule 4 counter: an authenticator whose counter is always 0 is accepted repeatedly ("stays equal after having been nonzero" only)', async () => {
    const user = await userWithPasskey('zero');
    for (let i = 0; i < 3; i++) {
      const b = await halfSession(user);
      const options = await b.authBegin();
      const res = await b.post(AUTH_FINISH, user.key.authenticate(options, { counter: 0 }));
      expect(res.status, `assertion ${i + 1}`).toBe(200);
      expect((await b.request('/auth/me')).status).toBe(200);
    }
    expect((await passkeysOf(user.userId))[0]?.counter).toBe(0);
  });

  it('D3: a clientData origin other than WEB_ORIGIN is 400, for registration and for authentication', async () => {
    const user = await newUser('origin');
    const b = await halfSession(user);
    const cookie = b.session!;
    const key = new SoftwareAuthenticator();
    const options = await b.registerBegin();
    await expectRefused(
      await b.post(REGISTER_FINISH, key.register(options, { origin: 'https://evil.example' })),
      400,
      'register from evil origin',
    );
    expect(await passkeysOf(user.userId)).toEqual([]);
    await expectStillHalf(b, cookie);

    const enrolled = await userWithPasskey('origin-auth');
    const a = await halfSession(enrolled);
    const aCookie = a.session!;
    const authOptions = await a.authBegin();
    await expectRefused(
      await a.post(AUTH_FINISH, enrolled.key.authenticate(authOptions, { origin: 'https://evil.example' })),
      400,
      'auth from evil origin',
    );
    await expectStillHalf(a, aCookie);
    // The API's own origin is not the web app's either.
    const again = await a.authBegin();
    await expectRefused(
      await a.post(AUTH_FINISH, enrolled.key.authenticate(again, { origin: 'http://localhost:38081' })),
      400,
      'auth from the API origin',
    );
    await expectStillHalf(a, aCookie);
  });

  it('D3: an unknown credential (never enrolled) and another user\'s passkey are 400 on auth/finish; the session stays half', async () => {
    const user = await userWithPasskey('mine');
    const stranger = await userWithPasskey('theirs');
    const b = await halfSession(user);
    const cookie = b.session!;

    const unknown = new SoftwareAuthenticator();
    await expectRefused(await b.post(AUTH_FINISH, unknown.authenticate(await b.authBegin())), 400, 'unknown credential');
    await expectStillHalf(b, cookie);

    await expectRefused(await b.post(AUTH_FINISH, stranger.key.authenticate(await b.authBegin())), 400, 'another user\'s passkey');
    await expectStillHalf(b, cookie);
    expect((await passkeysOf(stranger.userId))[0]?.lastUsedAt).toBeNull();
  });

  it('D3: a tampered signature (or tampered authenticator data) is 400; the session stays half', async () => {
    const user = await userWithPasskey('tamper');
    const b = await halfSession(user);
    const cookie = b.session!;

    const good = user.key.authenticate(await b.authBegin());
    const badSignature: AuthenticationResponseJSON = {
      ...good,
      response: { ...good.response, signature: tamper(good.response.signature, 20) },
    };
    await expectRefused(await b.post(AUTH_FINISH, badSignature), 400, 'tampered signature');
    await expectStillHalf(b, cookie);

    const good2 = user.key.authenticate(await b.authBegin());
    // Byte 33 is the high byte of the counter: the flags and the rpIdHash stay valid, the signature does not.
    const badData: AuthenticationResponseJSON = {
      ...good2,
      response: { ...good2.response, authenticatorData: tamper(good2.response.authenticatorData, 33) },
    };
    await expectRefused(await b.post(AUTH_FINISH, badData), 400, 'tampered authenticator data');
    await expectStillHalf(b, cookie);
  });

  it('D3: garbage bodies on register/finish and auth/finish are 400 {error}, never 500, and elevate nothing', async () => {
    const user = await newUser('garbage');
    const enrolled = await userWithPasskey('garbage-auth');
    const r = await halfSession(user);
    const rCookie = r.session!;
    const a = await halfSession(enrolled);
    const aCookie = a.session!;

    const goodRegistration = (options: PublicKeyCredentialCreationOptionsJSON): RegistrationResponseJSON =>
      new SoftwareAuthenticator().register(options);
    const goodAssertion = (options: PublicKeyCredentialRequestOptionsJSON) => enrolled.key.authenticate(options);

    const registrationGarbage: [string, (o: PublicKeyCredentialCreationOptionsJSON) => unknown][] = [
      ['empty object', () => ({})],
      ['missing response', (o) => ({ ...goodRegistration(o), response: undefined })],
      ['response not an object', (o) => ({ ...goodRegistration(o), response: 'abc' })],
      ['non-base64url clientDataJSON', (o) => { const g = goodRegistration(o); return { ...g, response: { ...g.response, clientDataJSON: 'not base64url!' } }; }],
      ['non-base64url id', (o) => ({ ...goodRegistration(o), id: 'a/b+c=' })],
      ['wrong type', (o) => ({ ...goodRegistration(o), type: 'password' })],
      ['garbage attestationObject', (o) => { const g = goodRegistration(o); return { ...g, response: { ...g.response, attestationObject: randomBytes(40).toString('base64url') } }; }],
      ['garbage clientDataJSON', (o) => { const g = goodRegistration(o); return { ...g, response: { ...g.response, clientDataJSON: 'AAAA' } }; }],
      ['numeric name', (o) => ({ ...goodRegistration(o), name: 42 })],
      ['an array', () => []],
      ['null', () => null],
    ];
    for (const [what, make] of registrationGarbage) {
      const options = await r.registerBegin();
      await expectRefused(await r.post(REGISTER_FINISH, make(options)), 400, `register/finish: ${what}`);
    }
    const rawRegister = await r.request(REGISTER_FINISH, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"id": ',
    });
    await expectRefused(rawRegister, 400, 'register/finish: malformed JSON');
    expect(await passkeysOf(user.userId)).toEqual([]);
    await expectStillHalf(r, rCookie);

    const authGarbage: [string, (o: PublicKeyCredentialRequestOptionsJSON) => unknown][] = [
      ['empty object', () => ({})],
      ['missing response', (o) => ({ ...goodAssertion(o), response: undefined })],
      ['non-base64url signature', (o) => { const g = goodAssertion(o); return { ...g, response: { ...g.response, signature: '***' } }; }],
      ['non-base64url authenticatorData', (o) => { const g = goodAssertion(o); return { ...g, response: { ...g.response, authenticatorData: 'a b c' } }; }],
      ['missing signature', (o) => { const g = goodAssertion(o); return { ...g, response: { ...g.response, signature: undefined } }; }],
      ['short authenticatorData', (o) => { const g = goodAssertion(o); return { ...g, response: { ...g.response, authenticatorData: 'AAAA' } }; }],
      ['garbage clientDataJSON', (o) => { const g = goodAssertion(o); return { ...g, response: { ...g.response, clientDataJSON: randomBytes(30).toString('base64url') } }; }],
      ['numeric id', (o) => ({ ...goodAssertion(o), id: 7 })],
      ['null', () => null],
    ];
    for (const [what, make] of authGarbage) {
      const options = await a.authBegin();
      await expectRefused(await a.post(AUTH_FINISH, make(options)), 400, `auth/finish: ${what}`);
    }
    const rawAuth = await a.request(AUTH_FINISH, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'nope' });
    await expectRefused(rawAuth, 400, 'auth/finish: malformed JSON');
    await expectStillHalf(a, aCookie);
    expect(h.logs.filter((line) => line.level === 'error')).toEqual([]);
  });

  it('D3 auth/begin: request options with a challenge, rpId "localhost", allowCredentials = the account\'s passkeys, userVerification required', async () => {
    const user = await userWithPasskey('authopts');
    const second = new SoftwareAuthenticator();
    const full = await fullSession(user, user.key);
    expect((await full.enrol(second)).status).toBe(200);

    const b = await halfSession(user);
    const res = await b.post(AUTH_BEGIN);
    expect(res.status).toBe(200);
    const options = (await res.json()) as PublicKeyCredentialRequestOptionsJSON;
    expect(options.challenge).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    expect(options.rpId).toBe('localhost');
    expect(options.userVerification).toBe('required');
    expect(options.allowCredentials?.map((c) => c.id)).toEqual([user.key.id, second.id]);
    expect(options.allowCredentials?.every((c) => c.type === 'public-key')).toBe(true);
    const row = await sessionRow(b.session!);
    expect(row?.challenge).toBe(options.challenge);
    expect(row?.challengePurpose).toBe('authenticate');

    // Either passkey completes the ceremony.
    expect((await b.post(AUTH_FINISH, second.authenticate(options))).status).toBe(200);
    expect((await passkeysOf(user.userId)).find((p) => p.credentialId === second.id)?.lastUsedAt).not.toBeNull();
  });

  it('D2: the relying party comes from WEB_ORIGIN — with WEB_ORIGIN=https://books.example:8443, rp.id and rpId are "books.example"; ceremonies from that origin succeed, from http://localhost:38080 (or for RP ID "localhost") they are 400', async () => {
    const config = loadConfig({ ...TEST_ENV, WEB_ORIGIN: 'https://books.example:8443' });
    const app = createApp({ db: h.db, config, log: h.log });
    const books = {
      request: (path: string, init: RequestInit = {}) => Promise.resolve(app.request(new URL(path, config.apiOrigin).href, init)),
    };
    const user = await newUser('books');
    const key = new SoftwareAuthenticator('https://books.example:8443');
    expect(key.rpId).toBe('books.example');

    const r = new Browser(books);
    expect((await r.login(user.email, user.password)).status).toBe(200);
    const half = r.session!;
    const regOptions = await r.registerBegin();
    expect(regOptions.rp).toEqual({ id: 'books.example', name: 'Ledger' });
    await expectRefused(
      await r.post(REGISTER_FINISH, key.register(regOptions, { origin: 'http://localhost:38080' })),
      400,
      'register from the default web origin',
    );
    expect(await passkeysOf(user.userId)).toEqual([]);
    expect(r.session).toBe(half);
    const enrolled = await r.enrol(key);
    expect(enrolled.status).toBe(200);
    expect(await enrolled.json()).toStrictEqual({ mfa_complete: true });
    expect((await passkeysOf(user.userId)).map((p) => p.credentialId)).toEqual([key.id]);

    const a = new Browser(books);
    expect((await a.login(user.email, user.password)).status).toBe(200);
    const aHalf = a.session!;
    const authOptions = await a.authBegin();
    expect(authOptions.rpId).toBe('books.example');
    await expectRefused(
      await a.post(AUTH_FINISH, key.authenticate(authOptions, { origin: 'http://localhost:38080' })),
      400,
      'auth from the default web origin',
    );
    const again = await a.authBegin();
    await expectRefused(await a.post(AUTH_FINISH, key.authenticate({ ...again, rpId: 'localhost' })), 400, 'auth for RP ID localhost');
    expect(a.session).toBe(aHalf);
    expect((await a.assert(key)).status).toBe(200);
    expect(a.session).not.toBe(aHalf);
    expect((await a.request('/auth/me')).status).toBe(200);
  });
});
