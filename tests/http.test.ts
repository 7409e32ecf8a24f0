import { sql } from 'drizzle-orm';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { accounts, transactions } from '../src/db/schema';
import { createWebApp, WEB_DIST } from '../src/http/web-app';
import { describeEachDatabase, TEST_ENV, type Harness, type LogLine } from './support/harness';
import { json } from './support/http';

// Spec: CORS rules 1–3; Errors, rules 3 and the shapes; D6 (1 MiB → 413); D10 (one log line per
// request, path without query string). README: 404 for unknown routes, 415 for a non-JSON body.
// GET /health itself is covered by tests/health.test.ts.

const EVIL_ORIGIN = 'https://evil.example';
const GENERIC_FAULT = 'something went wrong on the server';
const ONE_MIB = 1024 * 1024;

async function countRows(h: Harness, table: typeof accounts | typeof transactions): Promise<number> {
  return (await h.db.select({ id: table.id }).from(table)).length;
}

/** The `request` log lines written since index `from`. */
function requestLines(h: Harness, from: number): LogLine[] {
  return h.logs.slice(from).filter((l) => l.event === 'request');
}

/** A JSON body of exactly `size` bytes (ASCII), shaped as a new account with an overlong name. */
function accountBodyOfSize(size: number): string {
  const shell = JSON.stringify({ name: '', kind: 'asset' });
  const body = JSON.stringify({ name: 'n'.repeat(size - shell.length), kind: 'asset' });
  expect(Buffer.byteLength(body)).toBe(size);
  return body;
}

/** Same for a new transaction with an overlong description. */
function transactionBodyOfSize(size: number): string {
  const make = (description: string) =>
    JSON.stringify({ occurred_on: '2026-01-01', description, entries: [{ account_id: 1, amount_cents: 1 }, { account_id: 2, amount_cents: -1 }] });
  const body = make('d'.repeat(size - make('').length));
  expect(Buffer.byteLength(body)).toBe(size);
  return body;
}

/** A body without Content-Length, delivered in chunks (what a chunked upload looks like to the app). */
function streamOf(text: string, chunk = 64 * 1024): ReadableStream<Uint8Array> {
  const bytes = Buffer.from(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(new Uint8Array(bytes.subarray(offset, offset + chunk)));
      offset += chunk;
    },
  });
}

function headerSet(value: string | null): string[] {
  return (value ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean).sort();
}

