import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { count, eq, sql } from 'drizzle-orm';
import * as oauth from 'oauth4webapi';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizationCodes, deviceGrants, oauthClients, tokens } from '../src/db/schema';
import { createApp, type App } from '../src/http/app';
import { addUser } from '../src/identity/users';
import {
  cacheSeconds,
  ClientMetadataDocuments,
  isPublicAddress,
  parseMetadataDocumentUrl,
} from '../src/oauth/metadata-documents';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { SdkOAuthProvider } from './support/mcp-oauth';
import { BACKENDS, openTestDatabase, postgresAvailable, type TestDatabase } from './support/databases';
import { describeEachDatabase, type Harness } from './support/harness';
import { formInit, pkce, sha256Hex } from './support/http';
import { freePort, startServe, type ServeProcess } from './support/processes';
import { CHROMIUM, missingBrowserPrerequisite, STRICT_BROWSER } from './support/web-session';

// D18, Client ID Metadata Documents: an https client_id names the JSON document at that URL. A
// local https server with a certificate from a test certificate authority (made here with
// openssl) serves the documents. In process, the app's fetcher is given that authority and a
// clock; `ledger serve` as a real process trusts it through NODE_EXTRA_CA_CERTS, as an operator's
// would, with CIMD_ALLOW_PRIVATE_ADDRESSES=1 (the test server is on loopback, which D18 refuses
// otherwise).

const API = 'http://localhost:38081';
const PASSWORD = 'a metadata document password';
const REDIRECT = 'http://127.0.0.1:8765/callback';
const OTHER_REDIRECT = 'http://127.0.0.1:8765/other';
const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';

// ------------------------------------------------------------------ the test certificate authority

interface Certificates {
  dir: string;
  /** The authority's certificate (PEM) and its file, for NODE_EXTRA_CA_CERTS. */
  ca: string;
  caFile: string;
  key: string;
  cert: string;
}

/** A throw-away authority and a certificate it signed for localhost, 127.0.0.1 and ::1. */
function makeCertificates(): Certificates {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ledger-cimd-'));
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Ledger test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  writeFileSync(
    path.join(dir, 'server.ext'),
    'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n',
  );
  openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', '1', '-days', '2',
    '-out', 'server.pem', '-extfile', 'server.ext');
  const read = (name: string) => readFileSync(path.join(dir, name), 'utf8');
  return { dir, ca: read('ca.pem'), caFile: path.join(dir, 'ca.pem'), key: read('server.key'), cert: read('server.pem') };
}

// ------------------------------------------------------------------ the documents' https server

interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Waits this long before answering at all. */
  delayMs?: number;
}

/** Serves a set answer per path over https on 127.0.0.1 and counts the requests of each path. */
class DocumentServer {
  readonly answers = new Map<string, Answer>();
  readonly hits = new Map<string, number>();
  origin = '';
  readonly #server: Server;

