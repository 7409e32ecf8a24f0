import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import { rowsOf } from '../src/db/database';
import { ACCOUNT_NAME_MAX } from '../src/book/accounts';
import { isCalendarDate } from '../src/text';
import { AMOUNT_MAX, DESCRIPTION_MAX, ENTRIES_MAX, ENTRIES_MIN } from '../src/book/transactions';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { describeEachDatabase, type Harness } from './support/harness';

// Issue 6/6 scope 4: hostile input. Random and malformed methods, paths, queries, headers, bodies
// and encodings on every route the app serves, with every kind of credential. Whatever arrives:
// never a 500, an error body always in one of the spec's three shapes (Errors: Shapes) with no
// internals in it, the ledger unchanged after any refused request, and never an unbalanced
// transaction stored. fast-check prints the seed and the shrunk input of any failure.

const PASSWORD = 'fuzzing is a kind of testing';
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);

/** Words that must never reach a client: SQL, driver and stack-trace text (error rule 3). */
const LEAK = /\b(select|insert into|update \w+ set|delete from)\b|violates|relation "|column "|syntax error|postgres|pglite|drizzle|node_modules|\bat .+:\d+:\d+/i;

/** The ledger as the books see it: what a refused request must leave exactly as it was. */
async function ledgerSnapshot(h: Harness): Promise<string> {
  const result = await h.db.execute(sql`
    select json_build_object(
      'accounts', (select coalesce(json_agg(a order by a.id), '[]') from accounts a),
      'settings', (select coalesce(json_agg(s), '[]') from settings s),
      'transactions', (select coalesce(json_agg(t order by t.id), '[]') from transactions t),
      'entries', (select coalesce(json_agg(e order by e.id), '[]') from entries e)
    )::text as books`);
  return rowsOf<{ books: string }>(result)[0]!.books;
}

/** Every stored transaction has at least two entries summing to zero. */
async function unbalancedTransactions(h: Harness): Promise<unknown[]> {
  return rowsOf(
    await h.db.execute(sql`
      select t.id, count(e.id)::int as n, coalesce(sum(e.amount_cents), 0)::text as total
      from transactions t left join entries e on e.transaction_id = t.id
      group by t.id having count(e.id) < 2 or coalesce(sum(e.amount_cents), 0) <> 0`),
  );
}

/** Errors: Shapes — `{error}`, `{error, error_description}` (strings), or plain text; no internals. */
async function expectSpecShape(res: Response, what: string): Promise<void> {
  expect(res.status, `${what}: never a 500`).toBeLessThan(500);
  const text = await res.text();
  // Issue 1/7: the API reference's bundle is third-party code served verbatim; its words ("select") leak nothing.
  const vendored = res.status < 400 && /^GET \/docs\/scalar\.js[?\s]/.test(what);
  if (!vendored) expect(text, `${what}: no internals in the body`).not.toMatch(LEAK);
  if (res.status < 400) return;
  const type = res.headers.get('content-type') ?? '';
  if (type.startsWith('application/json')) {
    const body = JSON.parse(text) as Record<string, unknown>;
    if (what.includes(' /mcp') && body.jsonrpc === '2.0') {
      // D8: past authentication, /mcp speaks JSON-RPC, whose errors have their own shape.
      const error = body.error as { code?: unknown; message?: unknown };
      expect(typeof error.code, `${what}: a JSON-RPC error code`).toBe('number');
      expect(typeof error.message, `${what}: a JSON-RPC error message`).toBe('string');
      return;
    }
    expect(typeof body.error, `${what}: error is a string`).toBe('string');
    const keys = Object.keys(body).sort();
    expect([['error'], ['error', 'error_description']], `${what}: body ${text}`).toContainEqual(keys);
    if ('error_description' in body) expect(typeof body.error_description).toBe('string');
  } else {
    expect(type, `${what}: a non-JSON error is plain text`).toMatch(/^text\/plain/);
  }
}

// ---- generators ------------------------------------------------------------------------------

/** Stored names and descriptions refuse these: bidi controls and marks, line and paragraph separators. */
const DISPLAY_CONTROL = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C\u2028\u2029]/u;

/**
 * D25, as the oracle reads it: of a trimmed text that passed the refusals, every code point that is
 * default-ignorable or a format character (other than the refused display controls) is dropped,
 * the rest composed (NFC) and trimmed again; what is left is what the server stores and compares.
 */
