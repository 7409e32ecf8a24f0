import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { drizzle } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import type postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { loadConfig } from '../src/config';
import { MIGRATIONS_FOLDER, openConnection, openPostgres, type Database } from '../src/db/database';
import { createApp, type App } from '../src/http/app';
import { BACKENDS, postgresAvailable } from './support/databases';
import { TEST_ENV } from './support/harness';
import { json, sha256Hex } from './support/http';

// D20 "Upgrades" and D6: a book written by the previous release (migrations 0000–0006, the release
// before reconciliation) migrates and starts with this build. Its case twins among account names
// are renamed with " (2)", " (3)" … (cut to stay within 100 characters), one stderr line each;
// everything else it holds is kept exactly; the settings gain currency EUR and no closed period;
// and the app serves it with the same figures, reconciliation included.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

/** The last migration of the previous release (drizzle/meta/_journal.json idx). */
const PREVIOUS_RELEASE_LAST_IDX = 6;

const LONG = `Membership dues of the rowing club, collected each spring from every active and supporting member`.padEnd(100, '.');
const LONG_TWIN = LONG.toUpperCase();

/** A copy of drizzle/ whose journal stops at the previous release. */
async function previousReleaseMigrations(): Promise<string> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'ledger-previous-release-'));
  await cp(MIGRATIONS_FOLDER, folder, { recursive: true });
  const journalPath = path.join(folder, 'meta', '_journal.json');
  const journal = JSON.parse(await readFile(journalPath, 'utf8')) as { entries: { idx: number; tag: string }[] };
  const later = journal.entries.filter((e) => e.idx > PREVIOUS_RELEASE_LAST_IDX).map((e) => e.tag);
  journal.entries = journal.entries.filter((e) => e.idx <= PREVIOUS_RELEASE_LAST_IDX);
  await writeFile(journalPath, JSON.stringify(journal, null, 2));
  for (const file of await readdir(folder)) if (later.some((tag) => file.startsWith(tag))) await rm(path.join(folder, file));
  return folder;
}

/** Everything the previous release stored that must come through the upgrade unchanged. */
async function snapshot(sql: postgres.Sql) {
  return {
    users: await sql`select id, email, password_hash, created_at::text from users order by id`,
    accounts: await sql`select id, kind::text, created_at::text from accounts order by id`,
    transactions: await sql`select id, occurred_on::text, description, created_by, created_at::text from transactions order by id`,
    entries: await sql`select id::text, transaction_id, account_id, amount_cents::text, occurred_on::text from entries order by entries.id`,
    changes: await sql`select id::text, at::text, actor_email, via, client_id, subject, subject_id, action, before, after from changes order by changes.id`,
    importRules: await sql`select id, pattern, account_id, created_at::text from import_rules order by id`,
    importReferences: await sql`select account_id, reference, transaction_id from import_references order by account_id, reference`,
    tokens: await sql`select hash, user_id, client_id, audience from tokens order by hash`,
  };
}

/** Records what is written on stderr, keeping the rename lines out of the test run's output. */
function quietRenames() {
  const write = process.stderr.write.bind(process.stderr);
  return vi.spyOn(process.stderr, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) =>
    String(chunk).startsWith('ledger: account ') ? true : (write as (...a: unknown[]) => boolean)(chunk, ...rest)) as typeof process.stderr.write);
}

