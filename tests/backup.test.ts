import { createHash } from 'node:crypto';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, eq } from 'drizzle-orm';
import { loadConfig } from '../src/config';
import { tokens, users as usersTable } from '../src/db/schema';
import { createApp, type App } from '../src/http/app';
import { mintToken } from '../src/identity/tokens';
import { addUser } from '../src/identity/users';
import { issueTokenPair } from '../src/oauth/grants';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { openTestDatabase, postgresAvailable, type Backend, type TestDatabase } from './support/databases';
import { newDataRoot } from './support/embedded';
import { TEST_ENV } from './support/harness';
import { sha256Hex } from './support/http';
import { expectOneLineRefusal, lastLine, runLedger } from './support/processes';

// D14: `ledger backup` writes one consistent, checked, 0600 snapshot of the instance; `ledger
// restore` loads it into an empty database of either backend in one transaction, ids kept and
// sequences moved past them, passwords, passkeys and live tokens working afterwards. Round trip:
// embedded → PostgreSQL (when TEST_DATABASE_URL is set, else embedded) → embedded.

const PASSWORD = 'a password that survives a restore';
const config = loadConfig(TEST_ENV);
const AS_OF = '2026-12-31';
const READS = ['/accounts', '/transactions', '/settings', '/changes?limit=500', `/reports/balances?as_of=${AS_OF}`, `/reports/balance-sheet?as_of=${AS_OF}`, '/reports/monthly?from=2026-01-01&to=2026-12-31'];

const appOn = (database: TestDatabase): App => createApp({ db: database.db, config, log: { info() {}, error() {} } });
const requester = (app: App) => (p: string, init?: RequestInit) => Promise.resolve(app.request(new URL(p, config.apiOrigin).href, init));

async function readAll(app: App, token: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const p of READS) {
    const res = await requester(app)(p, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status, p).toBe(200);
    out[p] = await res.json();
  }
  return out;
}