const storedForm = (trimmed: string): string =>
  [...trimmed]
    .filter((c) => DISPLAY_CONTROL.test(c) || !(/^\p{Default_Ignorable_Code_Point}$/u.test(c) || /^\p{General_Category=Format}$/u.test(c)))
    .join('')
    .normalize('NFC')
    .trim();

const ASCII = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 });
const NASTY_TEXT = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.constantFrom(
    '', ' ', '\u0000', 'a\u0000b', '\u202Eevil\u202C', '\u2066x\u2069', '\uD800', '\uDFFF lone', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢', 'x'.repeat(5000),
    "'; drop table entries; --", '%00', '../../etc/passwd', '\r\nX-Injected: 1', '1e400', '-0', 'NaN', 'null',
  ),
);
const NASTY_NUMBER = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, 1e15, 1e15 + 1, -1e15, 2 ** 53, 2 ** 63, 1e308, Number.MAX_SAFE_INTEGER, 0.1, -1, 2 ** 31, 2 ** 31 - 1),
);
const JSON_VALUE = fc.oneof(NASTY_TEXT, NASTY_NUMBER, fc.boolean(), fc.constant(null), fc.jsonValue({ maxDepth: 3 }));

/** A body that almost fits a route: valid field names with hostile values, or odd raw text. */
const body = (accountIds: number[]) =>
  fc.oneof(
    fc.record(
      {
        name: JSON_VALUE, kind: fc.oneof(JSON_VALUE, fc.constantFrom('asset', 'income', 'ASSET')),
        book_style: fc.oneof(JSON_VALUE, fc.constantFrom('club', 'personal', 'Club')),
        occurred_on: fc.oneof(JSON_VALUE, fc.constantFrom('2026-02-29', '2024-02-29', '0000-01-01', '9999-12-31', '2026-1-1')),
        description: JSON_VALUE,
        entries: fc.oneof(
          JSON_VALUE,
          fc.array(
            fc.record({ account_id: fc.oneof(fc.constantFrom(...accountIds), NASTY_NUMBER, JSON_VALUE), amount_cents: fc.oneof(NASTY_NUMBER, JSON_VALUE) }, { requiredKeys: [] }),
            { maxLength: 5 },
          ),
        ),
        email: JSON_VALUE, password: JSON_VALUE, current_password: JSON_VALUE, new_password: JSON_VALUE,
        redirect_uris: fc.oneof(JSON_VALUE, fc.array(NASTY_TEXT, { maxLength: 7 })), client_name: JSON_VALUE,
        user_code: JSON_VALUE, approve: JSON_VALUE, client_id: JSON_VALUE, jsonrpc: JSON_VALUE, method: JSON_VALUE, params: JSON_VALUE,
      },
      { requiredKeys: [] },
    ).map((o) => JSON.stringify(o)),
    JSON_VALUE.map((v) => JSON.stringify(v)),
    NASTY_TEXT,
    fc.constantFrom(
      '{', '{"a":', '[1,2', '{"name":"a","name":"b","kind":"asset","kind":"equity"}', '\uFEFF{}', '{"__proto__":{"x":1}}',
      '['.repeat(50_000) + ']'.repeat(50_000), `{"a":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_001)}`,
      'grant_type=authorization_code&grant_type=refresh_token', 'token=&token=', 'a=%ZZ&b=%', '=&&=', 'x'.repeat(2 ** 20 + 1),
    ),
    // Invalid UTF-8 and NUL bytes.
    fc.uint8Array({ maxLength: 40 }).map((bytes) => Uint8Array.from([0x7b, 0xff, 0xfe, 0x00, ...bytes, 0xc3])),
  );

const CONTENT_TYPE = fc.constantFrom(
  undefined, 'application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1',
  'application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x', 'application/JSON', '*/*', ';;;',
);

const QUERY_KEYS = ['from', 'to', 'as_of', 'client_id', 'redirect_uri', 'response_type', 'code_challenge', 'code_challenge_method', 'resource', 'state', 'user_code', 'limit'];
const query = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom(...QUERY_KEYS), ASCII), fc.oneof(ASCII, NASTY_TEXT, fc.constantFrom('2026-13-01', '2026-01-01', '9'.repeat(30)))), { maxLength: 6 })
  .map((pairs) => {
    const params = new URLSearchParams();
    for (const [k, v] of pairs) params.append(k, v);
    return params.toString();
  });

