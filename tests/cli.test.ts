import { verify } from '@node-rs/argon2';
import { eq } from 'drizzle-orm';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAccount } from '../src/book/accounts';
import { MIGRATIONS_FOLDER, type Db } from '../src/db/database';
import { entries, passkeys, sessions, tokens, transactions, users } from '../src/db/schema';
import { randomSecret, sha256Hex } from '../src/identity/secrets';
import { authenticateBearer, mintToken } from '../src/identity/tokens';
import { CLI_ACTOR } from '../src/book/changes';
import { postTransaction } from '../src/book/transactions';
import { BACKENDS, openTestDatabase, postgresAvailable, type TestDatabase } from './support/databases';
import { newDataRoot, stopEmbedded, withEmbeddedDb } from './support/embedded';
import { freePort, lastLine, runLedger, runLedgerInProcess, startServe, type CliResult, type ServeProcess } from './support/processes';

// Spec: Admin commands; D1 (scriptable output, one-line errors), D5 (mint-token). README: Admin
// commands. Commands run as real `ledger` processes against a real database: a cloned PostgreSQL
// database, or an embedded data directory of its own (D2: `file:<dir>`, the cluster started per
// command). The table of refusals runs through the same command layer in this process.

const DAY_MS = 86_400_000;
const DEFAULT_API_ORIGIN = 'http://localhost:38081';
/** README: a generated password has 20 characters from a 57-symbol alphabet. */
const GENERATED_PASSWORD = /^[A-HJ-NP-Za-km-z2-9]{20}$/;

/** D1 / README: every failure is exactly one line on stderr starting `ledger:`, exit status 1. */
function expectRefusal(result: CliResult, message: string, label = message) {
  expect(result.code, label).toBe(1);
  expect(result.stdout, label).toBe('');
  expect(result.stderr, label).toBe(`ledger: ${message}\n`);
  expect(result.stderr, label).not.toMatch(/^\s+at /m);
}

const idHash = () => sha256Hex(randomSecret());

