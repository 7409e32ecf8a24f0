import { createHash, randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, eq, sql } from 'drizzle-orm';
import { loadConfig } from '../src/config';
import { rowsOf, type Db } from '../src/db/database';
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
import { backupLines as linesOf, rewrittenBackup, rowsByTable, scryptWorkFactor, sealedWithAge, writeVersion1 } from './support/backups';
import { sha256Hex } from './support/http';
import { expectOneLineRefusal, lastLine, runLedger } from './support/processes';

// D14: `ledger backup` writes one consistent, checked, 0600 snapshot of the instance; `ledger
// restore` loads it into an empty database of either backend in one transaction, ids kept and
// sequences moved past them, passwords, passkeys and live tokens working afterwards. Round trip:
// embedded → PostgreSQL (when TEST_DATABASE_URL is set, else embedded) → embedded.
// D22: receipts come along byte for byte, in format version 2 (streamed); `--encrypt` writes an
// age file that a wrong passphrase, a changed byte or a cut cannot get past; version 1 files and
// backups from before receipts still restore. scripts/bench-backup-memory.ts measures the memory.

const PASSWORD = 'a password that survives a restore';
const config = loadConfig(TEST_ENV);
const AS_OF = '2026-12-31';
const READS = ['/accounts', '/transactions', '/settings', '/changes?limit=500', `/reports/balances?as_of=${AS_OF}`, `/reports/balance-sheet?as_of=${AS_OF}`, '/reports/monthly?from=2026-01-01&to=2026-12-31'];

const PASSPHRASE = 'four random words: lantern, quarry, velvet, oboe';

type Json = Record<string, unknown>;

/** D22: every receipt as the database holds it: its row, and the SHA-256 of its bytes computed there. */
const receipts = async (db: Db) =>
  rowsOf<Json>(
    await db.execute(sql`select id, transaction_id, name, content_type, size, sha256, encode(sha256(bytes), 'hex') as bytes_sha256,
                                (created_at at time zone 'UTC')::text as created_at, created_by_email from attachments order by id`),
  );