for (const backend of BACKENDS) {
  describe.skipIf(backend === 'postgres' && !postgresAvailable())(`a book written by the previous release migrates and starts (D20 Upgrades, D6) [${backend}]`, () => {
    const name = `ledger_upgrade_${process.pid}_${randomBytes(4).toString('hex')}`;
    let maintenanceUrl: string;
    let url: string;
    let database: Database | undefined;
    let app: App;
    let token: string;
    let before: Awaited<ReturnType<typeof snapshot>>;
    /** The previous release's ids and what this build should make of them. */
    const id: Record<string, number> = {};
    const tid: Record<string, number> = {};
    /** The previous release's OAuth grant, by role (D25). */
    const family: Record<string, string> = {};
    let stderrLines: string[] = [];
    let oldSchemaChecked = false;
    /** Each account's natural balance (D6), per the previous release's rows, as of the end of 2026. */
    let naturalBefore: Map<number, number>;

    const api = async (method: string, pathName: string, body?: unknown) =>
      Promise.resolve(app.request(new URL(pathName, TEST_ENV.API_ORIGIN).href, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }));

    beforeAll(async () => {
      const templateUrl = backend === 'embedded' ? inject('embeddedTemplate') : inject('postgresTemplate')!;
      const maintenance = new URL(templateUrl);
      maintenance.pathname = '/postgres';
      maintenanceUrl = maintenance.href;
      const target = new URL(templateUrl);
      target.pathname = `/${name}`;
      url = target.href;
      const admin = openConnection(maintenanceUrl);
      try {
        await admin.unsafe(`create database "${name}"`);
      } finally {
        await admin.end();
      }

      // The previous release's schema, and a book written as it wrote one.
      const folder = await previousReleaseMigrations();
      const old = openConnection(url);
      try {
        await migrate(drizzle(old), { migrationsFolder: folder });
        const [schema] = await old`
          select to_regclass('reconciliations') is null as no_reconciliations,
            not exists (select 1 from information_schema.columns where table_name = 'settings' and column_name = 'currency') as no_currency,
            (select count(*)::integer from drizzle.__drizzle_migrations) as applied`;
        oldSchemaChecked = schema!.no_reconciliations && schema!.no_currency && schema!.applied === PREVIOUS_RELEASE_LAST_IDX + 1;

        await old.begin(async (sql) => {
          const [anna] = await sql`insert into users (email, password_hash)
            values ('anna@upgrade.example', '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2g') returning id`;
          id.anna = anna!.id;
          for (const [key, accountName, kind] of [
            ['bank', 'Bank', 'asset'], ['box', 'Cash box', 'asset'], ['box2', 'cash BOX', 'asset'], ['opening', 'Opening', 'equity'],
            ['box3', 'CASH BOX', 'asset'], ['groceries', 'Groceries', 'expense'], ['long', LONG, 'income'], ['longTwin', LONG_TWIN, 'income'],
            ['dues', 'Dues', 'income'], ['duesTaken', 'Dues (2)', 'income'], ['duesTwin', 'DUES', 'income'],
          ] as const) {
            const [row] = await sql`insert into accounts (name, kind) values (${accountName}, ${kind}) returning id`;
            id[key] = row!.id;
          }
          const post = async (key: string, on: string, description: string, lines: [string, number][]) => {
            const [row] = await sql`insert into transactions (occurred_on, description, created_by) values (${on}, ${description}, ${id.anna!}) returning id`;
            tid[key] = row!.id;
            for (const [account, cents] of lines) {
              await sql`insert into entries (transaction_id, occurred_on, account_id, amount_cents) values (${row!.id}, ${on}, ${id[account]!}, ${cents})`;
            }
          };
          await post('opening', '2026-01-01', 'Opening balance', [['bank', 100_000], ['opening', -100_000]]);
          await post('box', '2026-01-05', 'Into the cash box', [['box', 5_000], ['bank', -5_000]]);
          await post('box2', '2026-01-07', 'Into the second box', [['box2', 2_000], ['bank', -2_000]]);
          await post('groceries', '2026-01-10', 'Groceries from the third box', [['groceries', 3_456], ['box3', -3_456]]);
          await post('dues', '2026-01-20', 'Dues, spring', [['bank', 12_000], ['long', -6_000], ['longTwin', -5_000], ['duesTwin', -1_000]]);
          await post('imported', '2026-02-03', 'REWE 0815 (imported)', [['groceries', 999], ['bank', -999]]);
          await sql`insert into import_rules (pattern, account_id) values ('REWE', ${id.groceries!})`;
          await sql`insert into import_references (account_id, reference, transaction_id) values
            (${id.bank!}, 'REF-2026-0203-0001', ${tid.imported!}), (${id.bank!}, 'REF-2026-0105-0042', ${tid.box!})`;
          await sql`update settings set book_style = 'club' where id = 1`;
          await sql`insert into changes (actor_email, via, client_id, subject, subject_id, action, before, after) values
            ('anna@upgrade.example', 'token', 'ledger-cli', 'transaction', ${tid.opening!}, 'create', null,
              ${JSON.stringify({ id: tid.opening!, occurred_on: '2026-01-01', description: 'Opening balance', created_by_email: 'anna@upgrade.example', entries: [] })}::jsonb),
            ('anna@upgrade.example', 'session', null, 'settings', null, 'update', ${JSON.stringify({ book_style: 'personal' })}::jsonb, ${JSON.stringify({ book_style: 'club' })}::jsonb)`;
        });
        // An OAuth grant of the previous release, rotated once: R1 (retired) → R2 (live) → A2, and
        // R1's own access token A1. D25: after the upgrade it is one family, named after R1.
        for (const [key, kind, parent, retired] of [
          ['r1', 'refresh', null, true], ['a1', 'access', 'r1', false], ['r2', 'refresh', 'r1', false], ['a2', 'access', 'r2', false],
        ] as const) {
          family[key] = `lg_${randomBytes(32).toString('base64url')}`;
          await old`insert into tokens (hash, kind, user_id, client_id, parent_hash, audience, expires_at, retired_at)
            values (${sha256Hex(family[key])}, ${kind}, ${id.anna!}, 'ledger-cli', ${parent === null ? null : sha256Hex(family[parent]!)},
              ${TEST_ENV.API_ORIGIN}, now() + interval '1 day', case when ${retired}::boolean then now() - interval '1 hour' end)`;
        }
        // A token minted by the previous release: the tests below call the API with it after the upgrade.
        // Written as that release's `ledger mint-token` wrote it (this build's mintToken knows columns it had not).
        token = `lg_${randomBytes(32).toString('base64url')}`;
        await old`insert into tokens (hash, kind, user_id, client_id, label, audience, expires_at)
          values (${sha256Hex(token)}, 'access', ${id.anna!}, 'ledger-cli', 'before the upgrade', ${TEST_ENV.API_ORIGIN}, now() + interval '1 day')`;
        before = await snapshot(old);
        const balances = await old`
          select a.id, (case when a.kind in ('liability', 'equity', 'income') then -1 else 1 end * coalesce(sum(e.amount_cents), 0))::text as natural
          from accounts a left join entries e on e.account_id = a.id and e.occurred_on <= '2026-12-31' group by a.id`;
        naturalBefore = new Map(balances.map((r) => [Number(r.id), Number(r.natural)]));
      } finally {
        await old.end();
        await rm(folder, { recursive: true, force: true });
      }

      // This build opens it: it migrates to the latest and says what it renamed, on stderr.
      const write = quietRenames();
      try {
        database = await openPostgres(url, { backend });
      } finally {
        stderrLines = write.mock.calls.map((call) => String(call[0]));
        write.mockRestore();
      }
      app = createApp({ db: database.db, config: loadConfig(TEST_ENV), log: { info: () => {}, error: () => {} } });
    });

    afterAll(async () => {
      await database?.close();
      const admin = openConnection(maintenanceUrl);
      try {
        await admin.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await admin.end();
      }
    });

    /** What the previous release's names become (D6): later twins by id get " (n)", the first free n from 2. */
    const renamed = () => ({
      [id.box3!]: ['CASH BOX', 'CASH BOX (3)'],
      [id.box2!]: ['cash BOX', 'cash BOX (2)'],
      [id.longTwin!]: [LONG_TWIN, `${LONG_TWIN.slice(0, 96)} (2)`],
      // "DUES (2)" is taken, without regard to case, by the account named "Dues (2)": the next number.
      [id.duesTwin!]: ['DUES', 'DUES (3)'],
    });

    it('the book was written on the previous release\'s schema (no reconciliations, no currency, migrations 0000–0006)', () => {
      expect(oldSchemaChecked).toBe(true);
    });

    it('D6: one `ledger: account N renamed …` line on stderr per case twin, each renamed with " (2)", " (3)" …; the 100-character one cut to stay at 100', async () => {
      const lines = stderrLines.join('').split('\n').filter((l) => l.startsWith('ledger: '));
      const expected = Object.entries(renamed())
        .sort(([a], [b]) => Number(a) - Number(b))
        .map(([accountId, [from, to]]) => `ledger: account ${accountId} renamed from "${from}" to "${to}": names are unique without regard to case (D6)`);
      expect(lines).toEqual(expected);
      expect(renamed()[id.longTwin!]![1]).toHaveLength(100);

      const accounts = await json(await api('GET', '/accounts'));
      const names = Object.fromEntries(accounts.map((a: Json) => [a.id, a.name]));
      expect(names).toEqual({
        [id.bank!]: 'Bank', [id.box!]: 'Cash box', [id.box2!]: 'cash BOX (2)', [id.opening!]: 'Opening', [id.box3!]: 'CASH BOX (3)',
        [id.groceries!]: 'Groceries', [id.long!]: LONG, [id.longTwin!]: `${LONG_TWIN.slice(0, 96)} (2)`,
        [id.dues!]: 'Dues', [id.duesTaken!]: 'Dues (2)', [id.duesTwin!]: 'DUES (3)',
      });
      const lowered = accounts.map((a: Json) => a.name.toLowerCase());
      expect(new Set(lowered).size).toBe(accounts.length);
      for (const a of accounts) expect([...a.name].length, a.name).toBeLessThanOrEqual(100);
      // And the database holds names unique without regard to case from now on.
      const twin = await api('POST', '/accounts', { name: 'CASH box', kind: 'asset' });
      expect(twin.status).toBe(400);
      expect(await json(twin)).toEqual({ error: 'an account with that name already exists' });
    });

    it('starts again without renaming anything or changing a thing (the migrations are done once)', async () => {
      const write = quietRenames();
      let again: Database | undefined;
      try {
        again = await openPostgres(url, { backend, max: 1 });
      } finally {
        const said = write.mock.calls.map((call) => String(call[0])).join('');
        write.mockRestore();
        await again?.close();
        expect(said).not.toMatch(/ledger: account/);
      }
    });

    it('every user, account (but for the renamed names), transaction, entry, change record, import rule, bank reference and token is as the previous release left it, and its token still works', async () => {
      const inspect = openConnection(url);
      try {
        const after = await snapshot(inspect);
        // Minted after the upgrade, for these tests: not the previous release's.
        expect(after).toEqual(before);
        expect(before.entries).toHaveLength(14);
        expect(before.tokens).toHaveLength(5);
        expect(before.importReferences).toHaveLength(2);
        expect(before.changes).toHaveLength(2);
        const [marked] = await inspect`select count(*)::integer as n from entries where reconciliation_id is not null`;
        expect(marked!.n).toBe(0);
        expect((await api('GET', '/auth/me')).status).toBe(200);
      } finally {
        await inspect.end();
      }
    });

    it("D25: the previous release's OAuth grant is one family, its live refresh token rotates within it, and DELETE /auth/grants/{grant_id}'s revocation reaches it whole", async () => {
      const inspect = openConnection(url);
      try {
        const rows = await inspect`select hash, grant_id::text from tokens where user_id = ${id.anna!} and client_id = 'ledger-cli'`;
        const grantOf = new Map(rows.map((r) => [r.hash as string, r.grant_id as string | null]));
        const familyId = grantOf.get(sha256Hex(family.r1!));
        expect(familyId).toMatch(/^[0-9a-f-]{36}$/);
        for (const key of ['a1', 'r2', 'a2']) expect(grantOf.get(sha256Hex(family[key]!)), key).toBe(familyId);
        // The token minted by the previous release belongs to no family.
        expect([...grantOf.values()].filter((g) => g === null)).toHaveLength(1);
        const rotated = await app.request(new URL('/oauth/token', TEST_ENV.API_ORIGIN).href, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: family.r2!, client_id: 'ledger-cli' }).toString(),
        });
        expect(rotated.status).toBe(200);
        const pair = (await rotated.json()) as { access_token: string };
        const [joined] = await inspect`select grant_id::text from tokens where hash = ${sha256Hex(pair.access_token)}`;
        expect(joined!.grant_id).toBe(familyId);
      } finally {
        await inspect.end();
      }
    });

    it('D20: settings are {book_style, currency: EUR, closed_through: null}', async () => {
      const res = await api('GET', '/settings');
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual({ book_style: 'club', currency: 'EUR', closed_through: null });
    });

    it('the app serves it: GET /accounts, GET /transactions and GET /reports/balances give the same figures as the rows the previous release wrote', async () => {
      const accounts = await json(await api('GET', '/accounts'));
      const kinds = new Map(before.accounts.map((a) => [Number(a.id), a.kind]));
      expect(accounts.map((a: Json) => a.id).sort((x: number, y: number) => x - y)).toEqual([...kinds.keys()]);
      for (const a of accounts) expect(a.kind, a.name).toBe(kinds.get(a.id));
      const nameOf = new Map<number, string>(accounts.map((a: Json) => [a.id, a.name]));

      const transactions = await json(await api('GET', '/transactions'));
      const expected = [...before.transactions]
        .sort((a, b) => (a.occurred_on === b.occurred_on ? b.id - a.id : a.occurred_on < b.occurred_on ? 1 : -1))
        .map((t) => ({
          id: t.id,
          occurred_on: t.occurred_on,
          description: t.description,
          created_by_email: 'anna@upgrade.example',
          entries: before.entries.filter((e) => e.transaction_id === t.id).map((e) => ({
            account_id: e.account_id, account_name: nameOf.get(e.account_id), amount_cents: Number(e.amount_cents),
          })),
        }));
      expect(transactions).toEqual(expected);

      const balances = await json(await api('GET', '/reports/balances?as_of=2026-12-31'));
      expect(balances.accounts).toHaveLength(naturalBefore.size);
      for (const line of balances.accounts) {
        expect(line.balance_cents, line.name).toBe(naturalBefore.get(line.id));
        expect(line.name).toBe(nameOf.get(line.id));
      }
      expect(Object.fromEntries(balances.accounts.map((l: Json) => [l.id, l.balance_cents]))).toEqual(Object.fromEntries(naturalBefore));
      // The figures themselves, as the previous release's rows say: 100,000 in, 7,000 to the boxes, 12,000 of dues, 9.99 spent.
      expect(naturalBefore.get(id.bank!)).toBe(100_000 - 5_000 - 2_000 + 12_000 - 999);
      expect(naturalBefore.get(id.box3!)).toBe(-3_456);
      expect(naturalBefore.get(id.longTwin!)).toBe(5_000);
    });

    it('D20 works on the upgraded book: the bank reconciled against a statement, its transactions then fixed; the change log goes on', async () => {
      const statement = 100_000 - 5_000 - 2_000 + 12_000;
      const res = await api('POST', `/accounts/${id.bank}/reconciliations`, { statement_date: '2026-01-31', statement_balance_cents: statement });
      expect(res.status, await res.clone().text()).toBe(201);
      const made = await json(res);
      expect(made).toMatchObject({
        account_id: id.bank, statement_date: '2026-01-31', statement_balance_cents: statement,
        transaction_ids: [tid.opening, tid.box, tid.box2, tid.dues].sort((a, b) => a! - b!),
        created_by_email: 'anna@upgrade.example',
      });
      const status = await json(await api('GET', `/accounts/${id.bank}/reconciliation?as_of=2026-02-28`));
      expect(status).toMatchObject({ reconciled_balance_cents: statement, book_balance_cents: statement - 999 });
      expect(status.unreconciled.map((u: Json) => u.transaction_id)).toEqual([tid.imported]);

      const refused = await api('PUT', `/transactions/${tid.box}`, {
        occurred_on: '2026-01-05', description: 'Into the cash box',
        entries: [{ account_id: id.box, amount_cents: 5_001 }, { account_id: id.bank, amount_cents: -5_001 }],
      });
      expect(refused.status).toBe(409);
      expect(await json(refused)).toEqual({ error: 'the transaction is reconciled' });

      const log = (await json(await api('GET', '/changes?limit=500'))).changes;
      expect(log.map((c: Json) => [c.subject, c.action])).toEqual([['reconciliation', 'create'], ['settings', 'update'], ['transaction', 'create']]);
      expect(log[2]).toMatchObject({ subject_id: tid.opening, actor_email: 'anna@upgrade.example', via: 'token', client_id: 'ledger-cli' });
    });
  });
}