  constructor(certificates: Certificates) {
    this.#server = createServer({ key: certificates.key, cert: certificates.cert }, (req, res) => {
      const at = req.url ?? '/';
      this.hits.set(at, (this.hits.get(at) ?? 0) + 1);
      const answer = this.answers.get(at) ?? { status: 404, body: 'no such document' };
      res.on('error', () => {});
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status ?? 200, answer.headers ?? {});
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.origin = `https://localhost:${(this.#server.address() as AddressInfo).port}`;
  }

  url(at: string): string {
    return `${this.origin}${at}`;
  }

  /** Serves a client metadata document at `at` (client_id = its own URL unless overridden). */
  document(at: string, fields: Record<string, unknown> = {}, headers: Record<string, string> = {}): string {
    const url = this.url(at);
    const body = JSON.stringify({ client_id: url, client_name: 'Pocket Assistant', redirect_uris: [REDIRECT], ...fields });
    this.answers.set(at, { headers: { 'content-type': 'application/json', ...headers }, body });
    return url;
  }

  hitsOf(url: string): number {
    return this.hits.get(new URL(url).pathname) ?? 0;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

let certificates: Certificates;
let documents: DocumentServer;

beforeAll(async () => {
  certificates = makeCertificates();
  documents = new DocumentServer(certificates);
  await documents.listen();
});

afterAll(async () => {
  await documents?.close();
  if (certificates) rmSync(certificates.dir, { recursive: true, force: true });
});

// ------------------------------------------------------------------ helpers

/** D18: a refusal is 401 invalid_client in the OAuth shape, never a redirect, never cached. */
async function expectInvalidClient(res: Response, what: string, description?: RegExp): Promise<void> {
  const text = await res.text();
  expect(res.status, `${what}: ${text}`).toBe(401);
  expect(res.headers.get('location'), what).toBeNull();
  expect(res.headers.get('cache-control'), what).toBe('no-store');
  const body = JSON.parse(text) as Record<string, string>;
  expect(body, what).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
  if (description) expect(body.error_description, what).toMatch(description);
}

function authorizeParams(clientId: string, redirectUri = REDIRECT, resource = API) {
  const { verifier, challenge } = pkce();
  const params = {
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource,
    state: 'st-cimd',
  };
  return { params, verifier, query: new URLSearchParams(params).toString() };
}

describe('metadata-document rules that need no server (D18)', () => {
  it('isPublicAddress: refuses private, loopback, link-local, CGNAT, multicast, reserved and mapped forms; accepts public unicast', () => {
    for (const address of [
      '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '127.0.0.1', '127.255.0.9', '169.254.169.254', '0.0.0.0',
      '0.1.2.3', '100.64.0.1', '100.127.255.254', '224.0.0.1', '239.1.1.1', '240.0.0.1', '255.255.255.255', '192.0.2.10',
      '198.18.0.1', '198.51.100.7', '203.0.113.9', '192.0.0.8',
      '::1', '::', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1',
      '::ffff:10.0.0.1', '::ffff:a9fe:a9fe', '64:ff9b::a00:1', '2001:db8::1', '2002:a00:1::1', '2001::1', '::127.0.0.1',
      '[::1]', 'not an address', '',
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '192.169.0.1', '2606:4700::1111', '2a00:1450:4001::200e', '::ffff:93.184.216.34']) {
      expect(isPublicAddress(address), address).toBe(true);
    }
  });

  it('client_id URLs: https, a path, no fragment, user info or dot segments, the parser\'s own spelling, at most 255 characters', () => {
    expect(parseMetadataDocumentUrl('https://app.example/oauth/client.json').host).toBe('app.example');
    expect(parseMetadataDocumentUrl('https://app.example:8443/c?v=1').port).toBe('8443');
    for (const bad of [
      'http://app.example/client.json',
      'https://app.example',
      'https://app.example/',
      'https://app.example/client.json#frag',
      'https://app.example/client.json#',
      'https://user@app.example/client.json',
      'https://user:pw@app.example/client.json',
      'https://app.example/a/../client.json',
      'https://app.example/./client.json',
      'https://app.example/a/%2e%2e/client.json',
      'https://App.Example/client.json',
      'https://app.example:443/client.json',
      'HTTPS://app.example/client.json',
      'https://app.example/client json',
      'https://app.example/clïent',
      `https://app.example/${'a'.repeat(240)}`,
    ]) {
      expect(() => parseMetadataDocumentUrl(bad), bad).toThrow();
    }
  });

  it('cache lifetimes: Cache-Control max-age clamped to [60 s, 24 h]; no-store and no-cache the minimum; none 1 hour', () => {
    expect(cacheSeconds(undefined)).toBe(3600);
    expect(cacheSeconds('public')).toBe(3600);
    expect(cacheSeconds('max-age=600')).toBe(600);
    expect(cacheSeconds('public, max-age=120')).toBe(120);
    expect(cacheSeconds('max-age=5')).toBe(60);
    expect(cacheSeconds('max-age=0')).toBe(60);
    expect(cacheSeconds('max-age=999999')).toBe(86_400);
    expect(cacheSeconds('no-store')).toBe(60);
    expect(cacheSeconds('no-cache, max-age=3600')).toBe(60);
  });
});

describeEachDatabase('Client ID Metadata Documents, in process (D18)', (h) => {
  /** How far the cache's clock is ahead of real time (the database's clock is not moved). */
  let ahead = 0;
  let app: App;
  let person: Browser;
  let bearer: string;
  const request = (at: string, init?: RequestInit) => Promise.resolve(app.request(new URL(at, API).href, init));

  beforeAll(async () => {
    const clientMetadata = new ClientMetadataDocuments({
      allowPrivateAddresses: true,
      ca: certificates.ca,
      timeoutMs: 1_000,
      log: h.log,
      now: () => Date.now() + ahead,
    });
    app = createApp({ db: h.db, config: h.config, log: h.log, clientMetadata });
    ({ token: bearer } = await h.userWithToken('cimd@example.com', PASSWORD));
    person = new Browser({ request });
    await person.signIn('cimd@example.com', PASSWORD, new SoftwareAuthenticator());
  });

  const clientInfo = (clientId: string) =>
    request(`/oauth/client_info?client_id=${encodeURIComponent(clientId)}`, { headers: { authorization: `Bearer ${bearer}` } });

  /** An approved code for `clientId` (the person's full session), with its verifier. */
  async function approve(clientId: string, redirectUri = REDIRECT) {
    const { params, verifier } = authorizeParams(clientId, redirectUri);
    const res = await person.post('/oauth/authorize/approve', { ...params, approve: true });
    expect(res.status, 'approve').toBe(200);
    const { redirect } = (await res.json()) as { redirect: string };
    return { code: new URL(redirect).searchParams.get('code')!, verifier };
  }

  const redeem = (clientId: string, code: string, verifier: string, redirectUri = REDIRECT) =>
    request('/oauth/token', formInit({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier }));

  it('discovery: the authorization-server metadata says client_id_metadata_document_supported: true', async () => {
    const res = await request('/.well-known/oauth-authorization-server');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ client_id_metadata_document_supported: true });
  });

  it('a full authorization code + PKCE grant with the document URL as client_id, then refresh rotation, the connection, and revocation', async () => {
    const url = documents.document(`/${h.backend}/clients/full.json`, { client_name: 'Pocket Assistant' });
    const { query } = authorizeParams(url);
    const authorize = await request(`/oauth/authorize?${query}`);
    expect(authorize.status).toBe(303);
    expect(authorize.headers.get('location')).toBe(`http://localhost:38080/authorize?${query}`);

    // What the consent page reads: the id is the document's URL (its host is shown), a dynamic
    // client never used (the warning).
    const info = await clientInfo(url);
    expect(info.status).toBe(200);
    expect(await info.json()).toEqual({ id: url, name: 'Pocket Assistant', dynamic: true, first_use: true, redirect_uris: [REDIRECT] });
    expect(new URL(url).host).toBe(documents.origin.replace('https://', ''));

    const { code, verifier } = await approve(url);
    const [row] = await h.db.select().from(oauthClients).where(eq(oauthClients.id, url));
    expect(row).toMatchObject({ id: url, name: 'Pocket Assistant', dynamic: true, redirectUris: [REDIRECT] });
    expect(row!.metadataUpdatedAt).toBeInstanceOf(Date);
    expect(row!.firstUsedAt).toBeInstanceOf(Date);

    const exchanged = await redeem(url, code, verifier);
    expect(exchanged.status).toBe(200);
    const pair = (await exchanged.json()) as { access_token: string; refresh_token: string };
    const me = await request('/auth/me', { headers: { authorization: `Bearer ${pair.access_token}` } });
    expect(await me.json()).toMatchObject({ email: 'cimd@example.com', via: 'bearer' });
    expect(await (await clientInfo(url)).json()).toMatchObject({ first_use: false });

    const rotated = await request('/oauth/token', formInit({ grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: url }));
    expect(rotated.status).toBe(200);
    const next = (await rotated.json()) as { access_token: string; refresh_token: string };
    expect(next.refresh_token).not.toBe(pair.refresh_token);
    // Spec: Refresh token — the retired token is refused (within the grace: nothing else happens).
    const again = await request('/oauth/token', formInit({ grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: url }));
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: 'invalid_grant' });

    // The connection lists the document's name (GET /auth/tokens joins the client row).
    const connections = (await (await person.request('/auth/tokens')).json()) as { client_id: string; client_name: string }[];
    expect(connections).toContainEqual(expect.objectContaining({ client_id: url, client_name: 'Pocket Assistant' }));

    const revoked = await request('/oauth/revoke', formInit({ token: next.refresh_token, client_id: url }));
    expect(revoked.status).toBe(200);
    const after = await request('/auth/me', { headers: { authorization: `Bearer ${next.access_token}` } });
    expect(after.status).toBe(401);
    // One fetch served every step (the cache).
    expect(documents.hitsOf(url)).toBe(1);
  });

  it('the device grant with the document URL as client_id: device_info describes it, approval, then tokens', async () => {
    const url = documents.document(`/${h.backend}/clients/device.json`, { client_name: 'Kitchen Display' });
    const started = await request('/oauth/device_authorization', formInit({ client_id: url, resource: API }));
    expect(started.status).toBe(200);
    const { device_code, user_code } = (await started.json()) as { device_code: string; user_code: string };
    const [grant] = await h.db.select().from(deviceGrants).where(eq(deviceGrants.userCode, user_code));
    expect(grant!.clientId).toBe(url);

    const info = await person.request(`/oauth/device_info?user_code=${user_code}`);
    expect(info.status).toBe(200);
    expect(await info.json()).toMatchObject({
      client: { id: url, name: 'Kitchen Display', dynamic: true, first_use: true, redirect_uris: [REDIRECT] },
    });
    expect((await person.post('/oauth/device/approve', { user_code, approve: true })).status).toBe(204);
    const polled = await request('/oauth/token', formInit({ grant_type: DEVICE, device_code, client_id: url }));
    expect(polled.status).toBe(200);
    expect(await polled.json()).toMatchObject({ access_token: expect.stringMatching(/^lg_/), token_type: 'Bearer' });
    const [row] = await h.db.select().from(tokens).where(eq(tokens.clientId, url));
    expect(row).toBeDefined();
  });

  it('names are cleaned as D13 cleans client_name; a document without one is "an unnamed client"', async () => {
    const named = documents.document(`/${h.backend}/clients/named.json`, { client_name: `\u202EBank\u2066 of ${'x'.repeat(80)}\u0007` });
    expect(await (await clientInfo(named)).json()).toMatchObject({ name: `Bank of ${'x'.repeat(52)}` });
    const unnamed = documents.document(`/${h.backend}/clients/unnamed.json`, { client_name: undefined });
    expect(await (await clientInfo(unnamed)).json()).toMatchObject({ name: 'an unnamed client' });
  });

  it('clients with a metadata document count against no cap of dynamic registrations (D18)', async () => {
    const [before] = await h.db.select({ n: count() }).from(oauthClients).where(sql`${oauthClients.metadataUpdatedAt} is not null`);
    expect(before!.n).toBeGreaterThan(0);
    const [dynamic] = await h.db.select({ n: count() }).from(oauthClients).where(sql`dynamic and metadata_updated_at is null`);
    await h.db.insert(oauthClients).values(
      Array.from({ length: 20 - 1 - dynamic!.n }, (_, i) => ({ id: `dyn_cap_${i}`, name: 'filler', dynamic: true, redirectUris: [REDIRECT] })),
    );
    const register = () =>
      request('/oauth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [REDIRECT] }) });
    expect((await register()).status, 'the 20th dynamic registration').toBe(201);
    expect((await register()).status, 'the 21st').toBe(429);
    await h.db.delete(oauthClients).where(sql`${oauthClients.id} like 'dyn_%'`);
  });

  it('a redirect_uri the document does not list is 400 invalid_request, as JSON, never a redirect to it', async () => {
    const url = documents.document(`/${h.backend}/clients/strict.json`);
    const { query, params } = authorizeParams(url, OTHER_REDIRECT);
    const res = await request(`/oauth/authorize?${query}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
    const approved = await person.post('/oauth/authorize/approve', { ...params, approve: true });
    expect(approved.status).toBe(400);
  });

  /** Every endpoint that accepts a client_id answers the refusal of `url`'s document with 401 invalid_client. */
  async function expectRefusedEverywhere(url: string, what: string, description?: RegExp): Promise<void> {
    const { params, query } = authorizeParams(url);
    await expectInvalidClient(await request(`/oauth/authorize?${query}`), `${what}: GET /oauth/authorize`, description);
    await expectInvalidClient(await person.post('/oauth/authorize/approve', { ...params, approve: true }), `${what}: approve`, description);
    await expectInvalidClient(await clientInfo(url), `${what}: client_info`, description);
    await expectInvalidClient(await request('/oauth/device_authorization', formInit({ client_id: url, resource: API })), `${what}: device_authorization`, description);
    const grants: Record<string, string>[] = [
      { grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT, client_id: url, code_verifier: 'v'.repeat(43) },
      { grant_type: 'refresh_token', refresh_token: 'lg_x', client_id: url },
      { grant_type: DEVICE, device_code: 'x', client_id: url },
    ];
    for (const grant of grants) {
      await expectInvalidClient(await request('/oauth/token', formInit(grant)), `${what}: token ${grant.grant_type}`, description);
    }
    await expectInvalidClient(await request('/oauth/revoke', formInit({ token: 'lg_x', client_id: url })), `${what}: revoke`, description);
    const [row] = await h.db.select().from(oauthClients).where(eq(oauthClients.id, url));
    expect(row, `${what}: no client row`).toBeUndefined();
    expect(h.logs.filter((l) => l.level === 'error'), `${what}: no fault`).toEqual([]);
  }

  it('refuses a document whose client_id is not its own URL', async () => {
    const url = documents.document(`/${h.backend}/clients/impostor.json`, { client_id: 'https://claude.ai/oauth/client.json' });
    await expectRefusedEverywhere(url, 'client_id mismatch', /another client_id/);
  });

  it('refuses an http client_id without fetching anything', async () => {
    const url = documents.document(`/${h.backend}/clients/plain-http.json`).replace('https://', 'http://');
    await expectRefusedEverywhere(url, 'http URL', /must be https/);
    expect(documents.hitsOf(url)).toBe(0);
  });

  it('refuses client_id URLs the draft forbids (no path, fragment, user info, dot segments), without fetching', async () => {
    for (const url of [`${documents.origin}/`, `${documents.origin}/clients/a.json#x`, `${documents.origin.replace('//', '//me@')}/clients/a.json`, `${documents.origin}/clients/../a.json`]) {
      await expectInvalidClient(await clientInfo(url), url, /not acceptable/);
    }
  });

  it('refuses a document over 5 KiB, declared (Content-Length) or streamed (chunked)', async () => {
    const declared = documents.document(`/${h.backend}/clients/large.json`, { padding: 'x'.repeat(5 * 1024) });
    await expectRefusedEverywhere(declared, 'oversized', /larger than 5 KiB/);
    const streamed = documents.url(`/${h.backend}/clients/large-chunked.json`);
    documents.answers.set(`/${h.backend}/clients/large-chunked.json`, {
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      body: JSON.stringify({ client_id: streamed, redirect_uris: [REDIRECT], padding: 'y'.repeat(6000) }),
    });
    await expectInvalidClient(await clientInfo(streamed), 'chunked', /larger than 5 KiB/);
    // Exactly at the limit is fine.
    const exact = documents.url(`/${h.backend}/clients/exact.json`);
    const body = JSON.stringify({ client_id: exact, redirect_uris: [REDIRECT], padding: '' });
    documents.answers.set(`/${h.backend}/clients/exact.json`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: exact, redirect_uris: [REDIRECT], padding: 'z'.repeat(5 * 1024 - body.length) }),
    });
    expect((await clientInfo(exact)).status).toBe(200);
  });

  it('refuses a slow server (the deadline, 5 s in service, is 1 s in this test), and a refusal is remembered for 30 s', async () => {
    const url = documents.document(`/${h.backend}/clients/slow.json`);
    documents.answers.get(`/${h.backend}/clients/slow.json`)!.delayMs = 1_500;
    const started = Date.now();
    await expectRefusedEverywhere(url, 'slow', /did not arrive within 1 s/);
    expect(Date.now() - started).toBeLessThan(1_400 + 8 * 200);
    expect(documents.hitsOf(url), 'one fetch, the refusal cached').toBe(1);
  });

  it('refuses a redirect (3xx), even to a good document', async () => {
    const good = documents.document(`/${h.backend}/clients/redirect-target.json`);
    const url = documents.url(`/${h.backend}/clients/redirecting.json`);
    documents.answers.set(`/${h.backend}/clients/redirecting.json`, { status: 302, headers: { location: good } });
    await expectRefusedEverywhere(url, 'redirect', /without a redirect/);
    expect(documents.hitsOf(good)).toBe(0);
  });

  it('refuses malformed JSON, a non-object, a non-JSON Content-Type, an error status and a server that is not there', async () => {
    documents.answers.set(`/${h.backend}/clients/malformed.json`, { headers: { 'content-type': 'application/json' }, body: '{"client_id": ' });
    await expectRefusedEverywhere(documents.url(`/${h.backend}/clients/malformed.json`), 'malformed JSON', /not valid JSON/);
    documents.answers.set(`/${h.backend}/clients/array.json`, { headers: { 'content-type': 'application/json' }, body: '[]' });
    await expectInvalidClient(await clientInfo(documents.url(`/${h.backend}/clients/array.json`)), 'array', /not a JSON object/);
    const html = documents.url(`/${h.backend}/clients/html.json`);
    documents.answers.set(`/${h.backend}/clients/html.json`, { headers: { 'content-type': 'text/html' }, body: JSON.stringify({ client_id: html, redirect_uris: [REDIRECT] }) });
    await expectInvalidClient(await clientInfo(html), 'text/html', /served as JSON/);
    await expectInvalidClient(await clientInfo(documents.url(`/${h.backend}/clients/missing.json`)), '404', /HTTP 404/);
    const closed = `https://localhost:${await freePort()}/clients/nobody.json`;
    await expectInvalidClient(await clientInfo(closed), 'connection refused', /could not be fetched/);
  });

  it('refuses a document with 6 redirect URIs, none, or one the registration rules refuse; and one that carries a secret', async () => {
    const six = Array.from({ length: 6 }, (_, i) => `http://127.0.0.1:${9000 + i}/cb`);
    await expectRefusedEverywhere(documents.document(`/${h.backend}/clients/six.json`, { redirect_uris: six }), '6 redirect URIs', /at most 5/);
    const five = documents.document(`/${h.backend}/clients/five.json`, { redirect_uris: six.slice(0, 5) });
    expect(await (await clientInfo(five)).json()).toMatchObject({ redirect_uris: six.slice(0, 5) });
    for (const [name, fields, description] of [
      ['none', { redirect_uris: [] }, /at least one/],
      ['not an array', { redirect_uris: REDIRECT }, /redirect_uris/],
      ['localhost', { redirect_uris: ['http://localhost:8765/callback'] }, /not acceptable/],
      ['a fragment', { redirect_uris: ['https://app.example/cb#x'] }, /not acceptable/],
      ['a custom scheme', { redirect_uris: ['com.example.app:/cb'] }, /not acceptable/],
      ['user info', { redirect_uris: ['https://me@app.example/cb'] }, /not acceptable/],
      ['a client_secret', { client_secret: 'hunter2' }, /client_secret/],
      ['private_key_jwt', { token_endpoint_auth_method: 'private_key_jwt' }, /token_endpoint_auth_method none/],
    ] as const) {
      await expectInvalidClient(await clientInfo(documents.document(`/${h.backend}/clients/bad-${name.replaceAll(' ', '-')}.json`, fields)), name, description);
    }
  });

  it('refuses a server whose certificate the fetcher does not trust (the system authorities only)', async () => {
    const untrusting = createApp({
      db: h.db,
      config: h.config,
      log: h.log,
      clientMetadata: new ClientMetadataDocuments({ allowPrivateAddresses: true, timeoutMs: 1_000 }),
    });
    const url = documents.document(`/${h.backend}/clients/untrusted.json`);
    const res = await untrusting.request(`${API}/oauth/client_info?client_id=${encodeURIComponent(url)}`, { headers: { authorization: `Bearer ${bearer}` } });
    await expectInvalidClient(res, 'untrusted certificate', /could not be fetched/);
  });

  it('with CIMD_ALLOW_PRIVATE_ADDRESSES off, refuses loopback by name or address without connecting (D18)', async () => {
    const guarded = createApp({
      db: h.db,
      config: h.config,
      log: h.log,
      clientMetadata: new ClientMetadataDocuments({ allowPrivateAddresses: false, ca: certificates.ca, timeoutMs: 1_000, log: h.log }),
    });
    const port = new URL(documents.origin).port;
    for (const host of ['localhost', '127.0.0.1', '[::1]']) {
      const url = documents.document(`/${h.backend}/clients/private-${host.replace(/\W/g, '')}.json`).replace('localhost', host);
      const { query } = authorizeParams(url);
      const res = await guarded.request(`${API}/oauth/authorize?${query}`);
      await expectInvalidClient(res, host, /could not be fetched/);
      expect(documents.hitsOf(url), `${host}: nothing was fetched`).toBe(0);
      expect(url).toContain(`:${port}/`);
    }
    expect(h.logs.some((l) => l.event === 'client metadata document refused' && l.fields.reason === 'not a public address')).toBe(true);
  });

  it('cache: a changed document takes effect only when its copy expires (max-age=120 here); a fixed one 30 s after a refusal', async () => {
    const at = `/${h.backend}/clients/changing.json`;
    const url = documents.document(at, { redirect_uris: [REDIRECT] }, { 'cache-control': 'max-age=120' });
    const status = async (redirectUri: string) => (await request(`/oauth/authorize?${authorizeParams(url, redirectUri).query}`)).status;
    expect(await status(REDIRECT)).toBe(303);
    documents.document(at, { redirect_uris: [OTHER_REDIRECT], client_name: 'Renamed' }, { 'cache-control': 'max-age=120' });
    ahead += 119_000;
    expect(await status(REDIRECT), 'the old redirect URI still applies').toBe(303);
    expect(await status(OTHER_REDIRECT), 'the new one not yet').toBe(400);
    expect(documents.hitsOf(url)).toBe(1);
    ahead += 2_000;
    expect(await status(REDIRECT), 'expired: the old one no longer applies').toBe(400);
    expect(await status(OTHER_REDIRECT)).toBe(303);
    expect(documents.hitsOf(url)).toBe(2);

    // A code approved now is not consumed when the document later fails: 401, nothing consumed.
    const { code, verifier } = await approve(url, OTHER_REDIRECT);
    documents.answers.set(at, { status: 500, body: 'down' });
    ahead += 121_000;
    await expectInvalidClient(await redeem(url, code, verifier, OTHER_REDIRECT), 'document down at the token endpoint', /HTTP 500/);
    const [kept] = await h.db.select().from(authorizationCodes).where(eq(authorizationCodes.hash, sha256Hex(code)));
    expect(kept, 'the code is still live').toBeDefined();
    documents.document(at, { redirect_uris: [OTHER_REDIRECT] }, { 'cache-control': 'max-age=120' });
    await expectInvalidClient(await clientInfo(url), 'the refusal is remembered');
    ahead += 31_000;
    expect((await redeem(url, code, verifier, OTHER_REDIRECT)).status, 'fetched again after 30 s').toBe(200);
  });

  it('a document refreshed from its host renames the stored client (connections show the new name)', async () => {
    const at = `/${h.backend}/clients/renamed.json`;
    const url = documents.document(at, { client_name: 'Old Name' }, { 'cache-control': 'max-age=60' });
    const { code, verifier } = await approve(url);
    expect((await redeem(url, code, verifier)).status).toBe(200);
    documents.document(at, { client_name: 'New Name' }, { 'cache-control': 'max-age=60' });
    ahead += 61_000;
    expect(await (await clientInfo(url)).json()).toMatchObject({ name: 'New Name', first_use: false });
    const [row] = await h.db.select().from(oauthClients).where(eq(oauthClients.id, url));
    expect(row!.name).toBe('New Name');
  });

  it('parallel lookups of one document share a single fetch', async () => {
    const url = documents.document(`/${h.backend}/clients/parallel.json`);
    documents.answers.get(`/${h.backend}/clients/parallel.json`)!.delayMs = 100;
    const answers = await Promise.all(Array.from({ length: 8 }, () => clientInfo(url)));
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(documents.hitsOf(url)).toBe(1);
  });

  it('rows of never-used clients that nothing references go after 24 hours; used ones and referenced ones stay', async () => {
    const orphan = documents.document(`/${h.backend}/clients/orphan.json`);
    const started = await request('/oauth/device_authorization', formInit({ client_id: orphan, resource: API }));
    expect(started.status).toBe(200);
    await h.db.delete(deviceGrants).where(eq(deviceGrants.clientId, orphan));
    await h.db.execute(sql`update oauth_clients set metadata_updated_at = now() - interval '25 hours' where metadata_updated_at is not null`);
    const trigger = documents.document(`/${h.backend}/clients/reaper-trigger.json`);
    expect((await request('/oauth/device_authorization', formInit({ client_id: trigger, resource: API }))).status).toBe(200);
    const ids = (await h.db.select({ id: oauthClients.id }).from(oauthClients)).map((r) => r.id);
    expect(ids).not.toContain(orphan);
    expect(ids).toContain(trigger);
    expect(ids).toContain(documents.url(`/${h.backend}/clients/full.json`));
    expect(ids).toContain(documents.url(`/${h.backend}/clients/device.json`));
  });

  it('the database keeps https ids and metadata rows together (check constraint)', async () => {
    await expect(h.db.insert(oauthClients).values({ id: 'https://sneaky.example/c', name: 'x', dynamic: true, redirectUris: [REDIRECT] })).rejects.toThrow();
    await expect(
      h.db.insert(oauthClients).values({ id: 'dyn_sneaky', name: 'x', dynamic: true, redirectUris: [REDIRECT], metadataUpdatedAt: new Date() }),
    ).rejects.toThrow();
  });
});