const receiptBytes = async (db: Db, id: number) => rowsOf<{ bytes: Buffer }>(await db.execute(sql`select bytes from attachments where id = ${id}`))[0]!.bytes;

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
  /** D22: the receipts put in the source book, by id, with their bytes. */
  const receiptFiles = new Map<number, Buffer>();
  /** Everything a restored book must answer as the original did, D20's reconciliations included. */
  const readBook = async (app: App): Promise<Record<string, unknown>> => ({
    ...(await readAll(app, token)),
    reconciliations: await (await requester(app)(`/accounts/${bank}/reconciliations`, { headers: { authorization: `Bearer ${token}` } })).json(),
  });

  const ledger = (args: string[], database: TestDatabase, env: Record<string, string> = {}) => runLedger(args, { env: { DATABASE_URL: database.url, ...env }, cwd: root });
  const fresh = async (backend: Backend) => {
    const database = await openTestDatabase(backend);
    targets.push(database);
    return database;
  };
  const users = async (database: TestDatabase) => (await database.db.select({ n: count() }).from(usersTable))[0]!.n;
  /** D22: the receipts of a restored book are the source's, byte for byte. */
  const expectSameReceipts = async (database: TestDatabase) => {
    const restored = await receipts(database.db);
    expect(restored).toEqual(await receipts(source.db));
    expect(restored).toHaveLength(4);
    for (const r of restored) expect(r.bytes_sha256, `receipt ${r.name}`).toBe(r.sha256);
    for (const [id, bytes] of receiptFiles) expect((await receiptBytes(database.db, id)).equals(bytes), `receipt ${id}`).toBe(true);
  };

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
    // D22: receipts, inserted as the receipts routes store them: one empty, one small, one of several
    // 768 KiB lines (not a multiple of 3 bytes), one on the deleted transaction (kept for D15's restore).
    for (const [transactionId, name, bytes] of [
      [posted[0]!, 'empty.pdf', Buffer.alloc(0)],
      [posted[1]!, 'till slip ✓.png', Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(4_000)])],
      [posted[2]!, 'invoice.pdf', Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(2_500_000)])],
      [posted[3]!, 'deleted.jpg', Buffer.concat([Buffer.from('ffd8ffe0', 'hex'), randomBytes(70_001)])],
    ] as const) {
      const [row] = rowsOf<{ id: number }>(
        await source.db.execute(sql`
          insert into attachments (transaction_id, name, content_type, size, sha256, bytes, created_by_email)
          values (${transactionId}, ${name}, 'application/pdf', ${bytes.length}, ${createHash('sha256').update(bytes).digest('hex')}, ${bytes}, 'keeper@example.com')
          returning id`),
      );
      receiptFiles.set(row!.id, bytes);
    }
    before = await readAll(app, token);
    before.reconciliations = await (await call('GET', `/accounts/${bank}/reconciliations`)).json();
  }, 120_000);

  afterAll(async () => {
    await Promise.all([source, ...targets].map((d) => d?.close()));
    rmSync(root, { recursive: true, force: true });
  });

  const COUNTS = '1 users, 2 oauth_clients, 1 passkeys, 0 grants, 1 tokens, 5 accounts, 1 settings, 34 transactions, 68 entries, 44 changes, 1 import_rules, 3 import_references, 1 reconciliations, 5 import_lines, 0 schedules, 0 schedule_occurrences, 4 attachments, 0 budgets, 0 budget_lines, 0 dues_plans, 0 people, 0 dues_occurrences, 0 direct_debits, 0 direct_debit_items';

  /** Restored into `database`: the same answers, reconciliations and receipts as the source. */
  const expectSameBook = async (database: TestDatabase) => {
    expect(await readBook(appOn(database))).toEqual(before);
    await expectSameReceipts(database);
  };

  it('backup writes one 0600 file and says what it wrote; restore into an empty database of the other backend and back gives identical answers and receipts (D14, D22)', async () => {
    const first = path.join(root, 'first.ledger-backup');
    const written = await ledger(['backup', first], source);
    expect(written.stderr).toBe('');
    expect(lastLine(written)).toBe(`wrote ${first}: ${COUNTS}`);
    expect(statSync(first).mode & 0o777).toBe(0o600);
    const text = readFileSync(first, 'utf8');
    expect(text).not.toContain(token);
    expect(text).not.toContain(PASSWORD);
    // D22: format version 2, its header saying it is not encrypted; a trailer with the counts and the checksum.
    const lines = linesOf(first);
    expect(lines[0]).toMatchObject({ format: 'ledger-backup', version: 2, schema: expect.any(Number), encrypted: false });
    const trailer = lines.at(-1)!;
    expect(trailer.end).toBe('ledger-backup');
    expect((trailer.counts as Json).attachments).toBe(4);
    expect(trailer.sha256).toBe(createHash('sha256').update(text.slice(0, text.lastIndexOf('\n', text.length - 2) + 1)).digest('hex'));

    const middle = await fresh(postgresAvailable() ? 'postgres' : 'embedded');
    const restored = await ledger(['restore', first], middle);
    expect(restored.stderr).toBe('');
    expect(lastLine(restored)).toBe(`restored ${first}: ${COUNTS}`);
    await expectSameBook(middle);

    const second = path.join(root, 'second.ledger-backup');
    expect((await ledger(['backup', second], middle)).code).toBe(0);
    const last = await fresh('embedded');
    expect((await ledger(['restore', second], last)).code).toBe(0);
    const app = appOn(last);
    await expectSameBook(last);
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
    // D22: a new receipt's id is past every restored one.
    const [added] = rowsOf<{ id: number }>(
      await last.db.execute(sql`insert into attachments (transaction_id, name, content_type, size, sha256, bytes) values (1, 'new', 'image/png', 0, ${createHash('sha256').digest('hex')}, ''::bytea) returning id`),
    );
    expect(added!.id).toBeGreaterThan(Math.max(...receiptFiles.keys()));
    // The bank references came along: the same statement again adds nothing (D16).
    const again = await requester(app)('/imports', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(ofx),
    });
    expect(await again.json()).toEqual({ created: [], duplicates: [1, 2, 3], errors: [] });
  }, 120_000);

  it('D22: backup --encrypt writes an age file (passphrase from LEDGER_BACKUP_PASSPHRASE); restore opens it with the passphrase, embedded → PostgreSQL → embedded, receipts byte for byte', async () => {
    const encrypted = path.join(root, 'encrypted.ledger-backup');
    const withPassphrase = { LEDGER_BACKUP_PASSPHRASE: PASSPHRASE };
    const written = await ledger(['backup', encrypted, '--encrypt'], source, withPassphrase);
    expect(written.stderr).toBe('');
    expect(lastLine(written)).toBe(`wrote ${encrypted}: ${COUNTS}`);
    expect(statSync(encrypted).mode & 0o777).toBe(0o600);
    const bytes = readFileSync(encrypted);
    expect(bytes.subarray(0, 22).toString()).toBe('age-encryption.org/v1\n');
    expect(bytes.toString('latin1')).toMatch(/^age-encryption\.org\/v1\n-> scrypt [A-Za-z0-9+/]{22} \d+\n/);
    for (const plain of ['keeper@example.com', 'ledger-backup', 'invoice.pdf', 'café']) expect(bytes.includes(plain), plain).toBe(false);

    const middle = await fresh(postgresAvailable() ? 'postgres' : 'embedded');
    // Without the passphrase and without a terminal: one line, nothing written.
    expectOneLineRefusal(await ledger(['restore', encrypted], middle), /is encrypted|set LEDGER_BACKUP_PASSPHRASE/);
    expect(await users(middle)).toBe(0);
    const restored = await ledger(['restore', encrypted], middle, withPassphrase);
    expect(restored.stderr).toBe('');
    expect(lastLine(restored)).toBe(`restored ${encrypted}: ${COUNTS}`);
    await expectSameBook(middle);

    const second = path.join(root, 'encrypted-second.ledger-backup');
    expect((await ledger(['backup', second, '--encrypt'], middle, withPassphrase)).code).toBe(0);
    const last = await fresh('embedded');
    expect((await ledger(['restore', second], last, withPassphrase)).code).toBe(0);
    await expectSameBook(last);
  }, 120_000);

  it('D22: --encrypt without a passphrase (no variable, no terminal) or with an empty one writes nothing', async () => {
    const file = path.join(root, 'never.ledger-backup');
    expectOneLineRefusal(await ledger(['backup', file, '--encrypt'], source), /^ledger: set LEDGER_BACKUP_PASSPHRASE/);
    expectOneLineRefusal(await ledger(['backup', file, '--encrypt'], source, { LEDGER_BACKUP_PASSPHRASE: '' }), /LEDGER_BACKUP_PASSPHRASE is empty/);
    expect(existsSync(file)).toBe(false);
  }, 60_000);

  it('D22: refused with one line, exit 1 and nothing written: a wrong passphrase, a flipped byte or a cut, encrypted or plain', async () => {
    const encrypted = path.join(root, 'refusals-encrypted.ledger-backup');
    const plain = path.join(root, 'refusals-plain.ledger-backup');
    expect((await ledger(['backup', encrypted, '--encrypt'], source, { LEDGER_BACKUP_PASSPHRASE: PASSPHRASE })).code).toBe(0);
    expect((await ledger(['backup', plain], source)).code).toBe(0);
    const variant = (name: string, bytes: Buffer) => {
      const file = path.join(root, name);
      writeFileSync(file, bytes);
      return file;
    };
    const flipped = (bytes: Buffer, at: number) => {
      const copy = Buffer.from(bytes);
      copy[at] = copy[at]! ^ 0x01;
      return copy;
    };
    const target = await fresh(postgresAvailable() ? 'postgres' : 'embedded');
    // --allow-plain: the plain variants are taken as plain files (issue 36 item 3), so that what refuses them is their damage.
    const restore = (file: string, passphrase = PASSPHRASE) => ledger(['restore', file, '--allow-plain'], target, { LEDGER_BACKUP_PASSPHRASE: passphrase });

    expectOneLineRefusal(await restore(encrypted, 'not the passphrase'), /^ledger: wrong passphrase for /);
    const sealed = readFileSync(encrypted);
    expectOneLineRefusal(await restore(variant('flipped.age', flipped(sealed, Math.floor(sealed.length / 2)))), /is damaged \(truncated or altered\)/);
    // The last chunk, then the header's MAC line.
    expectOneLineRefusal(await restore(variant('flipped-end.age', flipped(sealed, sealed.length - 3))), /is damaged/);
    expectOneLineRefusal(await restore(variant('flipped-header.age', flipped(sealed, sealed.indexOf('\n--- ') + 10))), /is damaged|wrong passphrase/);
    // Cut in the middle, at a chunk's end (64 KiB + 16 after the header and nonce), and just before the end.
    expectOneLineRefusal(await restore(variant('cut.age', sealed.subarray(0, Math.floor(sealed.length / 2)))), /is damaged/);
    const payload = sealed.indexOf('\n', sealed.indexOf('\n--- ') + 1) + 1 + 16;
    expectOneLineRefusal(await restore(variant('cut-at-chunk.age', sealed.subarray(0, payload + 65_536 + 16))), /is damaged/);
    expectOneLineRefusal(await restore(variant('cut-end.age', sealed.subarray(0, sealed.length - 1))), /is damaged/);

    const text = readFileSync(plain);
    expectOneLineRefusal(await restore(variant('flipped.plain', flipped(text, Math.floor(text.length / 2)))), /is damaged \(truncated or altered\)/);
    expectOneLineRefusal(await restore(variant('flipped-early.plain', flipped(text, text.indexOf('"amount_cents":1001') + 16))), /is damaged/);
    expectOneLineRefusal(await restore(variant('cut.plain', text.subarray(0, Math.floor(text.length / 2)))), /is damaged \(truncated or altered\)/);
    const withoutTrailer = text.subarray(0, text.lastIndexOf('\n', text.length - 2) + 1);
    expectOneLineRefusal(await restore(variant('no-trailer.plain', withoutTrailer)), /is damaged/);
    expectOneLineRefusal(await restore(variant('cut-end.plain', text.subarray(0, text.length - 1))), /is damaged/);
    expect(await users(target)).toBe(0);
    expect(rowsOf<{ n: number }>(await target.db.execute(sql`select count(*)::int as n from attachments`))[0]!.n).toBe(0);

    // And the intact files restore into the very same database.
    expect((await restore(encrypted)).code).toBe(0);
    await expectSameReceipts(target);
  }, 180_000);

  it('a version 1 backup made before D20 (no reconciliations, import lines, currency or closed period) still restores', async () => {
    const good = path.join(root, 'current.ledger-backup');
    expect((await ledger(['backup', good], source)).code).toBe(0);
    const rows = rowsByTable(good);
    delete rows.attachments;
    delete rows.reconciliations;
    delete rows.import_lines;
    delete rows.schedules;
    delete rows.schedule_occurrences;
    for (const entry of rows.entries!) delete entry.reconciliation_id;
    for (const row of rows.settings!) {
      delete row.currency;
      delete row.closed_through;
    }
    const file = writeVersion1(path.join(root, 'old.ledger-backup'), 7, rows);
    const target = await fresh(postgresAvailable() ? 'postgres' : 'embedded');
    const restored = await ledger(['restore', file], target);
    expect(restored.code, restored.stderr).toBe(0);
    const book = await readBook(appOn(target));
    expect(book['/settings']).toEqual({ book_style: 'club', currency: 'EUR', closed_through: null });
    expect(book.reconciliations).toEqual([]);
    expect(book['/transactions']).toEqual(before['/transactions']);
  }, 120_000);

  it('D22: a version 1 backup of schema 12 (before receipts) restores with none, the rest as before', async () => {
    const good = path.join(root, 'for-schema-12.ledger-backup');
    expect((await ledger(['backup', good], source)).code).toBe(0);
    const rows = rowsByTable(good);
    delete rows.attachments;
    const file = writeVersion1(path.join(root, 'schema-12.ledger-backup'), 12, rows);
    for (const backend of postgresAvailable() ? (['embedded', 'postgres'] as const) : (['embedded'] as const)) {
      const target = await fresh(backend);
      const restored = await ledger(['restore', file], target);
      expect(restored.code, restored.stderr).toBe(0);
      expect(lastLine(restored)).toBe(`restored ${file}: ${COUNTS.replace('4 attachments', '0 attachments')}`);
      expect(await receipts(target.db)).toEqual([]);
      expect(await readBook(appOn(target))).toEqual(before);
    }
  }, 120_000);

  it('D25: a backup made before grants (schema 10) restores each OAuth connection as a family of its own, which rotates and is revoked whole', async () => {
    const origin = await fresh('embedded');
    const owner = await addUser(origin.db, 'grants@example.com', PASSWORD);
    const pair = await issueTokenPair(origin.db, { userId: owner.id, clientId: 'ledger-cli', audience: config.apiOrigin });
    const made = path.join(root, 'grants.ledger-backup');
    expect((await ledger(['backup', made], origin)).code).toBe(0);
    const rows = rowsByTable(made);
    expect(rows.grants).toHaveLength(1);
    delete rows.grants;
    delete rows.attachments;
    delete rows.schedules;
    delete rows.schedule_occurrences;
    for (const t of rows.tokens!) delete t.grant_id;
    const file = writeVersion1(path.join(root, 'before-grants.ledger-backup'), 10, rows);
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
    const [headerLine, rest] = [text.slice(0, text.indexOf('\n')), text.slice(text.indexOf('\n') + 1)];
    const variant = (name: string, content: string) => {
      const file = path.join(root, name);
      writeFileSync(file, content);
      return file;
    };
    const empty = await fresh('embedded');

    expectOneLineRefusal(await ledger(['restore', good], source), /the database is not empty/);
    expectOneLineRefusal(await ledger(['restore', variant('notes.txt', 'groceries: 12.30\n')], empty), /is not a Ledger backup/);
    expectOneLineRefusal(await ledger(['restore', variant('binary.bin', randomBytes(200_000).toString('latin1').replaceAll('\n', ' '))], empty), /is not a Ledger backup/);
    expectOneLineRefusal(await ledger(['restore', variant('cut.ledger-backup', text.slice(0, text.length - 200))], empty), /is damaged \(truncated or altered\)/);
    expectOneLineRefusal(await ledger(['restore', variant('altered.ledger-backup', `${headerLine}\n${rest.replace('"amount_cents":1001', '"amount_cents":9001')}`)], empty), /is damaged/);
    const newer = JSON.stringify({ ...JSON.parse(headerLine), schema: 999 });
    expectOneLineRefusal(await ledger(['restore', variant('newer.ledger-backup', `${newer}\n${rest}`)], empty), /made by a newer Ledger/);
    const newerFormat = JSON.stringify({ ...JSON.parse(headerLine), version: 3 });
    expectOneLineRefusal(await ledger(['restore', variant('newer-format.ledger-backup', `${newerFormat}\n${rest}`)], empty), /made by a newer Ledger \(backup format 3/);
    // Version 1 keeps its own checks.
    const beforeReceipts = rowsByTable(good);
    delete beforeReceipts.attachments;
    const v1 = readFileSync(writeVersion1(path.join(root, 'v1.ledger-backup'), 12, beforeReceipts), 'utf8');
    expectOneLineRefusal(await ledger(['restore', variant('v1-cut.ledger-backup', v1.slice(0, v1.length - 200))], empty), /is damaged \(truncated or altered\)/);
    expect(await users(empty)).toBe(0);
    expect(await users(source)).toBe(1);
  }, 120_000);
  // Issue 36 item 3 (D14, D22): a backup is never swapped. A plain backup's checksum is unkeyed, so
  // anyone who can write the file can make one with their own user, password hash or token digest.
  const withPassphrase = { LEDGER_BACKUP_PASSPHRASE: PASSPHRASE };
  const plainBackup = async (name: string) => {
    const file = path.join(root, name);
    expect((await ledger(['backup', file], source)).code).toBe(0);
    return file;
  };

  it('issue 36 item 3 (D14): with LEDGER_BACKUP_PASSPHRASE set, restore refuses a plain backup in one line, changing nothing; --allow-plain takes it knowingly', async () => {
    const plain = await plainBackup('i36-plain.ledger-backup');
    const target = await fresh(postgresAvailable() ? 'postgres' : 'embedded');
    expectOneLineRefusal(await ledger(['restore', plain], target, withPassphrase), /is a plain backup \(neither encrypted nor authenticated\).*--allow-plain/);
    // An empty variable (a credential that was not there) is said, not taken for no passphrase.
    expectOneLineRefusal(await ledger(['restore', plain], target, { LEDGER_BACKUP_PASSPHRASE: '' }), /LEDGER_BACKUP_PASSPHRASE is empty/);
    expect(await users(target)).toBe(0);
    const taken = await ledger(['restore', plain, '--allow-plain'], target, withPassphrase);
    expect(taken.stderr).toBe('');
    expect(lastLine(taken)).toBe(`restored ${plain}: ${COUNTS}`);
    await expectSameBook(target);
  }, 120_000);

  it('issue 36 item 3 (D14): a header whose "encrypted" disagrees with how the file was read is refused: a plain file saying it was encrypted, an age file whose backup says it was not', async () => {
    const plain = await plainBackup('i36-flag.ledger-backup');
    const target = await fresh(postgresAvailable() ? 'postgres' : 'embedded');
    const claimsEncrypted = rewrittenBackup(plain, path.join(root, 'i36-claims-encrypted.ledger-backup'), (lines) => {
      lines[0]!.encrypted = true;
    });
    // Plain files are taken without a passphrase, and knowingly with --allow-plain: not this one, either way.
    expectOneLineRefusal(await ledger(['restore', claimsEncrypted], target), /says it was written encrypted, but it is a plain file/);
    expectOneLineRefusal(await ledger(['restore', claimsEncrypted, '--allow-plain'], target, withPassphrase), /says it was written encrypted, but it is a plain file/);
    const noFlag = rewrittenBackup(plain, path.join(root, 'i36-no-flag.ledger-backup'), (lines) => {
      delete lines[0]!.encrypted;
    });
    expectOneLineRefusal(await ledger(['restore', noFlag], target), /does not say whether it was written encrypted/);
    // A plain backup sealed afterwards with the passphrase (age -p): it was not written by `ledger backup --encrypt`.
    const sealedPlain = await sealedWithAge(plain, path.join(root, 'i36-sealed-plain.age'), PASSPHRASE, 17);
    expectOneLineRefusal(await ledger(['restore', sealedPlain], target, withPassphrase), /says it was written plain, but it is an encrypted file/);
    expect(await users(target)).toBe(0);
    // The very same plain backup, flag intact, restores.
    expect((await ledger(['restore', plain], target)).code).toBe(0);
    await expectSameBook(target);
  }, 120_000);

  it('issue 36 item 3 (D22): a new encrypted backup derives its key with scrypt at 2^17 or more (the age header\'s stanza); one written at 2^15 by an older Ledger, and one re-sealed by `age -p` at 2^18, restore as written; one asking for 2^19 is refused', async () => {
    const encrypted = path.join(root, 'i36-work-factor.age');
    expect((await ledger(['backup', encrypted, '--encrypt'], source, withPassphrase)).code).toBe(0);
    expect(scryptWorkFactor(encrypted)).toBeGreaterThanOrEqual(17);

    // What an older Ledger wrote: the same lines (its header saying encrypted), sealed at 2^15.
    const inner = rewrittenBackup(await plainBackup('i36-inner.ledger-backup'), path.join(root, 'i36-inner-encrypted.ledger-backup'), (lines) => {
      lines[0]!.encrypted = true;
    });
    for (const logN of [15, 18]) {
      const sealed = await sealedWithAge(inner, path.join(root, `i36-scrypt-${logN}.age`), PASSPHRASE, logN);
      expect(scryptWorkFactor(sealed)).toBe(logN);
      const target = await fresh(logN === 15 ? 'embedded' : postgresAvailable() ? 'postgres' : 'embedded');
      const restored = await ledger(['restore', sealed], target, withPassphrase);
      expect(restored.stderr).toBe('');
      expect(lastLine(restored)).toBe(`restored ${sealed}: ${COUNTS}`);
      await expectSameBook(target);
    }
    // Its stanza says 2^19 (its header MAC no longer matches, but the refusal comes before any scrypt work or MAC).
    const dear = path.join(root, 'i36-scrypt-19.age');
    const at18 = readFileSync(path.join(root, 'i36-scrypt-18.age'), 'latin1');
    writeFileSync(dear, at18.replace(/^(age-encryption\.org\/v1\n-> scrypt [A-Za-z0-9+/]{22}) 18\n/, '$1 19\n'), 'latin1');
    expect(scryptWorkFactor(dear)).toBe(19);
    const target = await fresh('embedded');
    expectOneLineRefusal(await ledger(['restore', dear], target, withPassphrase), /asks for a scrypt work factor above 2\^18/);
    expect(await users(target)).toBe(0);
  }, 180_000);

  it('issue 36 item 3 (D22): backup --encrypt refuses a passphrase under 12 characters and writes nothing; 12 characters are enough', async () => {
    const file = path.join(root, 'i36-short.age');
    expectOneLineRefusal(await ledger(['backup', file, '--encrypt'], source, { LEDGER_BACKUP_PASSPHRASE: 'eleven char' }), /passphrase .*at least 12 characters/);
    expect(existsSync(file)).toBe(false);
    // Characters, not bytes: twelve of them, however many bytes each takes.
    expect((await ledger(['backup', file, '--encrypt'], source, { LEDGER_BACKUP_PASSPHRASE: 'ñandú-jaguar' })).code).toBe(0);
    expect(scryptWorkFactor(file)).toBeGreaterThanOrEqual(17);
  }, 60_000);

  it('issue 36 item 3 (D23): deploy/ledger-backup.sh fails without its credential (none, missing, empty or too short) and writes no backup', async () => {
    const dir = path.join(root, 'i36-script-backups');
    const credentials = path.join(root, 'i36-credentials');
    mkdirSync(dir, { mode: 0o700 });
    mkdirSync(credentials, { mode: 0o700 });
    const script = (env: Record<string, string>) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn('bash', [path.resolve('deploy/ledger-backup.sh')], {
          env: { PATH: process.env.PATH, DATABASE_URL: source.url, LEDGER_BACKUP_DIR: dir, ...env },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        child.once('close', (code) => resolve({ code, stderr }));
      });
    const noCredential = await script({});
    expect(noCredential.code).not.toBe(0);
    expect(noCredential.stderr).toMatch(/^ledger-backup: no credential backup-passphrase/);
    const missing = await script({ CREDENTIALS_DIRECTORY: credentials });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/^ledger-backup: no credential backup-passphrase/);
    writeFileSync(path.join(credentials, 'backup-passphrase'), '\n', { mode: 0o600 });
    const empty = await script({ CREDENTIALS_DIRECTORY: credentials });
    expect(empty.code).not.toBe(0);
    expect(empty.stderr).toMatch(/LEDGER_BACKUP_PASSPHRASE is empty|credential backup-passphrase is empty/);
    writeFileSync(path.join(credentials, 'backup-passphrase'), 'short\n', { mode: 0o600 });
    const short = await script({ CREDENTIALS_DIRECTORY: credentials });
    expect(short.code).not.toBe(0);
    expect(short.stderr).toMatch(/at least 12 characters/);
    expect(readdirSync(dir)).toEqual([]);
  }, 60_000);

  it('issue 36 item 5 (D14): a restore the database refuses names the table and row number only: no password hash, token digest or receipt bytes on stderr', async () => {
    const plain = await plainBackup('i36-rows.ledger-backup');
    const rows = rowsByTable(plain);
    const passwordHash = rows.users![0]!.password_hash as string;
    const tokenDigest = rows.tokens![0]!.hash as string;
    expect(passwordHash).toMatch(/^\$argon2/);
    const target = await fresh(postgresAvailable() ? 'postgres' : 'embedded');
    const refusedQuietly = (result: Awaited<ReturnType<typeof ledger>>, pattern: RegExp, secrets: string[]) => {
      expectOneLineRefusal(result, pattern);
      for (const secret of secrets) expect(result.stderr).not.toContain(secret);
      expect(result.stderr).not.toMatch(/Failed query|params|insert into/i);
    };

    // The user twice: the second is refused (its key is taken).
    const twice = rewrittenBackup(plain, path.join(root, 'i36-user-twice.ledger-backup'), (lines) => {
      const line = lines.find((l) => l.table === 'users')!;
      (line.rows as Json[]).push({ ...(line.rows as Json[])[0]! });
    });
    refusedQuietly(await ledger(['restore', twice], target), /refuses row 2 of users \(\S+\)$/m, [passwordHash, tokenDigest, 'keeper@example.com']);
    // A token of a user the backup does not hold.
    const orphan = rewrittenBackup(plain, path.join(root, 'i36-token-orphan.ledger-backup'), (lines) => {
      const line = lines.find((l) => l.table === 'tokens')!;
      for (const row of line.rows as Json[]) row.user_id = 999_999;
    });
    refusedQuietly(await ledger(['restore', orphan], target), /refuses row 1 of tokens \(\S+\)$/m, [passwordHash, tokenDigest]);
    // A receipt's bytes that are not base64: the bytes of the line are not shown.
    let piece = '';
    const badBytes = rewrittenBackup(plain, path.join(root, 'i36-bad-bytes.ledger-backup'), (lines) => {
      const line = lines.find((l) => typeof l.attachment === 'number' && (l.bytes as string).length > 1000)!;
      piece = (line.bytes as string).slice(0, 64);
      line.bytes = `${line.bytes as string}*`;
    });
    refusedQuietly(await ledger(['restore', badBytes], target), /refuses row \d+ of attachments \(its bytes\)$/m, [piece, passwordHash]);
    expect(await users(target)).toBe(0);
  }, 120_000);
});
