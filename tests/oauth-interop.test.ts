import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { addUser } from '../src/identity/users';
import { startServer, type RunningServer } from '../src/server';
import { SoftwareAuthenticator } from './support/authenticator';
import { BACKENDS, openTestDatabase, postgresAvailable, type TestDatabase } from './support/databases';
import { freePort } from './support/processes';

// Issue 3/6 item 10: the complete flows driven by an independent client library (panva's
// oauth4webapi) against the running server: discovery, dynamic registration, authorization code
// with PKCE, refresh, revocation and the device grant. The person's part (password, passkey,
// approval) goes over real HTTP too, with a cookie kept by hand.

const PASSWORD = 'an interop password';
const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** A person at a browser: keeps the lg_session cookie across real HTTP requests. */
class Person {
  private cookie = '';
  constructor(private readonly api: string) {}

  async send(path: string, init: { method?: string; json?: unknown } = {}): Promise<Response> {
    const res = await fetch(`${this.api}${path}`, {
      method: init.method ?? 'POST',
      headers: {
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(';', 1)[0]!;
      if (pair.startsWith('lg_session=')) this.cookie = pair;
    }
    return res;
  }

  /** Password, then the passkey: enrolled the first time, used afterwards. */
  async signIn(email: string, key: SoftwareAuthenticator): Promise<void> {
    const login = await this.send('/auth/login', { json: { email, password: PASSWORD } });
    expect(login.status).toBe(200);
    const { has_passkeys } = (await login.json()) as { has_passkeys: boolean };
    const step = has_passkeys ? 'auth' : 'register';
    const options = await (await this.send(`/auth/webauthn/${step}/begin`)).json();
    const response = has_passkeys ? key.authenticate(options) : key.register(options);
    expect((await this.send(`/auth/webauthn/${step}/finish`, { json: response })).status).toBe(200);
  }
}

for (const backend of BACKENDS) {
  describe.skipIf(backend === 'postgres' && !postgresAvailable())(`oauth4webapi against ledger serve [${backend}]`, () => {
    let database: TestDatabase | undefined;
    let server: RunningServer;
    let api: string;
    let as: oauth.AuthorizationServer;
    const person = () => new Person(api);
    const key = new SoftwareAuthenticator();

    beforeAll(async () => {
      const port = await freePort();
      api = `http://localhost:${port}`;
      database = await openTestDatabase(backend);
      const databaseUrl = database.url;
      await addUser(database.db, 'interop@example.com', PASSWORD);
      const config = loadConfig({ DATABASE_URL: databaseUrl, BIND_ADDR: `127.0.0.1:${port}`, WEB_BIND_ADDR: 'off', API_ORIGIN: api });
      server = await startServer(config, { info() {}, error() {} });
      const issuer = new URL(api);
      as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    }, 60_000);

    afterAll(async () => {
      await server?.stop();
      await database?.close();
    });

    it('discovery from a 401 on /mcp: WWW-Authenticate names the resource metadata (RFC 9728 §5.1), which names this authorization server (RFC 8414)', async () => {
      const refused = await oauth
        .protectedResourceRequest(
          'lg_not_a_token',
          'POST',
          new URL(`${api}/mcp`),
          new Headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' }),
          JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
          insecure,
        )
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
      const [challenge] = (refused as oauth.WWWAuthenticateChallengeError).cause;
      expect(challenge!.scheme).toBe('bearer');
      const metadataUrl = challenge!.parameters.resource_metadata!;
      expect(metadataUrl).toBe(`${api}/.well-known/oauth-protected-resource`);

      // The resource identifier is API_ORIGIN: the library's own well-known URL for it is the one
      // the challenge named, and the document's `resource` must equal it (RFC 9728 §3.3).
      const resource = new URL(api);
      const viaLibrary = await oauth.resourceDiscoveryRequest(resource, insecure);
      expect(viaLibrary.url).toBe(metadataUrl);
      const rs = await oauth.processResourceDiscoveryResponse(resource, viaLibrary);
      const named = await oauth.processResourceDiscoveryResponse(resource, await fetch(metadataUrl));
      expect(named).toEqual(rs);
      expect(rs.authorization_servers).toEqual([api]);
      expect(rs.bearer_methods_supported).toEqual(['header']);

      const issuer = new URL(rs.authorization_servers![0]!);
      const discovered = await oauth.processDiscoveryResponse(
        issuer,
        await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
      );
      expect(discovered.issuer).toBe(api);
      expect(discovered).toEqual(as);
    });

    it('discovery names every endpoint of the spec', () => {
      expect(as).toMatchObject({
        issuer: api,
        authorization_endpoint: `${api}/oauth/authorize`,
        token_endpoint: `${api}/oauth/token`,
        device_authorization_endpoint: `${api}/oauth/device_authorization`,
        registration_endpoint: `${api}/oauth/register`,
        revocation_endpoint: `${api}/oauth/revoke`,
        code_challenge_methods_supported: ['S256'],
      });
    });

    it('registration, authorization code + PKCE, a protected request, refresh, and revocation', async () => {
      const redirectUri = 'http://127.0.0.1:8765/callback';
      const client = await oauth.processDynamicClientRegistrationResponse(
        await oauth.dynamicClientRegistrationRequest(as, { client_name: 'oauth4webapi', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }, insecure),
      );
      expect(client.client_id).toMatch(/^dyn_/);
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const authorize = new URL(as.authorization_endpoint!);
      const params = {
        client_id: client.client_id,
        redirect_uri: redirectUri,
        response_type: 'code',
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        resource: `${api}/mcp`,
        state,
      };
      authorize.search = new URLSearchParams(params).toString();
      const redirect = await fetch(authorize, { redirect: 'manual' });
      expect(redirect.status).toBe(303);
      expect(redirect.headers.get('location')).toBe(`http://localhost:38080/authorize${authorize.search}`);

      const someone = person();
      await someone.signIn('interop@example.com', key);
      const approval = await someone.send('/oauth/authorize/approve', { json: { ...params, approve: true } });
      const back = new URL(((await approval.json()) as { redirect: string }).redirect);
      const callback = oauth.validateAuthResponse(as, client, back, state);

      const none = oauth.None();
      const tokens = await oauth.processAuthorizationCodeResponse(
        as,
        client,
        await oauth.authorizationCodeGrantRequest(as, client, none, callback, redirectUri, verifier, {
          additionalParameters: { resource: api },
          ...insecure,
        }),
      );
      expect(tokens.token_type).toBe('bearer');
      expect(tokens.expires_in).toBe(3600);
      const me = await oauth.protectedResourceRequest(tokens.access_token, 'GET', new URL(`${api}/auth/me`), undefined, undefined, insecure);
      expect(await me.json()).toMatchObject({ email: 'interop@example.com', via: 'bearer' });

      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, none, tokens.refresh_token!, insecure),
      );
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

      await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, none, refreshed.refresh_token!, insecure));
      // The revoked grant's access token is refused with the spec's challenge, which the library parses.
      const refused = await oauth
        .protectedResourceRequest(refreshed.access_token, 'GET', new URL(`${api}/auth/me`), undefined, undefined, insecure)
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
      const challenge = refused as oauth.WWWAuthenticateChallengeError;
      expect(challenge.response.status).toBe(401);
      expect(challenge.cause).toEqual([
        { scheme: 'bearer', parameters: { resource_metadata: `${api}/.well-known/oauth-protected-resource` } },
      ]);
    });

