import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { SoftwareAuthenticator } from './authenticator';
import type { Harness } from './harness';

/**
 * One browser profile talking to the API: it keeps the `lg_session` cookie the way a browser
 * does (replaced by each Set-Cookie, dropped when the server expires it) and sends it back.
 */
export class Browser {
  session: string | undefined;
  /** The raw Set-Cookie of the last response that set lg_session, for attribute checks. */
  lastSetCookie: string | undefined;

  /** Anything that answers API requests: a harness's app, or real servers over HTTP. */
  constructor(private readonly h: Pick<Harness, 'request'>) {}

  async request(path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.session) headers.set('cookie', `lg_session=${this.session}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    const res = await this.h.request(path, { ...init, headers, body });
    for (const line of res.headers.getSetCookie()) {
      // The cookie's own name=value pair is the text before the first ';' (RFC 6265 §4.1.1).
      const pair = line.split(';', 1)[0]!;
      const eq = pair.indexOf('=');
      if (pair.slice(0, eq) !== 'lg_session') continue;
      this.lastSetCookie = line;
      const value = pair.slice(eq + 1);
      this.session = value === '' || /max-age=0\b/i.test(line) ? undefined : value;
    }
    return res;
  }

  post(path: string, json?: unknown): Promise<Response> {
    return this.request(path, { method: 'POST', json });
  }

  async login(email: string, password: string): Promise<Response> {
    return this.post('/auth/login', { email, password });
  }

  async registerBegin(): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const res = await this.post('/auth/webauthn/register/begin');
    expect(res.status, 'register/begin').toBe(200);
    return (await res.json()) as PublicKeyCredentialCreationOptionsJSON;
  }

  async authBegin(): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const res = await this.post('/auth/webauthn/auth/begin');
    expect(res.status, 'auth/begin').toBe(200);
    return (await res.json()) as PublicKeyCredentialRequestOptionsJSON;
  }

  /** Register ceremony end to end; returns the finish response. */
  async enrol(authenticator: SoftwareAuthenticator, name?: string): Promise<Response> {
    const options = await this.registerBegin();
    return this.post('/auth/webauthn/register/finish', { ...authenticator.register(options), name });
  }

  /** Authentication ceremony end to end; returns the finish response. */
  async assert(authenticator: SoftwareAuthenticator): Promise<Response> {
    const options = await this.authBegin();
    return this.post('/auth/webauthn/auth/finish', authenticator.authenticate(options));
  }

  /**
   * An authorization code approved from this full session (only approve mints codes, spec: OAuth
   * routes), for `ledger-cli` unless told otherwise, with the PKCE verifier that redeems it.
   */
  async approveCode(redirectUri: string, resource: string, clientId = 'ledger-cli'): Promise<{ code: string; verifier: string }> {
    const verifier = randomBytes(32).toString('base64url');
    const res = await this.post('/oauth/authorize/approve', {
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource,
      approve: true,
    });
    expect(res.status, 'approve').toBe(200);
    const { redirect } = (await res.json()) as { redirect: string };
    return { code: new URL(redirect).searchParams.get('code')!, verifier };
  }

  /** Password, then the passkey (enrolling it first when the account has none): a full session. */
  async signIn(email: string, password: string, authenticator: SoftwareAuthenticator): Promise<void> {
    const login = await this.login(email, password);
    expect(login.status, 'login').toBe(200);
    const { has_passkeys } = (await login.json()) as { has_passkeys: boolean };
    const finish = has_passkeys ? await this.assert(authenticator) : await this.enrol(authenticator);
    expect(finish.status, 'webauthn finish').toBe(200);
  }
}

/** A new user with a minted bearer token and a full session in `browser` (password, then the first passkey). */
export interface SignedInPerson {
  email: string;
  password: string;
  userId: number;
  /** The minted bearer token of h.userWithToken (ledger-cli, label null, 1 day). */
  token: string;
  browser: Browser;
  authenticator: SoftwareAuthenticator;
}

export async function signInNewPerson(h: Harness, email: string, password: string): Promise<SignedInPerson> {
  const { userId, token } = await h.userWithToken(email, password);
  const authenticator = new SoftwareAuthenticator();
  const browser = new Browser(h);
  await browser.signIn(email, password, authenticator);
  return { email, password, userId, token, browser, authenticator };
}