describe('ledger backup and restore (D14)', () => {
  let root: string;
  let source: TestDatabase;
  const targets: TestDatabase[] = [];
  let token: string;
  const authenticator = new SoftwareAuthenticator();
  let before: Record<string, unknown>;
  let ofx: Record<string, unknown>;
  let bank: number;
  /** Everything a restored book must answer as the original did, D20's reconciliations included. */
  const readBook = async (app: App): Promise<Record<string, unknown>> => ({
    ...(await readAll(app, token)),
    reconciliations: await (await requester(app)(`/accounts/${bank}/reconciliations`, { headers: { authorization: `Bearer ${token}` } })).json(),
  });

  const ledger = (args: string[], database: TestDatabase) => runLedger(args, { env: { DATABASE_URL: database.url }, cwd: root });
  const fresh = async (backend: Backend) => {
    const database = await openTestDatabase(backend);
    targets.push(database);
    return database;
  };
  const users = async (database: TestDatabase) => (await database.db.select({ n: count() }).from(usersTable))[0]!.n;

  beforeAll(async () => {
    root = newDataRoot('ledger-backup-');
    source = await openTestDatabase('embedded');
    const user = await addUser(source.db, 'keeper@example.com', PASSWORD);
    token = await mintToken(source.db, { userId: user.id, label: 'kept', days: 30, audience: config.apiOrigin });
    const app = appOn(source);
    const call = (method: string, p: string, body?: unknown) =>
      requester(app)(p, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    // A passkey, so that signing in after the restore proves the credential came along.
    await new Browser({ request: requester(app) }).signIn('keeper@example.com', PASSWORD, authenticator);
    const ids: Record<string, number> = {};
    for (const [name, kind] of [['Bank', 'asset'], ['Card', 'liability'], ['Opening', 'equity'], ['Dues', 'income'], ['Venue: hall "A"', 'expense']] as const) {
      ids[name] = ((await (await call('POST', '/accounts', { name, kind })).json()) as { id: number }).id;
    }
    const posted: number[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await call('POST', '/transactions', {
        occurred_on: `2026-${String(1 + (i % 12)).padStart(2, '0')}-15`,
        description: `line ${i} — café`,
        entries: [
          { account_id: ids.Bank, amount_cents: 1000 + i },
          { account_id: i % 2 ? ids.Dues : ids.Opening, amount_cents: -(1000 + i) },
        ],
      });
      posted.push(((await res.json()) as { id: number }).id);
    }
    expect((await call('DELETE', `/transactions/${posted[3]}`)).status).toBe(204);
    expect((await call('PUT', '/settings', { book_style: 'club' })).status).toBe(200);
    // D16: an import rule and the bank references of an imported statement come along.
    expect((await call('POST', '/import-rules', { pattern: 'hall', account_id: ids['Venue: hall "A"'] })).status).toBe(201);
    const statement = {
      account_id: ids.Bank, format: 'csv', unmatched_account_id: ids.Dues, csv: { date_column: 0, description_column: 1, amount_column: 2, date_format: 'YYYY-MM-DD', decimal: '.', header: false },
      content: '2026-05-01,Hall rent,-50.00\n2026-05-02,Dues Sam,20.00\n',
    };
    expect((await call('POST', '/imports', statement)).status).toBe(201);
    ofx = { account_id: ids.Card, format: 'ofx', unmatched_account_id: ids.Dues, content: readFileSync(new URL('./fixtures/imports/ofx-2-xml.ofx', import.meta.url), 'utf8') };
    expect(((await (await call('POST', '/imports', ofx)).json()) as { created: number[] }).created).toHaveLength(3);
    // D20: a reconciliation of the bank (its entries then locked), a currency and a closed period come along.
    const bankBalance = ((await (await call('GET', `/accounts/${ids.Bank}/reconciliation?as_of=2026-06-30`)).json()) as { book_balance_cents: number }).book_balance_cents;
    expect((await call('POST', `/accounts/${ids.Bank}/reconciliations`, { statement_date: '2026-06-30', statement_balance_cents: bankBalance })).status).toBe(201);
    expect((await call('PUT', '/settings', { currency: 'CHF', closed_through: '2026-03-31' })).status).toBe(200);
    bank = ids.Bank!;
    before = await readAll(app, token);
    before.reconciliations = await (await call('GET', `/accounts/${bank}/reconciliations`)).json();
  }, 120_000);

  afterAll(async () => {
    await Promise.all([source, ...targets].map((d) => d?.close()));
    rmSync(root, { recursive: true, force: true });
  });

  it('backup writes one 0600 file and says what it wrote; restore into an empty database of the other backend and back gives identical answers', async () => {
    const first = path.join(root, 'first.ledger-backup');
    const written = await ledger(['backup', first], source);
    expect(written.stderr).toBe('');
    expect(lastLine(written)).toBe(`wrote ${first}: 1 users, 2 oauth_clients, 1 passkeys, 0 grants, 1 tokens, 5 accounts, 1 settings, 34 transactions, 68 entries, 44 changes, 1 import_rules, 3 import_references, 1 reconciliations, 5 import_lines, 0 schedules, 0 schedule_occurrences`);
    expect(statSync(first).mode & 0o777).toBe(0o600);
    const text = readFileSync(first, 'utf8');
    expect(text).not.toContain(token);
    expect(text).not.toContain(PASSWORD);

    const middle = await fresh(postgresAvailable() ? 'postgres' : 'embedded');
    const restored = await ledger(['restore', first], middle);
    expect(restored.stderr).toBe('');
    expect(lastLine(restored)).toMatch(/^restored .*: 1 users, 2 oauth_clients, 1 passkeys, 0 grants, 1 tokens, 5 accounts, 1 settings, 34 transactions, 68 entries, 44 changes, 1 import_rules, 3 import_references, 1 reconciliations, 5 import_lines, 0 schedules, 0 schedule_occurrences$/);
    expect(await readBook(appOn(middle))).toEqual(before);

    const second = path.join(root, 'second.ledger-backup');
    expect((await ledger(['backup', second], middle)).code).toBe(0);
    const last = await fresh('embedded');
    expect((await ledger(['restore', second], last)).code).toBe(0);
    const app = appOn(last);
    expect(await readBook(app)).toEqual(before);
    // D20: restored with its locks on: a reconciled or closed transaction still refuses a change.
    const firstBank = (before['/transactions'] as { id: number; occurred_on: string }[]).filter((t) => t.occurred_on <= '2026-06-30').at(-1)!;
    const refused = await requester(app)(`/transactions/${firstBank.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    expect(refused.status).toBe(409);

    // Password and passkey still sign in; new rows get ids past every restored one.
    const person = new Browser({ request: requester(app) });
    await person.signIn('keeper@example.com', PASSWORD, authenticator);
    expect((await person.request('/auth/me')).status).toBe(200);
    const account = await requester(app)('/accounts', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'After the restore', kind: 'asset' }),
    });
    expect(account.status).toBe(201);
    const ids = (before['/accounts'] as { id: number }[]).map((a) => a.id);
    expect(((await account.json()) as { id: number }).id).toBeGreaterThan(Math.max(...ids));
    // The bank references came along: the same statement again adds nothing (D16).
    const again = await requester(app)('/imports', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(ofx),
    });
    expect(await again.json()).toEqual({ created: [], duplicates: [1, 2, 3], errors: [] });
  }, 120_000);

  it('a backup made before D20 (no reconciliations, import lines, currency or closed period) still restores', async () => {
    const good = path.join(root, 'current.ledger-backup');
    expect((await ledger(['backup', good], source)).code).toBe(0);
    const text = readFileSync(good, 'utf8');
    const header = JSON.parse(text.slice(0, text.indexOf('\n')));
    const rows = JSON.parse(text.slice(text.indexOf('\n') + 1));
    delete rows.reconciliations;
    delete rows.import_lines;
    for (const entry of rows.entries) delete entry.reconciliation_id;
    for (const row of rows.settings) {
      delete row.currency;
      delete row.closed_through;
    }
    const body = JSON.stringify(rows);
    delete header.counts.reconciliations;
    delete header.counts.import_lines;
    const old = { ...header, schema: 7, sha256: createHash('sha256').update(body).digest('hex') };
    const file = path.join(root, 'old.ledger-backup');
    writeFileSync(file, `${JSON.stringify(old)}\n${body}\n`);
    const target = await fresh(postgresAvailable() ? 'postgres' : 'embedded');
    const restored = await ledger(['restore', file], target);
    expect(restored.code, restored.stderr).toBe(0);
    const book = await readBook(appOn(target));
    expect(book['/settings']).toEqual({ book_style: 'club', currency: 'EUR', closed_through: null });
    expect(book.reconciliations).toEqual([]);
    expect(book['/transactions']).toEqual(before['/transactions']);
  }, 120_000);

  it('D25: a backup made before grants (schema 10) restores each OAuth connection as a family of its own, which rotates and is revoked whole', async () => {
    const origin = await fresh('embedded');
    const owner = await addUser(origin.db, 'grants@example.com', PASSWORD);
    const pair = await issueTokenPair(origin.db, { userId: owner.id, clientId: 'ledger-cli', audience: config.apiOrigin });
    const made = path.join(root, 'grants.ledger-backup');
    expect((await ledger(['backup', made], origin)).code).toBe(0);
    const text = readFileSync(made, 'utf8');
    const header = JSON.parse(text.slice(0, text.indexOf('\n')));
    const rows = JSON.parse(text.slice(text.indexOf('\n') + 1));
    expect(rows.grants).toHaveLength(1);
    delete rows.grants;
    for (const t of rows.tokens) delete t.grant_id;
    delete header.counts.grants;
    const body = JSON.stringify(rows);
    const file = path.join(root, 'before-grants.ledger-backup');
    writeFileSync(file, `${JSON.stringify({ ...header, schema: 10, sha256: createHash('sha256').update(body).digest('hex') })}\n${body}\n`);
    const target = await fresh(postgresAvailable() ? 'postgres' : 'embedded');
    const restored = await ledger(['restore', file], target);
    expect(restored.code, restored.stderr).toBe(0);

    const grantOf = async (token: string) =>
      (await target.db.select({ grantId: tokens.grantId }).from(tokens).where(eq(tokens.hash, sha256Hex(token))))[0]?.grantId;
    const family = await grantOf(pair.refresh_token);
    expect(family).toMatch(/^[0-9a-f-]{36}$/);
    expect(await grantOf(pair.access_token)).toBe(family);
    const request = requester(appOn(target));
    const form = (fields: Record<string, string>) => ({
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString(),
    });
    const rotated = await request('/oauth/token', form({ grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: 'ledger-cli' }));
    expect(rotated.status).toBe(200);
    const next = (await rotated.json()) as { access_token: string; refresh_token: string };
    expect(await grantOf(next.refresh_token)).toBe(family);
    expect((await request('/oauth/revoke', form({ token: next.refresh_token }))).status).toBe(200);
    for (const t of [pair.access_token, next.access_token]) {
      expect((await request('/accounts', { headers: { authorization: `Bearer ${t}` } })).status).toBe(401);
    }
  }, 120_000);

  it('refuses, with one line and changing nothing: a non-empty target, a file that is not a backup, a truncated, an altered and a newer one', async () => {
    const good = path.join(root, 'good.ledger-backup');
    expect((await ledger(['backup', good], source)).code).toBe(0);
    const text = readFileSync(good, 'utf8');
    const [headerLine, body] = [text.slice(0, text.indexOf('\n')), text.slice(text.indexOf('\n') + 1)];
    const variant = (name: string, content: string) => {
      const file = path.join(root, name);
      writeFileSync(file, content);
      return file;
    };
    const empty = await fresh('embedded');

    expectOneLineRefusal(await ledger(['restore', good], source), /the database is not empty/);
    expectOneLineRefusal(await ledger(['restore', variant('notes.txt', 'groceries: 12.30\n')], empty), /is not a Ledger backup/);
    expectOneLineRefusal(await ledger(['restore', variant('cut.ledger-backup', text.slice(0, text.length - 200))], empty), /is damaged \(truncated or altered\)/);
    expectOneLineRefusal(await ledger(['restore', variant('altered.ledger-backup', `${headerLine}\n${body.replace('"amount_cents":1001', '"amount_cents":9001')}`)], empty), /is damaged/);
    const newer = JSON.stringify({ ...JSON.parse(headerLine), schema: 999 });
    expectOneLineRefusal(await ledger(['restore', variant('newer.ledger-backup', `${newer}\n${body}`)], empty), /made by a newer Ledger/);
    expect(await users(empty)).toBe(0);
    expect(await users(source)).toBe(1);
  }, 120_000);
});