const PATH_ID = fc.oneof(
  fc.integer().map(String),
  fc.constantFrom('0', '-1', '1.5', '1e3', '99999999999999999999', '%00', '%E0%A4%A', 'abc', '..', '%2e%2e', ' 1', 'lg_x', 'a'.repeat(300)),
  ASCII.filter((s) => s.length > 0).map(encodeURIComponent),
);

// ---- the tests -------------------------------------------------------------------------------

describeEachDatabase('hostile input on every route (issue 6/6 scope 4)', (h) => {
  let token: string;
  let browser: Browser;
  let accountIds: number[];
  let routes: { method: string; path: string }[];

  beforeAll(async () => {
    token = (await h.userWithToken('fuzz@example.com', PASSWORD)).token;
    browser = new Browser(h);
    await browser.signIn('fuzz@example.com', PASSWORD, new SoftwareAuthenticator());
    accountIds = [];
    for (const [name, kind] of [['Bank', 'asset'], ['Card', 'liability'], ['Opening', 'equity'], ['Salary', 'income'], ['Food', 'expense']]) {
      const res = await h.call(token, 'POST', '/accounts', { name, kind });
      accountIds.push(((await res.json()) as { id: number }).id);
    }
    const posted = await h.call(token, 'POST', '/transactions', {
      occurred_on: '2026-01-05', description: 'seed', entries: [{ account_id: accountIds[0], amount_cents: 500 }, { account_id: accountIds[3], amount_cents: -500 }],
    });
    expect(posted.status).toBe(201);
    routes = h.app.routes.filter((r) => r.method !== 'ALL').map((r) => ({ method: r.method, path: r.path }));
    expect(routes.length, 'the app serves its routes').toBeGreaterThan(30);
  });

  it('any method, path, query, headers and body: never a 500, errors in the spec shapes, refusals change nothing', async () => {
    const request = fc.record({
      route: fc.constantFrom(...routes),
      method: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD')),
      id: PATH_ID,
      query,
      body: fc.option(body(accountIds), { freq: 4 }),
      contentType: CONTENT_TYPE,
      credential: fc.constantFrom('none', 'bearer', 'session', 'both', 'bogus-bearer', 'bogus-cookie'),
      origin: fc.option(fc.constantFrom('http://localhost:38080', 'https://evil.example', 'null'), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const method = r.method ?? r.route.method;
        // Signing out or in would end the session this run uses; those routes get no cookie.
        const sessionAllowed = !['/auth/logout', '/auth/login'].includes(r.route.path);
        const headers = new Headers();
        if (r.contentType) headers.set('content-type', r.contentType);
        if (r.origin) headers.set('origin', r.origin);
        if (r.credential === 'bearer' || r.credential === 'both') headers.set('authorization', `Bearer ${token}`);
        if (r.credential === 'bogus-bearer') headers.set('authorization', `Bearer lg_${'A'.repeat(43)}`);
        if ((r.credential === 'session' || r.credential === 'both') && sessionAllowed) headers.set('cookie', `lg_session=${browser.session}`);
        if (r.credential === 'bogus-cookie') headers.set('cookie', 'lg_session=%E0%A4%A; lg_session=x');
        const path = r.route.path.replace(/:\w+/g, r.id) + (r.query ? `?${r.query}` : '');
        const sendsBody = r.body !== null && method !== 'GET' && method !== 'HEAD';
        const before = await ledgerSnapshot(h);
        const res = await h.request(path, { method, headers, body: sendsBody ? r.body : undefined });
        const what = `${method} ${path} (${r.credential})`;
        if (method === 'HEAD') expect(res.status, `${what}: never a 500`).toBeLessThan(500);
        else await expectSpecShape(res, what);
        if (res.status >= 400) expect(await ledgerSnapshot(h), `${what} answered ${res.status} yet changed the books`).toBe(before);
      }),
      { numRuns: RUNS },
    );
    expect(await unbalancedTransactions(h)).toEqual([]);
    expect((await browser.request('/auth/me')).status, 'the session survived the run').toBe(200);
  }, 300_000);

  it('POST /transactions accepts exactly what the rules allow (D6), stores it exactly, and refuses the rest with 400', async () => {
    const entry = fc.record({
      account_id: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...accountIds) }, fc.integer({ min: -5, max: 2 ** 31 + 5 }), fc.double(), NASTY_TEXT),
      amount_cents: fc.oneof(
        { weight: 4, arbitrary: fc.integer({ min: -10_000, max: 10_000 }) },
        fc.constantFrom(AMOUNT_MAX, -AMOUNT_MAX, AMOUNT_MAX + 1, 2 ** 53, 0.5, -0, 1e-7),
        fc.double(),
        NASTY_TEXT,
      ),
    });
    const candidate = fc.record({
      occurred_on: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('2026-03-01', '2024-02-29') }, fc.constantFrom('2026-02-29', '2026-3-1', ''), NASTY_TEXT),
      description: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('groceries', ' padded ', 'é') }, NASTY_TEXT, fc.constant('d'.repeat(DESCRIPTION_MAX + 1))),
      entries: fc.oneof(
        { weight: 6, arbitrary: fc.array(entry, { maxLength: 5 }) },
        // Balanced by construction: the last entry takes the remainder.
        fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: ENTRIES_MAX + 1 }).map((amounts) => {
          const lines = amounts.map((a, i) => ({ account_id: accountIds[i % accountIds.length]!, amount_cents: a }));
          lines.push({ account_id: accountIds[0]!, amount_cents: -amounts.reduce((s, a) => s + a, 0) });
          return lines;
        }),
      ),
    });
    const known = new Set(accountIds);
    /** The oracle: D6 and the spec's rules, written independently of the server's code. */
    const acceptable = (t: { occurred_on: unknown; description: unknown; entries: { account_id: unknown; amount_cents: unknown }[] }) => {
      if (typeof t.occurred_on !== 'string' || !isCalendarDate(t.occurred_on)) return false;
      if (typeof t.description !== 'string') return false;
      const raw = t.description.trim();
      if (/\p{Cc}/u.test(raw) || DISPLAY_CONTROL.test(raw) || !raw.isWellFormed()) return false;
      const d = storedForm(raw);
      if (d === '' || [...d].length > DESCRIPTION_MAX) return false;
      if (t.entries.length < ENTRIES_MIN || t.entries.length > ENTRIES_MAX) return false;
      let sum = 0n;
      for (const e of t.entries) {
        if (typeof e.account_id !== 'number' || !known.has(e.account_id)) return false;
        if (typeof e.amount_cents !== 'number' || !Number.isInteger(e.amount_cents) || Math.abs(e.amount_cents) > AMOUNT_MAX) return false;
        sum += BigInt(e.amount_cents);
      }
      return sum === 0n;
    };
    await fc.assert(
      fc.asyncProperty(candidate, async (t) => {
        const before = await ledgerSnapshot(h);
        const res = await h.call(token, 'POST', '/transactions', t);
        if (!acceptable(t)) {
          expect(res.status, JSON.stringify(t).slice(0, 300)).toBe(400);
          await expectSpecShape(res, 'POST /transactions');
          expect(await ledgerSnapshot(h)).toBe(before);
          return;
        }
        expect(res.status, JSON.stringify(t).slice(0, 300)).toBe(201);
        const { id } = (await res.json()) as { id: number };
        const list = (await (await h.call(token, 'GET', `/transactions?from=${t.occurred_on}&to=${t.occurred_on}`)).json()) as {
          id: number; description: string; entries: { account_id: number; amount_cents: number }[];
        }[];
        const stored = list.find((x) => x.id === id)!;
        expect(stored.description).toBe(storedForm((t.description as string).trim()));
        expect(stored.entries.map((e) => [e.account_id, e.amount_cents])).toEqual((t.entries as { account_id: unknown; amount_cents: unknown }[]).map((e) => [e.account_id, (e.amount_cents as number) + 0]));
      }),
      { numRuns: RUNS },
    );
    expect(await unbalancedTransactions(h)).toEqual([]);
  }, 300_000);

  it('POST /accounts: a name is accepted exactly when it is 1–100 characters of text after trimming (D6), once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(NASTY_TEXT, fc.string({ minLength: 95, maxLength: 105 }), JSON_VALUE), async (name) => {
        const before = await ledgerSnapshot(h);
        const res = await h.call(token, 'POST', '/accounts', { name, kind: 'expense' });
        const raw = typeof name === 'string' ? name.trim() : '';
        const passes = typeof name === 'string' && !/\p{Cc}/u.test(raw) && !DISPLAY_CONTROL.test(raw) && raw.isWellFormed();
        const trimmed = passes ? storedForm(raw) : '';
        const fits = passes && trimmed !== '' && [...trimmed].length <= ACCOUNT_NAME_MAX;
        // D6: taken means a name equal without regard to case, as the database folds case (lower()).
        const taken = fits && rowsOf<{ taken: boolean }>(
          await h.db.execute(sql`select exists (select 1 from accounts where lower(name) = lower(${trimmed})) as taken`),
        )[0]!.taken;
        if (res.status === 201) {
          expect(fits, `accepted ${JSON.stringify(name)}`).toBe(true);
          expect(((await res.json()) as { name: string }).name).toBe(trimmed);
        } else {
          expect(res.status).toBe(400);
          await expectSpecShape(res, 'POST /accounts');
          expect(await ledgerSnapshot(h)).toBe(before);
          // A fitting name is refused only because it exists already (unique, error rule 2).
          if (fits) expect(taken, `refused ${JSON.stringify(name)}`).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
  }, 300_000);
});