for (const backend of BACKENDS) {
  describe.skipIf(backend === 'postgres' && !postgresAvailable())(`ledger admin commands as processes [${backend}]`, () => {
    let database: TestDatabase | undefined;
    /** The processes' working directory; for the embedded backend, `data/` inside it is the data directory. */
    let root: string;
    let dataDir: string;
    let env: Record<string, string>;

    const ledger = (args: string[], stdin?: string, extra: Record<string, string> = {}) =>
      runLedger(args, { env: { ...env, ...extra }, stdin, cwd: root });

    /**
     * Reads or writes the database between commands: the test's own connection to PostgreSQL, or
     * the embedded cluster of the data directory as an admin command opens it (D2).
     */
    async function withDb<T>(work: (db: Db) => Promise<T>): Promise<T> {
      return database ? work(database.db) : withEmbeddedDb(dataDir, work);
    }

    async function userByEmail(db: Db, email: string) {
      const [user] = await db.select().from(users).where(eq(users.email, email));
      if (!user) throw new Error(`no user ${email}`);
      return user;
    }

    /** Everything a refused command must leave as it was. */
    async function snapshot(db: Db) {
      const byKey = <T>(rows: T[], key: (row: T) => string) => rows.sort((a, b) => key(a).localeCompare(key(b)));
      return {
        users: byKey(await db.select().from(users), (u) => u.email),
        tokens: byKey(await db.select().from(tokens), (t) => t.hash),
        sessions: byKey(await db.select().from(sessions), (s) => s.idHash),
        passkeys: byKey(await db.select().from(passkeys), (p) => p.credentialId),
      };
    }

    let alicePassword: string;
    let aliceToken: string;

    beforeAll(async () => {
      root = newDataRoot(`ledger-cli-${backend}-`);
      dataDir = path.join(root, 'data');
      if (backend === 'postgres') {
        database = await openTestDatabase('postgres');
        env = { DATABASE_URL: database.url! };
      } else {
        env = { DATABASE_URL: `file:${dataDir}` };
      }
    });
    afterAll(async () => {
      await database?.close();
      rmSync(root, { recursive: true, force: true });
    });

    it('D1: user add prints the generated password alone on the last line of stdout; it is stored as an argon2id hash that verifies it', async () => {
      const result = await ledger(['user', 'add', 'alice@example.com']);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      alicePassword = lastLine(result);
      expect(alicePassword).toMatch(GENERATED_PASSWORD);
      expect(result.stdout.endsWith(`\n${alicePassword}\n`)).toBe(true);
      expect(result.stdout.indexOf(alicePassword)).toBe(result.stdout.lastIndexOf(alicePassword));

      await withDb(async (db) => {
        const alice = await userByEmail(db, 'alice@example.com');
        expect(alice.passwordHash.startsWith('$argon2id$')).toBe(true);
        expect(alice.passwordHash).not.toContain(alicePassword);
        expect(await verify(alice.passwordHash, alicePassword)).toBe(true);
        expect(await verify(alice.passwordHash, `${alicePassword}x`)).toBe(false);
      });
    }, 60_000);

    it('emails are trimmed and lower-cased; --password - reads the first line of stdin (LF or CRLF), 12 characters being enough', async () => {
      const bob = await ledger(['user', 'add', '  Bob@Example.COM ', '--password', '-'], 'bob password 123\nsecond line\n');
      expect(bob.code).toBe(0);
      expect(bob.stderr).toBe('');
      expect(bob.stdout).not.toContain('bob password');
      const carol = await ledger(['user', 'add', 'carol@example.com', '--password', '-'], 'twelve chars\r\n');
      expect(carol.code).toBe(0);

      await withDb(async (db) => {
        expect((await db.select().from(users).where(eq(users.email, '  Bob@Example.COM '))).length).toBe(0);
        const stored = await userByEmail(db, 'bob@example.com');
        expect(stored.passwordHash.startsWith('$argon2id$')).toBe(true);
        expect(await verify(stored.passwordHash, 'bob password 123')).toBe(true);
        expect(await verify(stored.passwordHash, 'bob password 123\nsecond line')).toBe(false);
        const twelve = await userByEmail(db, 'carol@example.com');
        expect(await verify(twelve.passwordHash, 'twelve chars')).toBe(true);
        expect((await db.select().from(users)).map((u) => u.email).sort()).toEqual([
          'alice@example.com',
          'bob@example.com',
          'carol@example.com',
        ]);
      });
    }, 60_000);

    it('D1: user list prints one line per user: email, passkey count, last seen (ISO 8601 or never), tab-separated', async () => {
      await withDb(async (db) => {
        const alice = await userByEmail(db, 'alice@example.com');
        await db.insert(passkeys).values([
          { userId: alice.id, credentialId: 'alice-key-1', publicKey: 'pk1', name: 'laptop' },
          { userId: alice.id, credentialId: 'alice-key-2', publicKey: 'pk2', name: 'phone' },
        ]);
        await db.update(users).set({ lastSeenAt: new Date('2026-03-04T05:06:07.089Z') }).where(eq(users.email, 'bob@example.com'));
      });
      const result = await ledger(['user', 'list']);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout.endsWith('\n')).toBe(true);
      expect(result.stdout.slice(0, -1).split('\n').sort()).toEqual([
        'alice@example.com\t2\tnever',
        'bob@example.com\t0\t2026-03-04T05:06:07.089Z',
        'carol@example.com\t0\tnever',
      ]);
    });

    it('D5: mint-token prints lg_… alone on the last line: an access token of ledger-cli with that label, no parent, expiring after --days', async () => {
      const before = Date.now();
      const result = await ledger(['mint-token', 'alice@example.com', '--label', 'x', '--days', '3']);
      const after = Date.now();
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      aliceToken = lastLine(result);
      expect(aliceToken).toMatch(/^lg_[A-Za-z0-9_-]{43}$/);
      expect(result.stdout.endsWith(`\n${aliceToken}\n`)).toBe(true);
      expect(result.stdout.indexOf(aliceToken)).toBe(result.stdout.lastIndexOf(aliceToken));

      await withDb(async (db) => {
        const alice = await userByEmail(db, 'alice@example.com');
        const rows = await db.select().from(tokens);
        expect(rows).toHaveLength(1);
        const [row] = rows;
        // Stored only as its SHA-256 digest (D5).
        expect(JSON.stringify(rows)).not.toContain(aliceToken);
        expect(row).toMatchObject({
          hash: sha256Hex(aliceToken),
          kind: 'access',
          userId: alice.id,
          clientId: 'ledger-cli',
          parentHash: null,
          label: 'x',
          audience: DEFAULT_API_ORIGIN,
          revokedAt: null,
          retiredAt: null,
        });
        expect(row!.expiresAt.getTime()).toBeGreaterThanOrEqual(before + 3 * DAY_MS - 5_000);
        expect(row!.expiresAt.getTime()).toBeLessThanOrEqual(after + 3 * DAY_MS + 5_000);
        expect(await authenticateBearer(db, aliceToken, DEFAULT_API_ORIGIN)).toMatchObject({ userId: alice.id, email: 'alice@example.com' });
      });
    }, 60_000);

    it('D5: mint-token lives 365 days without --days, has no label without --label, and is audienced to API_ORIGIN', async () => {
      const before = Date.now();
      const result = await ledger(['mint-token', ' Alice@Example.COM'], undefined, { API_ORIGIN: 'HTTP://Books.Example:38081/' });
      const after = Date.now();
      expect(result.code).toBe(0);
      const token = lastLine(result);
      expect(token).toMatch(/^lg_[A-Za-z0-9_-]{43}$/);
      expect(token).not.toBe(aliceToken);

      await withDb(async (db) => {
        const [row] = await db.select().from(tokens).where(eq(tokens.hash, sha256Hex(token)));
        expect(row).toMatchObject({ kind: 'access', clientId: 'ledger-cli', parentHash: null, label: null, audience: 'http://books.example:38081' });
        expect(row!.expiresAt.getTime()).toBeGreaterThanOrEqual(before + 365 * DAY_MS - 5_000);
        expect(row!.expiresAt.getTime()).toBeLessThanOrEqual(after + 365 * DAY_MS + 5_000);
        expect(await authenticateBearer(db, token, 'http://books.example:38081')).toMatchObject({ email: 'alice@example.com' });
        // Another audience does not accept it (RFC 8707).
        expect(await authenticateBearer(db, token, DEFAULT_API_ORIGIN)).toBeUndefined();
      });
    }, 60_000);

    it('D1: every refusal is one line on stderr starting "ledger:", exit 1, no stack trace, and nothing changes', async () => {
      const before = await withDb(snapshot);
      const cases: { args: string[]; stdin?: string; message: string }[] = [
        { args: ['user', 'add', 'dave@example.com', '--password', '-'], stdin: '', message: 'no password on stdin (expected one line)' },
        { args: ['user', 'add', 'dave@example.com', '--password', '-'], stdin: '\nsecond line\n', message: 'no password on stdin (expected one line)' },
        { args: ['user', 'add', 'dave@example.com', '--password', '-'], stdin: 'eleven char\n', message: 'a password must have 12 to 1024 characters' },
        { args: ['user', 'add', 'dave@example.com', '--password', '-'], stdin: `${'x'.repeat(1025)}\n`, message: 'a password must have 12 to 1024 characters' },
        { args: ['user', 'add', 'dave@example.com', '--password', 'hunter2hunter2'], message: 'use --password - and type the password on stdin' },
        { args: ['user', 'add', 'not-an-email'], message: 'that is not an email address: "not-an-email"' },
        { args: ['user', 'add', ' ALICE@Example.com'], message: 'a user alice@example.com already exists' },
        { args: ['user', 'add', 'alice@example.com', '--password', '-'], stdin: 'another password\n', message: 'a user alice@example.com already exists' },
        { args: ['user', 'passwd', 'nobody@example.com', '--password', '-'], stdin: 'a fine password\n', message: 'no user nobody@example.com' },
        { args: ['user', 'passwd', 'alice@example.com', '--password', '-'], stdin: 'too short\n', message: 'a password must have 12 to 1024 characters' },
        { args: ['user', 'passwd', 'alice@example.com', '--password', '-'], stdin: '', message: 'no password on stdin (expected one line)' },
        { args: ['user', 'passwd', 'alice@example.com', '--password', '-'], stdin: '\n', message: 'no password on stdin (expected one line)' },
        { args: ['user', 'rm', 'Nobody@Example.com'], message: 'no user nobody@example.com' },
        { args: ['mint-token', 'nobody@example.com'], message: 'no user nobody@example.com' },
        { args: ['mint-token', 'alice@example.com', '--days', 'abc'], message: '--days must be a whole number of days' },
        { args: ['mint-token', 'alice@example.com', '--days', '0'], message: '--days must be at least 1' },
        { args: ['mint-token', 'alice@example.com', '--days', '3651'], message: '--days must be at most 3650' },
        { args: ['mint-token', 'alice@example.com', '--label', '   '], message: 'label is required' },
      ];
      // The table runs through the command layer in this process; two of its cases also as
      // processes, for the exit status and the one line on a real stderr.
      for (const c of cases) expectRefusal(await runLedgerInProcess(c.args, { env, stdin: c.stdin }), c.message, `ledger ${c.args.join(' ')}`);
      const asProcesses = await Promise.all([cases[0]!, cases[6]!].map((c) => ledger(c.args, c.stdin)));
      expectRefusal(asProcesses[0]!, cases[0]!.message, 'as a process');
      expectRefusal(asProcesses[1]!, cases[6]!.message, 'as a process');
      expect(await withDb(snapshot)).toEqual(before);
    }, 120_000);

    it('spec: user passwd resets the password, ends every session and revokes every token of that user, and only of that user', async () => {
      const bobToken = await withDb(async (db) => {
        const alice = await userByEmail(db, 'alice@example.com');
        const bob = await userByEmail(db, 'bob@example.com');
        const soon = new Date(Date.now() + DAY_MS);
        await db.insert(sessions).values([
          { idHash: idHash(), userId: alice.id, expiresAt: soon, mfaComplete: true },
          { idHash: idHash(), userId: alice.id, expiresAt: soon },
          { idHash: idHash(), userId: bob.id, expiresAt: soon, mfaComplete: true },
        ]);
        expect(await authenticateBearer(db, aliceToken, DEFAULT_API_ORIGIN)).toBeDefined();
        return mintToken(db, { userId: bob.id, label: null, days: 1, audience: DEFAULT_API_ORIGIN });
      });

      const result = await ledger(['user', 'passwd', ' ALICE@example.com', '--password', '-'], 'alice new password\n');
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).not.toContain('alice new password');

      await withDb(async (db) => {
        const alice = await userByEmail(db, 'alice@example.com');
        const bob = await userByEmail(db, 'bob@example.com');
        expect(alice.passwordHash.startsWith('$argon2id$')).toBe(true);
        expect(await verify(alice.passwordHash, 'alice new password')).toBe(true);
        expect(await verify(alice.passwordHash, alicePassword)).toBe(false);
        expect(await db.select().from(sessions).where(eq(sessions.userId, alice.id))).toEqual([]);
        const aliceTokens = await db.select().from(tokens).where(eq(tokens.userId, alice.id));
        expect(aliceTokens).toHaveLength(2);
        for (const t of aliceTokens) expect(t.revokedAt).toBeInstanceOf(Date);
        expect(await authenticateBearer(db, aliceToken, DEFAULT_API_ORIGIN)).toBeUndefined();
        // Bob keeps his session, his token and his password.
        expect(await db.select().from(sessions).where(eq(sessions.userId, bob.id))).toHaveLength(1);
        expect(await authenticateBearer(db, bobToken, DEFAULT_API_ORIGIN)).toMatchObject({ email: 'bob@example.com' });
        expect(await verify(bob.passwordHash, 'bob password 123')).toBe(true);
      });

      // Without --password -, a new password is generated and printed alone on the last line.
      const generated = await ledger(['user', 'passwd', 'bob@example.com']);
      expect(generated.code).toBe(0);
      expect(generated.stderr).toBe('');
      const bobPassword = lastLine(generated);
      expect(bobPassword).toMatch(GENERATED_PASSWORD);
      await withDb(async (db) => {
        const bob = await userByEmail(db, 'bob@example.com');
        expect(await verify(bob.passwordHash, bobPassword)).toBe(true);
        expect(await db.select().from(sessions).where(eq(sessions.userId, bob.id))).toEqual([]);
        expect(await authenticateBearer(db, bobToken, DEFAULT_API_ORIGIN)).toBeUndefined();
      });
    }, 90_000);

    it('spec: user rm deletes the user with their sessions, passkeys and tokens; their transactions stay with created_by null', async () => {
      const { bobId, transactionId, aliceTransactionId } = await withDb(async (db) => {
        const alice = await userByEmail(db, 'alice@example.com');
        const bob = await userByEmail(db, 'bob@example.com');
        const bank = await createAccount(db, { name: 'Bank', kind: 'asset' }, CLI_ACTOR);
        const food = await createAccount(db, { name: 'Food', kind: 'expense' }, CLI_ACTOR);
        const lines = [
          { account_id: food.id, amount_cents: 1250 },
          { account_id: bank.id, amount_cents: -1250 },
        ];
        const transactionId = await postTransaction(db, { occurred_on: '2026-01-15', description: 'groceries by bob', entries: lines }, { ...CLI_ACTOR, userId: bob.id });
        const aliceTransactionId = await postTransaction(db, { occurred_on: '2026-01-16', description: 'by alice', entries: lines }, { ...CLI_ACTOR, userId: alice.id });
        await db.insert(sessions).values({ idHash: idHash(), userId: bob.id, expiresAt: new Date(Date.now() + DAY_MS), mfaComplete: true });
        await db.insert(passkeys).values({ userId: bob.id, credentialId: 'bob-key', publicKey: 'pk', name: 'bob phone' });
        await mintToken(db, { userId: bob.id, label: 'bob script', days: 1, audience: DEFAULT_API_ORIGIN });
        return { bobId: bob.id, transactionId, aliceTransactionId };
      });

      const result = await ledger(['user', 'rm', '  BOB@example.com']);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');

      await withDb(async (db) => {
        expect(await db.select().from(users).where(eq(users.id, bobId))).toEqual([]);
        expect(await db.select().from(sessions).where(eq(sessions.userId, bobId))).toEqual([]);
        expect(await db.select().from(passkeys).where(eq(passkeys.userId, bobId))).toEqual([]);
        expect(await db.select().from(tokens).where(eq(tokens.userId, bobId))).toEqual([]);
        const [kept] = await db.select().from(transactions).where(eq(transactions.id, transactionId));
        expect(kept).toMatchObject({ id: transactionId, description: 'groceries by bob', occurredOn: '2026-01-15', createdBy: null });
        expect(await db.select().from(entries).where(eq(entries.transactionId, transactionId))).toHaveLength(2);
        // Other users and their work are untouched.
        const alice = await userByEmail(db, 'alice@example.com');
        const [theirs] = await db.select().from(transactions).where(eq(transactions.id, aliceTransactionId));
        expect(theirs!.createdBy).toBe(alice.id);
        expect(await db.select().from(passkeys).where(eq(passkeys.userId, alice.id))).toHaveLength(2);
        expect((await db.select().from(users)).map((u) => u.email).sort()).toEqual(['alice@example.com', 'carol@example.com']);
      });

      // Removing again: the user is gone.
      expectRefusal(await ledger(['user', 'rm', 'bob@example.com']), 'no user bob@example.com');
    }, 90_000);
  });
}