describeEachDatabase('CORS (spec: CORS rules 1–3)', (h) => {
  let token: string;
  beforeAll(async () => {
    ({ token } = await h.userWithToken('cors@example.com'));
  });

  it('rule 1: a request from WEB_ORIGIN gets Access-Control-Allow-Origin equal to it, with credentials', async () => {
    expect(h.config.webOrigin).toBe('http://localhost:38080');
    for (const path of ['/health', '/accounts']) {
      const res = await h.request(path, { headers: { origin: 'http://localhost:38080', authorization: `Bearer ${token}` } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('access-control-allow-origin'), path).toBe('http://localhost:38080');
      expect(res.headers.get('access-control-allow-credentials'), path).toBe('true');
    }
  });

  it('rule 1: a 401 answered to WEB_ORIGIN still carries the CORS headers (the web app can read it)', async () => {
    const res = await h.request('/accounts', { headers: { origin: 'http://localhost:38080' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:38080');
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
  });

  it('rule 2: a preflight from WEB_ORIGIN allows exactly GET, POST, PUT, DELETE, OPTIONS and Content-Type, Authorization', async () => {
    for (const [path, method] of [['/accounts', 'POST'], ['/settings', 'PUT'], ['/transactions/1', 'DELETE']] as const) {
      const res = await h.request(path, {
        method: 'OPTIONS',
        headers: {
          origin: 'http://localhost:38080',
          'access-control-request-method': method,
          'access-control-request-headers': 'content-type, authorization',
        },
      });
      // A preflight carries no credential and must not be refused by authentication.
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin'), path).toBe('http://localhost:38080');
      expect(res.headers.get('access-control-allow-credentials'), path).toBe('true');
      expect(headerSet(res.headers.get('access-control-allow-methods')), path).toEqual(['delete', 'get', 'options', 'post', 'put']);
      expect(headerSet(res.headers.get('access-control-allow-headers')), path).toEqual(['authorization', 'content-type']);
    }
  });

  it('rule 3: requests and preflights from any other origin get no Access-Control-Allow-Origin at all', async () => {
    const others = [
      EVIL_ORIGIN,
      'http://localhost:38081',
      'https://localhost:38080',
      'http://localhost:38080.evil.example',
      'http://127.0.0.1:38080',
      'http://localhost',
      'null',
    ];
    for (const origin of others) {
      const simple = await h.request('/accounts', { headers: { origin, authorization: `Bearer ${token}` } });
      expect(simple.status, origin).toBe(200);
      expect(simple.headers.has('access-control-allow-origin'), origin).toBe(false);

      const preflight = await h.request('/accounts', {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization' },
      });
      expect(preflight.headers.has('access-control-allow-origin'), origin).toBe(false);
    }
  });

  it('rule 3: a write from another origin is not made readable to it (no Access-Control-Allow-Origin on the 201 either)', async () => {
    const res = await h.request('/accounts', {
      method: 'POST',
      headers: { origin: EVIL_ORIGIN, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'CORS evil check', kind: 'asset' }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.has('access-control-allow-origin')).toBe(false);
  });
});

describeEachDatabase('errors in the {error} shape: 404, 400, 413, 415 (spec: Errors; D6; README)', (h) => {
  let token: string;
  beforeAll(async () => {
    ({ token } = await h.userWithToken('errors@example.com'));
  });

  const post = (path: string, body: BodyInit, headers: Record<string, string> = { 'content-type': 'application/json' }, extra: RequestInit = {}) =>
    h.request(path, { method: 'POST', headers: { authorization: `Bearer ${token}`, ...headers }, body, ...extra });

  it('an unknown route is 404 {"error":"not found"}, with or without a credential', async () => {
    const unknown: [string, string, string | undefined][] = [
      ['GET', '/nothing-here', undefined],
      ['POST', '/nothing-here', undefined],
      ['GET', '/', undefined],
      ['GET', '/health/extra', undefined],
      ['GET', '/nothing-here', token],
      ['DELETE', '/deep/unknown/path', token],
      // Under a protected prefix: authentication comes first, then the route is unknown.
      ['GET', '/accounts/1', token],
      ['PATCH', '/accounts', token],
      ['DELETE', '/settings', token],
      ['DELETE', '/transactions', token],
    ];
    for (const [method, path, bearer] of unknown) {
      const res = await h.request(path, { method, headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.headers.get('content-type'), `${method} ${path}`).toMatch(/^application\/json/);
      expect(await json(res), `${method} ${path}`).toEqual({ error: 'not found' });
    }
  });

  it('malformed JSON on POST /accounts and POST /transactions is 400 {error} with no parser or driver text, and creates nothing', async () => {
    const accountsBefore = await countRows(h, accounts);
    const transactionsBefore = await countRows(h, transactions);
    for (const path of ['/accounts', '/transactions']) {
      for (const body of ['{', '{"name": "Broken", "kind": "asset",}', "{'name': 'x'}", '', 'nul', '{"name":"x"}}']) {
        const res = await post(path, body);
        const label = `${path} ${JSON.stringify(body)}`;
        expect(res.status, label).toBe(400);
        const text = await res.text();
        expect(JSON.parse(text), label).toEqual({ error: 'the request body is not valid JSON' });
        expect(text, label).not.toMatch(/SyntaxError|Unexpected|position|at .*\.js|stack/i);
      }
    }
    expect(await countRows(h, accounts)).toBe(accountsBefore);
    expect(await countRows(h, transactions)).toBe(transactionsBefore);
  });

  it('D6: a body over 1 MiB is 413 {error} with a Content-Length header, and creates nothing', async () => {
    const before = await countRows(h, accounts);
    for (const [path, body] of [['/accounts', accountBodyOfSize(ONE_MIB + 1)], ['/transactions', transactionBodyOfSize(ONE_MIB + 1)]] as const) {
      const res = await post(path, body, { 'content-type': 'application/json', 'content-length': String(ONE_MIB + 1) });
      expect(res.status, path).toBe(413);
      expect(await json(res), path).toEqual({ error: 'the request body is larger than 1 MiB' });
    }
    // A Content-Length announcing more than 1 MiB is refused before the body is read.
    const announced = await post('/accounts', JSON.stringify({ name: 'Announced', kind: 'asset' }), {
      'content-type': 'application/json',
      'content-length': String(10 * ONE_MIB),
    });
    expect(announced.status).toBe(413);
    expect(await json(announced)).toEqual({ error: 'the request body is larger than 1 MiB' });
    expect(await countRows(h, accounts)).toBe(before);
  });

  it('D6: a body over 1 MiB is 413 {error} without a Content-Length header (counted while streaming), and creates nothing', async () => {
    const before = await countRows(h, accounts);
    const cases = [
      ['/accounts', accountBodyOfSize(ONE_MIB + 1)],
      ['/transactions', transactionBodyOfSize(ONE_MIB + 1)],
      ['/accounts', accountBodyOfSize(5 * ONE_MIB)],
    ] as const;
    for (const [path, body] of cases) {
      // As a string (Request sets no Content-Length) and as a chunked stream.
      const asString = await post(path, body);
      expect(asString.status, `${path} string`).toBe(413);
      expect(await json(asString), `${path} string`).toEqual({ error: 'the request body is larger than 1 MiB' });
      const asStream = await post(path, streamOf(body), { 'content-type': 'application/json' }, { duplex: 'half' } as RequestInit);
      expect(asStream.status, `${path} stream`).toBe(413);
      expect(await json(asStream), `${path} stream`).toEqual({ error: 'the request body is larger than 1 MiB' });
    }
    expect(await countRows(h, accounts)).toBe(before);
  });

  it('D6: a body of exactly 1 MiB, or just under, is read (here refused 400 for the D6 text limits), never 413', async () => {
    const before = await countRows(h, accounts);
    for (const size of [ONE_MIB, ONE_MIB - 1]) {
      const variants: [string, BodyInit, Record<string, string>, RequestInit][] = [
        ['/accounts', accountBodyOfSize(size), { 'content-type': 'application/json', 'content-length': String(size) }, {}],
        ['/accounts', accountBodyOfSize(size), { 'content-type': 'application/json' }, {}],
        ['/accounts', streamOf(accountBodyOfSize(size)), { 'content-type': 'application/json' }, { duplex: 'half' } as RequestInit],
      ];
      for (const [path, body, headers, extra] of variants) {
        const res = await post(path, body, headers, extra);
        expect(res.status, `${size} ${JSON.stringify(headers)}`).toBe(400);
        expect(await json(res)).toEqual({ error: 'name has at most 100 characters' });
      }
      const tx = await post('/transactions', transactionBodyOfSize(size));
      expect(tx.status, `transaction ${size}`).toBe(400);
      expect(await json(tx)).toEqual({ error: 'description has at most 500 characters' });
    }
    expect(await countRows(h, accounts)).toBe(before);
  });

  it('a body that is not application/json on POST /accounts and POST /transactions is 415 {error}, and creates nothing', async () => {
    const accountsBefore = await countRows(h, accounts);
    const transactionsBefore = await countRows(h, transactions);
    const bodies: Record<string, string> = {
      '/accounts': JSON.stringify({ name: 'Not JSON typed', kind: 'asset' }),
      '/transactions': JSON.stringify({
        occurred_on: '2026-01-01',
        description: 'not JSON typed',
        entries: [{ account_id: 1, amount_cents: 1 }, { account_id: 2, amount_cents: -1 }],
      }),
    };
    const form = new FormData();
    form.set('name', 'Form account');
    form.set('kind', 'asset');
    for (const path of ['/accounts', '/transactions']) {
      const attempts: [string, Promise<Response>][] = [
        ['text/plain', post(path, bodies[path]!, { 'content-type': 'text/plain' })],
        // A string body with no Content-Type given gets text/plain;charset=UTF-8 from fetch.
        ['default text/plain;charset=UTF-8', post(path, bodies[path]!, {})],
        ['no Content-Type at all', post(path, new TextEncoder().encode(bodies[path]!), {})],
        ['urlencoded', post(path, 'name=Form+account&kind=asset', { 'content-type': 'application/x-www-form-urlencoded' })],
        ['multipart', post(path, form, {})],
        ['application/xml', post(path, '<account/>', { 'content-type': 'application/xml' })],
        ['text/json', post(path, bodies[path]!, { 'content-type': 'text/json' })],
      ];
      for (const [label, pending] of attempts) {
        const res = await pending;
        expect(res.status, `${path} ${label}`).toBe(415);
        expect(await json(res), `${path} ${label}`).toEqual({
          error: 'the request body must be JSON (Content-Type: application/json)',
        });
      }
    }
    expect(await countRows(h, accounts)).toBe(accountsBefore);
    expect(await countRows(h, transactions)).toBe(transactionsBefore);
    // The control: the same body typed application/json (with a charset parameter) is accepted.
    const ok = await post('/accounts', bodies['/accounts']!, { 'content-type': 'application/json; charset=utf-8' });
    expect(ok.status).toBe(201);
    expect(await countRows(h, accounts)).toBe(accountsBefore + 1);
  });
});

describeEachDatabase('error rule 7 (D13): every error under /oauth/ carries Cache-Control: no-store, whatever its shape', (h) => {
  const challenge = `Bearer resource_metadata="${h.config.apiOrigin}/.well-known/oauth-protected-resource"`;
  const form = (size: number) => `grant_type=authorization_code&code=${'c'.repeat(size - 'grant_type=authorization_code&code='.length)}`;

  it('a body over 1 MiB on POST /oauth/token and /oauth/register is 413 in the OAuth shape with no-store (announced or streamed)', async () => {
    const cases: [string, string, BodyInit, RequestInit][] = [
      ['/oauth/token', 'application/x-www-form-urlencoded', form(ONE_MIB + 1), {}],
      ['/oauth/token', 'application/x-www-form-urlencoded', streamOf(form(2 * ONE_MIB)), { duplex: 'half' } as RequestInit],
      ['/oauth/register', 'application/json', accountBodyOfSize(ONE_MIB + 1), {}],
    ];
    for (const [path, type, body, extra] of cases) {
      const res = await h.request(path, { method: 'POST', headers: { 'content-type': type }, body, ...extra });
      expect(res.status, path).toBe(413);
      expect(res.headers.get('cache-control'), path).toBe('no-store');
      expect(await json(res), path).toEqual({ error: 'invalid_request', error_description: 'the request body is larger than 1 MiB' });
    }
    const announced = await h.request('/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(10 * ONE_MIB) },
      body: 'grant_type=refresh_token',
    });
    expect(announced.status).toBe(413);
    expect(announced.headers.get('cache-control')).toBe('no-store');
  });

  it('without a credential, POST /oauth/authorize/approve and GET /oauth/client_info are the plain 401 with WWW-Authenticate and no-store', async () => {
    const requests: [string, RequestInit][] = [
      ['/oauth/authorize/approve', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ approve: true }) }],
      ['/oauth/client_info?client_id=ledger-cli', {}],
      ['/oauth/client_info?client_id=ledger-cli', { headers: { authorization: 'Bearer lg_not-a-token' } }],
    ];
    for (const [path, init] of requests) {
      const res = await h.request(path, init);
      expect(res.status, path).toBe(401);
      expect(res.headers.get('cache-control'), path).toBe('no-store');
      expect(res.headers.get('www-authenticate'), path).toBe(challenge);
      expect(await json(res), path).toEqual({ error: 'authentication required' });
    }
  });

  it('outside /oauth/ the same errors keep their shape and say nothing about caching', async () => {
    const big = await h.request('/accounts', { method: 'POST', headers: { 'content-type': 'application/json' }, body: accountBodyOfSize(ONE_MIB + 1) });
    expect(big.status).toBe(413);
    expect(big.headers.get('cache-control')).toBeNull();
    expect(await json(big)).toEqual({ error: 'the request body is larger than 1 MiB' });
    const anonymous = await h.request('/accounts');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('cache-control')).toBeNull();
  });
});

describeEachDatabase('error rule 3: any other fault is 500 with the generic sentence; the detail is logged only', (h) => {
  let token: string;
  beforeAll(async () => {
    ({ token } = await h.userWithToken('faults@example.com'));
  });

  /** Asserts the generic 500 and returns the `request.fault` log lines it wrote. */
  async function expectGenericFault(res: Response, from: number, method: string, path: string): Promise<LogLine> {
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: GENERIC_FAULT });
    expect(text).not.toMatch(/settings|accounts|tokens|relation|column|select|insert|42P01|42703|does not exist|postgres|pglite|drizzle|query/i);
    const faults = h.logs.slice(from).filter((l) => l.event === 'request.fault');
    expect(faults).toHaveLength(1);
    const fault = faults[0]!;
    expect(fault.level).toBe('error');
    expect(fault.fields).toMatchObject({ method, path });
    const lines = requestLines(h, from);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.fields).toMatchObject({ method, path, status: 500 });
    return fault;
  }

  it('GET /settings with the settings table gone: 500 generic, detail (SQLSTATE 42P01, the relation) in the log', async () => {
    expect((await h.call(token, 'GET', '/settings')).status).toBe(200);
    await h.db.execute(sql`alter table settings rename to settings_gone`);
    try {
      const from = h.logs.length;
      const fault = await expectGenericFault(await h.call(token, 'GET', '/settings'), from, 'GET', '/settings');
      const detail = JSON.stringify(fault.fields);
      expect(detail).toContain('42P01');
      expect(detail).toContain('settings');
    } finally {
      await h.db.execute(sql`alter table settings_gone rename to settings`);
    }
    // The control: with the table back, the same request works again.
    expect(await json(await h.call(token, 'GET', '/settings'))).toEqual({ book_style: 'personal', currency: 'EUR', closed_through: null });
  });

  it('POST /accounts with a column gone: 500 generic, detail (42703) in the log, nothing created', async () => {
    await h.db.execute(sql`alter table accounts rename column kind to kind_gone`);
    try {
      const from = h.logs.length;
      const res = await h.call(token, 'POST', '/accounts', { name: 'Fault account', kind: 'asset' });
      const fault = await expectGenericFault(res, from, 'POST', '/accounts');
      expect(JSON.stringify(fault.fields)).toContain('42703');
    } finally {
      await h.db.execute(sql`alter table accounts rename column kind_gone to kind`);
    }
    expect(await json(await h.call(token, 'GET', '/accounts'))).toEqual([]);
  });

  it('POST /oauth/register with the clients table gone: 500 server_error with the generic sentence and no-store, no SQL text', async () => {
    await h.db.execute(sql`alter table oauth_clients rename to oauth_clients_gone`);
    try {
      const from = h.logs.length;
      const res = await h.request('/oauth/register', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Fault client', redirect_uris: ['http://127.0.0.1:33418/callback'] }),
      });
      expect(res.status).toBe(500);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({ error: 'server_error', error_description: GENERIC_FAULT });
      expect(text).not.toMatch(/oauth_clients|relation|select|insert|delete|42P01|does not exist|postgres|pglite|drizzle|query/i);
      const faults = h.logs.slice(from).filter((l) => l.event === 'request.fault');
      expect(faults).toHaveLength(1);
      expect(faults[0]!.fields).toMatchObject({ method: 'POST', path: '/oauth/register' });
      expect(JSON.stringify(faults[0]!.fields)).toContain('42P01');
    } finally {
      await h.db.execute(sql`alter table oauth_clients_gone rename to oauth_clients`);
    }
  });

  it('a fault while checking a bearer token is the generic 500, never disguised as 401', async () => {
    await h.db.execute(sql`alter table tokens rename to tokens_gone`);
    try {
      const from = h.logs.length;
      const res = await h.call(token, 'GET', '/accounts');
      expect(res.headers.has('www-authenticate')).toBe(false);
      await expectGenericFault(res, from, 'GET', '/accounts');
    } finally {
      await h.db.execute(sql`alter table tokens_gone rename to tokens`);
    }
    expect((await h.call(token, 'GET', '/accounts')).status).toBe(200);
  });
});