// ------------------------------------------------------------------ ledger serve as a real process

/** A person at a browser talking to a real server: the lg_session cookie kept across requests. */
function personAt(api: string): Browser {
  return new Browser({ request: (at, init) => fetch(`${api}${at}`, init) });
}

for (const backend of BACKENDS) {
  describe.skipIf(backend === 'postgres' && !postgresAvailable())(`ledger serve trusting the test authority through NODE_EXTRA_CA_CERTS [${backend}]`, () => {
    let database: TestDatabase | undefined;
    let serve: ServeProcess | undefined;
    let guarded: ServeProcess | undefined;
    let api: string;
    let web: string;
    let as: oauth.AuthorizationServer;
    let key: SoftwareAuthenticator;
    const insecure = { [oauth.allowInsecureRequests]: true } as const;
    const none = oauth.None();

    const env = async (extra: Record<string, string>) => {
      const port = await freePort();
      return {
        DATABASE_URL: database!.url,
        BIND_ADDR: `127.0.0.1:${port}`,
        WEB_BIND_ADDR: 'off',
        API_ORIGIN: `http://localhost:${port}`,
        NODE_EXTRA_CA_CERTS: certificates.caFile,
        ...extra,
      };
    };

    beforeAll(async () => {
      database = await openTestDatabase(backend);
      await addUser(database.db, 'serve-cimd@example.com', PASSWORD);
      await addUser(database.db, 'browser-cimd@example.com', PASSWORD);
      const webPort = await freePort();
      web = `http://localhost:${webPort}`;
      key = new SoftwareAuthenticator(web);
      serve = await startServe({
        env: await env({ CIMD_ALLOW_PRIVATE_ADDRESSES: '1', WEB_BIND_ADDR: `127.0.0.1:${webPort}`, WEB_ORIGIN: web }),
      });
      guarded = await startServe({ env: await env({}) });
      api = serve.url.replace('127.0.0.1', 'localhost');
      const issuer = new URL(api);
      as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    }, 90_000);

    afterAll(async () => {
      await serve?.stop();
      await guarded?.stop();
      await database?.close();
    });

    async function approveAt(params: Record<string, string>): Promise<URL> {
      const person = personAt(api);
      await person.signIn('serve-cimd@example.com', PASSWORD, key);
      const approval = await person.post('/oauth/authorize/approve', { ...params, approve: true });
      expect(approval.status).toBe(200);
      return new URL(((await approval.json()) as { redirect: string }).redirect);
    }

    it('discovery names the flag (oauth4webapi reads it)', () => {
      expect(as.client_id_metadata_document_supported).toBe(true);
    });

    it('oauth4webapi: authorization code + PKCE with the document URL as client_id, refresh, and revocation', async () => {
      const url = documents.document(`/serve-${backend}/assistant.json`, { client_name: 'Interop Assistant' });
      const client: oauth.Client = { client_id: url, token_endpoint_auth_method: 'none' };
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const params = {
        client_id: url,
        redirect_uri: REDIRECT,
        response_type: 'code',
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        resource: `${api}/mcp`,
        state,
      };
      const authorize = new URL(as.authorization_endpoint!);
      authorize.search = new URLSearchParams(params).toString();
      expect((await fetch(authorize, { redirect: 'manual' })).status).toBe(303);
      const back = await approveAt(params);
      const callback = oauth.validateAuthResponse(as, client, back, state);
      const issued = await oauth.processAuthorizationCodeResponse(
        as,
        client,
        await oauth.authorizationCodeGrantRequest(as, client, none, callback, REDIRECT, verifier, { additionalParameters: { resource: api }, ...insecure }),
      );
      expect(issued.access_token).toMatch(/^lg_/);
      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, none, issued.refresh_token!, insecure),
      );
      expect(refreshed.refresh_token).not.toBe(issued.refresh_token);
      await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, none, refreshed.refresh_token!, insecure));
      expect((await fetch(`${api}/auth/me`, { headers: { authorization: `Bearer ${refreshed.access_token}` } })).status).toBe(401);
      expect(serve!.logs.filter((l) => l.level === 'error')).toEqual([]);
    });

    it('oauth4webapi: the device grant with the document URL as client_id', async () => {
      const url = documents.document(`/serve-${backend}/device.json`, { client_name: 'Serve Device' });
      const client: oauth.Client = { client_id: url, token_endpoint_auth_method: 'none' };
      const started = await oauth.processDeviceAuthorizationResponse(
        as,
        client,
        await oauth.deviceAuthorizationRequest(as, client, none, { resource: api }, insecure),
      );
      const person = personAt(api);
      await person.signIn('serve-cimd@example.com', PASSWORD, key);
      const info = await person.request(`/oauth/device_info?user_code=${started.user_code}`);
      expect(await info.json()).toMatchObject({ client: { id: url, name: 'Serve Device', dynamic: true, first_use: true } });
      expect((await person.post('/oauth/device/approve', { user_code: started.user_code, approve: true })).status).toBe(204);
      const issued = await oauth.processDeviceCodeResponse(as, client, await oauth.deviceCodeGrantRequest(as, client, none, started.device_code, insecure));
      expect(issued.access_token).toMatch(/^lg_/);
    });

    it('the MCP SDK client with clientMetadataUrl: no registration, approval, tokens, tools', async () => {
      const url = documents.document(`/serve-${backend}/mcp-client.json`, { client_name: 'SDK assistant' });
      const provider = new SdkOAuthProvider({ redirectUrl: REDIRECT, clientName: 'SDK assistant', clientMetadataUrl: url });
      const transport = new StreamableHTTPClientTransport(new URL(`${api}/mcp`), { authProvider: provider });
      await expect(new McpClient({ name: 'cimd-tests', version: '1.0.0' }).connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
      expect(provider.client?.client_id, 'the SDK used the URL, it did not register').toBe(url);
      const authorizationUrl = provider.authorizationUrl!;
      expect(authorizationUrl.searchParams.get('client_id')).toBe(url);
      const back = await approveAt(Object.fromEntries(authorizationUrl.searchParams));
      await transport.finishAuth(back.searchParams.get('code')!);
      expect(provider.saved?.access_token).toMatch(/^lg_/);

      const connected = new McpClient({ name: 'cimd-tests', version: '1.0.0' });
      await connected.connect(new StreamableHTTPClientTransport(new URL(`${api}/mcp`), { authProvider: provider }));
      expect((await connected.listTools()).tools.map((t) => t.name)).toContain('list_accounts');
      await connected.close();
      const [registered] = await database!.db.select({ n: count() }).from(oauthClients).where(sql`${oauthClients.id} like 'dyn_%'`);
      expect(registered!.n, 'nothing was registered').toBe(0);
    });

    it.runIf(backend === 'embedded')("the consent page names the document's host in its heading and warns of a never-used client (chromium)", async (ctx) => {
      const missing = missingBrowserPrerequisite();
      if (missing && STRICT_BROWSER) throw new Error(missing);
      if (missing) return ctx.skip();
      const url = documents.document(`/serve-${backend}/browser.json`, { client_name: 'Browser Assistant' });
      const host = new URL(url).host;
      const { query, verifier } = authorizeParams(url, REDIRECT, api);
      const authorize = await fetch(`${api}/oauth/authorize?${query}`, { redirect: 'manual' });
      expect(authorize.status).toBe(303);

      const profile = mkdtempSync(path.join(os.tmpdir(), 'ledger-cimd-chromium-'));
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        viewport: { width: 1000, height: 800 },
        args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      });
      try {
        context.setDefaultTimeout(10_000);
        const page = context.pages()[0] ?? (await context.newPage());
        const cdp = await context.newCDPSession(page);
        await cdp.send('WebAuthn.enable');
        await cdp.send('WebAuthn.addVirtualAuthenticator', {
          options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
        });
        const landed: string[] = [];
        await page.route('http://127.0.0.1:8765/**', (route) => {
          landed.push(route.request().url());
          return route.fulfill({ status: 200, body: 'back in the assistant' });
        });
        await page.goto(authorize.headers.get('location')!);
        await page.getByLabel('Email').fill('browser-cimd@example.com');
        await page.getByLabel('Password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Continue' }).click();
        await page.getByRole('button', { name: 'Create a passkey' }).click();
        await page.getByRole('heading', { name: `Allow Browser Assistant from ${host}?`, level: 1 }).waitFor();
        expect(await page.getByRole('alert').textContent()).toContain(`introduced itself through ${host} and has never been used here`);
        expect(await page.getByText(url, { exact: true }).count()).toBe(1);
        mkdirSync('test-artifacts/cimd', { recursive: true });
        await page.screenshot({ path: 'test-artifacts/cimd/consent.png' });
        await page.getByRole('button', { name: 'Allow' }).click();
        await page.waitForURL(/127\.0\.0\.1:8765\/callback/);
        const code = new URL(landed[0]!).searchParams.get('code')!;
        const token = await fetch(`${api}/oauth/token`, formInit({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: url, code_verifier: verifier }));
        expect(token.status).toBe(200);
      } finally {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      }
    }, 60_000);

    it('without CIMD_ALLOW_PRIVATE_ADDRESSES the same document on loopback is 401 invalid_client, and nothing is fetched', async () => {
      const url = documents.document(`/serve-${backend}/guarded.json`);
      const { query } = authorizeParams(url);
      const res = await fetch(`${guarded!.url}/oauth/authorize?${query}`, { redirect: 'manual' });
      await expectInvalidClient(res, 'guarded serve');
      expect(documents.hitsOf(url)).toBe(0);
      expect(guarded!.logs).toContainEqual(expect.objectContaining({ event: 'client metadata document refused', reason: 'not a public address' }));
    });
  });
}