    it('the device grant for ledger-desktop: pending until a person approves, then tokens', async () => {
      const client: oauth.Client = { client_id: 'ledger-desktop', token_endpoint_auth_method: 'none' };
      const none = oauth.None();
      const started = await oauth.processDeviceAuthorizationResponse(
        as,
        client,
        await oauth.deviceAuthorizationRequest(as, client, none, { resource: api }, insecure),
      );
      expect(started.verification_uri).toBe('http://localhost:38080/device');
      const pending = await oauth.deviceCodeGrantRequest(as, client, none, started.device_code, insecure);
      await expect(oauth.processDeviceCodeResponse(as, client, pending)).rejects.toMatchObject({ error: 'authorization_pending' });

      const someone = person();
      await someone.signIn('interop@example.com', key);
      const decided = await someone.send('/oauth/device/approve', { json: { user_code: started.user_code, approve: true } });
      expect(decided.status).toBe(204);
      // D13: a poll less than 5 s after the previous one is slow_down, approved or not; the library
      // reads it as an OAuth error. The client then waits before polling again.
      const tooSoon = await oauth.deviceCodeGrantRequest(as, client, none, started.device_code, insecure);
      await expect(oauth.processDeviceCodeResponse(as, client, tooSoon)).rejects.toMatchObject({ error: 'slow_down' });
      await new Promise((resolve) => setTimeout(resolve, started.interval! * 1000 + 200));
      const tokens = await oauth.processDeviceCodeResponse(
        as,
        client,
        await oauth.deviceCodeGrantRequest(as, client, none, started.device_code, insecure),
      );
      expect(tokens.access_token).toMatch(/^lg_/);
    }, 60_000);
  });
}