describe.skipIf(!postgresAvailable())('spec: migrations run before any CLI command touches the database [postgres]', () => {
  it('ledger user add on a freshly created, empty PostgreSQL database migrates it, then adds the user', async () => {
    const template = new URL(inject('postgresTemplate')!);
    const maintenance = new URL(template);
    maintenance.pathname = '/postgres';
    const name = `ledger_empty_${process.pid}_${randomBytes(4).toString('hex')}`;
    const url = new URL(template);
    url.pathname = `/${name}`;
    const admin = postgres(maintenance.href, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database "${name}"`);
    const fresh = postgres(url.href, { max: 1, onnotice: () => {} });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ledger-empty-'));
    try {
      const tables = async () => (await fresh`select table_name from information_schema.tables where table_schema = 'public'`).map((r) => r.table_name as string);
      expect(await tables()).toEqual([]);

      const added = await runLedger(['user', 'add', 'first@example.com'], { env: { DATABASE_URL: url.href }, cwd: dir });
      expect(added.stderr).toBe('');
      expect(added.code).toBe(0);
      expect(lastLine(added)).toMatch(GENERATED_PASSWORD);

      expect(await tables()).toEqual(expect.arrayContaining(['users', 'tokens', 'accounts', 'transactions', 'entries']));
      const journal = JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] };
      const [applied] = await fresh`select count(*)::int as n from drizzle.__drizzle_migrations`;
      expect(applied?.n).toBe(journal.entries.length);
      const [user] = await fresh`select email, password_hash from users`;
      expect(user).toMatchObject({ email: 'first@example.com', password_hash: expect.stringMatching(/^\$argon2id\$/) });
      const list = await runLedger(['user', 'list'], { env: { DATABASE_URL: url.href }, cwd: dir });
      expect(list.stdout).toBe('first@example.com\t0\tnever\n');
    } finally {
      await fresh.end();
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('ledger usage errors (README: every failure is one line on stderr starting "ledger:", exit 1)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'ledger-usage-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    [['user', 'add']],
    [['mint-token']],
    [['user', 'frobnicate']],
  ])('ledger %j', async (args) => {
    const result = await runLedger(args, { env: { DATABASE_URL: `file:${path.join(dir, 'data')}` }, cwd: dir });
    expect(result.code).toBe(1);
    const lines = result.stderr.split('\n');
    expect(lines, result.stderr).toHaveLength(2);
    expect(lines[1]).toBe('');
    expect(lines[0]).toMatch(/^ledger: /);
  });
});

for (const backend of BACKENDS) {
  describe.skipIf(backend === 'postgres' && !postgresAvailable())(
    `issue 25 item 14 (D5): mint-token audiences its token to the API_ORIGIN of the running server, not its own [${backend}]`,
    () => {
      const SERVED = 'https://books.example';
      let database: TestDatabase | undefined;
      let root: string;
      let env: Record<string, string>;
      let server: ServeProcess | undefined;

      beforeAll(async () => {
        root = newDataRoot(`ledger-audience-${backend}-`);
        if (backend === 'postgres') database = await openTestDatabase('postgres');
        env = { DATABASE_URL: database ? database.url : `file:${path.join(root, 'data')}` };
        const added = await runLedger(['user', 'add', 'treasurer@example.com'], { env, cwd: root });
        expect(added.code, added.stderr).toBe(0);
      }, 90_000);
      afterAll(async () => {
        await server?.kill();
        await database?.close();
        if (!database) await stopEmbedded(path.join(root, 'data'));
        rmSync(root, { recursive: true, force: true });
      });

      const accountsWith = (token: string) => fetch(`${server!.url}/accounts`, { headers: { authorization: `Bearer ${token}` } });

      it('with no server ever started: the token is for the command\'s own API_ORIGIN, and nothing is said', async () => {
        const minted = await runLedger(['mint-token', 'treasurer@example.com'], { env, cwd: root });
        expect(minted.stderr).toBe('');
        expect(lastLine(minted)).toMatch(/^lg_/);
      }, 60_000);

      it('run without the server\'s API_ORIGIN while serve runs with its own: one line on stderr naming both, and the token works on that server', async () => {
        server = await startServe({ env: { ...env, API_ORIGIN: SERVED, BIND_ADDR: `127.0.0.1:${await freePort()}`, WEB_BIND_ADDR: 'off' }, cwd: root });
        const minted = await runLedger(['mint-token', 'treasurer@example.com', '--label', 'from a bare shell'], { env, cwd: root });
        expect(minted.code).toBe(0);
        expect(minted.stderr).toBe(
          `ledger: API_ORIGIN here is ${DEFAULT_API_ORIGIN}, but ledger serve runs with ${SERVED} (recorded at its last start): the token is for ${SERVED}\n`,
        );
        expect((await accountsWith(lastLine(minted))).status, 'the server accepts the token (it refused it with 401)').toBe(200);
      }, 60_000);

      it('with the server\'s own API_ORIGIN (any spelling of it): nothing is said, and the token works', async () => {
        const minted = await runLedger(['mint-token', 'treasurer@example.com'], { env: { ...env, API_ORIGIN: 'HTTPS://Books.Example/' }, cwd: root });
        expect(minted.stderr).toBe('');
        expect((await accountsWith(lastLine(minted))).status).toBe(200);
      }, 60_000);

      it('after serve restarts with another API_ORIGIN, tokens are minted for the new one', async () => {
        await server!.stop();
        server = await startServe({ env: { ...env, BIND_ADDR: `127.0.0.1:${await freePort()}`, WEB_BIND_ADDR: 'off' }, cwd: root });
        const minted = await runLedger(['mint-token', 'treasurer@example.com'], { env, cwd: root });
        expect(minted.stderr).toBe('');
        expect((await accountsWith(lastLine(minted))).status).toBe(200);
        const elsewhere = await runLedger(['mint-token', 'treasurer@example.com'], { env: { ...env, API_ORIGIN: SERVED }, cwd: root });
        expect(elsewhere.stderr).toMatch(new RegExp(`^ledger: API_ORIGIN here is ${SERVED}, but ledger serve runs with ${DEFAULT_API_ORIGIN} .*\\n$`));
        expect((await accountsWith(lastLine(elsewhere))).status).toBe(200);
        await server!.stop();
        server = undefined;
      }, 90_000);
    },
  );
}