describeEachDatabase('D10: every request is logged as one info line "request" {method, path, status, ms}', (h) => {
  let token: string;
  beforeAll(async () => {
    ({ token } = await h.userWithToken('logging@example.com'));
  });

  it('one line per request, whatever the outcome, with the path only (never the query string)', async () => {
    const cases: [string, string, RequestInit, number][] = [
      ['GET', '/health', {}, 200],
      ['GET', '/accounts', { headers: { authorization: `Bearer ${token}` } }, 200],
      ['GET', '/transactions?from=2026-01-01&to=2026-12-31', { headers: { authorization: `Bearer ${token}` } }, 200],
      ['GET', '/accounts?access_token=lg_secret_in_query', {}, 401],
      ['GET', '/nothing-here?code=abc123', {}, 404],
      ['POST', '/accounts', { headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' }, body: '{}' }, 415],
      ['POST', '/accounts', { headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{' }, 400],
      [
        'POST',
        '/accounts',
        { headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: 'x'.repeat(ONE_MIB + 1) },
        413,
      ],
      ['OPTIONS', '/accounts', { headers: { origin: 'http://localhost:38080', 'access-control-request-method': 'POST' } }, 204],
      [
        'POST',
        '/accounts',
        { headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Logged', kind: 'asset' }) },
        201,
      ],
    ];
    for (const [method, path, init, status] of cases) {
      const from = h.logs.length;
      const res = await h.request(path, { ...init, method });
      expect(res.status, `${method} ${path}`).toBe(status);
      const lines = requestLines(h, from);
      expect(lines, `${method} ${path}`).toHaveLength(1);
      const line = lines[0]!;
      expect(line.level).toBe('info');
      expect(Object.keys(line.fields).sort()).toEqual(['method', 'ms', 'path', 'status']);
      expect(line.fields).toMatchObject({ method, path: path.split('?')[0], status });
      expect(typeof line.fields.ms).toBe('number');
      expect(line.fields.ms as number).toBeGreaterThanOrEqual(0);
    }
    const all = JSON.stringify(h.logs);
    expect(all).not.toContain('?');
    expect(all).not.toContain('lg_secret_in_query');
    expect(all).not.toContain('abc123');
    expect(all).not.toContain(token);
  });
});

// The web app's server (no database, no browser): createWebApp answers requests directly.
describe('web app (D2/D9): the app for its routes, 404 for a missing asset', () => {
  const web = createWebApp(loadConfig(TEST_ENV));
  const get = (at: string) => Promise.resolve(web.request(`${TEST_ENV.WEB_ORIGIN}${at}`));

  function expectSecurityHeaders(res: Response, at: string): void {
    expect(res.headers.get('x-frame-options'), at).toBe('DENY');
    expect(res.headers.get('content-security-policy'), at).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-content-type-options'), at).toBe('nosniff');
    expect(res.headers.get('referrer-policy'), at).toBe('no-referrer');
  }

  it('a missing file under /assets/ is a plain 404 with the security headers, never the app page', async () => {
    for (const at of ['/assets/x.js', '/assets/none.css', '/assets/deeper/x.js', '/assets/']) {
      const res = await get(at);
      expect(res.status, at).toBe(404);
      expect(res.headers.get('content-type'), at).toMatch(/^text\/plain/);
      expect(await res.text(), at).not.toMatch(/<html|<!doctype/i);
      expectSecurityHeaders(res, at);
    }
  });

  it('app routes still get index.html, and a built asset is served', async () => {
    for (const at of ['/', '/device', '/device?user_code=ABCD-EFGH', '/authorize?client_id=x&state=s', '/settings']) {
      const res = await get(at);
      expect(res.status, at).toBe(200);
      expect(res.headers.get('content-type'), at).toMatch(/^text\/html/);
      expectSecurityHeaders(res, at);
    }
    const indexFile = path.join(WEB_DIST, 'index.html');
    const script = existsSync(indexFile) ? /src="(\/assets\/[^"]+\.js)"/.exec(readFileSync(indexFile, 'utf8'))?.[1] : undefined;
    if (script) {
      const res = await get(script);
      expect(res.status, script).toBe(200);
      expect(res.headers.get('content-type'), script).toMatch(/javascript/);
    }
  });
});