describeEachDatabase('NUL characters never reach the database (issue 6/6 scope 4, found by the fuzz pass)', (h) => {
  let token: string;
  let browser: Browser;

  beforeAll(async () => {
    token = (await h.userWithToken('nul@example.com', PASSWORD)).token;
    browser = new Browser(h);
    await browser.signIn('nul@example.com', PASSWORD, new SoftwareAuthenticator());
  });

  const NUL = 'a\u0000b';
  const form = (fields: Record<string, string>): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  const challenge = 'c'.repeat(43);
  const authorize = { client_id: 'ledger-cli', redirect_uri: 'http://127.0.0.1/callback', response_type: 'code', code_challenge: challenge, code_challenge_method: 'S256', resource: 'http://localhost:38081', state: 's' };

  it.each([
    ['login email', () => h.request('/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: NUL, password: NUL }) })],
    ['client_info client_id', () => h.call(token, 'GET', `/oauth/client_info?client_id=${encodeURIComponent(NUL)}`)],
    ['device_info user_code', () => browser.request(`/oauth/device_info?user_code=${encodeURIComponent(NUL)}`)],
    ['device approve user_code', () => browser.post('/oauth/device/approve', { user_code: NUL, approve: true })],
    ['approve client_id', () => browser.post('/oauth/authorize/approve', { ...authorize, client_id: NUL, approve: true })],
    ['approve code_challenge', () => browser.post('/oauth/authorize/approve', { ...authorize, code_challenge: `${challenge}\u0000`, approve: true })],
    ['approve state', () => browser.post('/oauth/authorize/approve', { ...authorize, state: NUL, approve: true })],
    ['token client_id', () => h.request('/oauth/token', form({ grant_type: 'refresh_token', refresh_token: 'lg_x', client_id: NUL }))],
    ['token code', () => h.request('/oauth/token', form({ grant_type: 'authorization_code', code: NUL, redirect_uri: NUL, client_id: 'ledger-cli', code_verifier: NUL }))],
    ['token device_code', () => h.request('/oauth/token', form({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: NUL, client_id: 'ledger-desktop' }))],
    ['device_authorization client_id', () => h.request('/oauth/device_authorization', form({ client_id: NUL, resource: 'http://localhost:38081' }))],
    ['revoke', () => h.request('/oauth/revoke', form({ token: NUL, client_id: NUL }))],
    ['register', () => h.request('/oauth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: NUL, redirect_uris: [`https://x.example/${NUL}`] }) })],
    ['register name', () => h.request('/oauth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: NUL, redirect_uris: ['https://x.example/cb'] }) })],
    ['password change', () => browser.post('/auth/password', { current_password: NUL, new_password: `${NUL}${'x'.repeat(20)}` })],
    ['passkey id', () => browser.request(`/auth/passkeys/${encodeURIComponent(NUL)}`, { method: 'DELETE' })],
    ['token id', () => browser.request(`/auth/tokens/${encodeURIComponent(NUL)}`, { method: 'DELETE' })],
    ['account name', () => h.call(token, 'POST', '/accounts', { name: NUL, kind: 'asset' })],
    ['settings', () => h.call(token, 'PUT', '/settings', { book_style: NUL })],
    ['POST /mcp', () => h.call(token, 'POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_account', arguments: { name: NUL, kind: 'asset' } } })],
  ])('%s', async (what, send) => {
    const before = await ledgerSnapshot(h);
    const res = await send();
    await expectSpecShape(res, what);
    expect(await ledgerSnapshot(h)).toBe(before);
  });
});
