import { createServer, type Server } from 'node:net';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, postgresAvailable, type TestDatabase } from './support/databases';
import { newDataRoot, withEmbeddedDb } from './support/embedded';
import { expectOneLineRefusal, freePort, lastLine, runLedger, startServe } from './support/processes';

// D2 (issue 25 item 15): the embedded default ignores libpq's environment variables — with
// PGPORT=5499 `npm start` died with `connect ENOENT …/data/.s.PGSQL.5432`, the server having made
// its socket for 5499 — while a postgres:// DATABASE_URL keeps their usual meaning. And a start
// that fails leaves no cluster running behind it. Real `ledger` processes.

/** The cluster's postmaster pid, from postmaster.pid, if that process runs. */
function postmaster(dir: string): number | undefined {
  const file = path.join(dir, 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

/** After a test that failed with a cluster left running: stops it, so that the run goes on clean. */
function stopLeftOver(dir: string): void {
  const pid = postmaster(dir);
  if (pid !== undefined) process.kill(pid, 'SIGINT');
}

/**
 * Each variable with a value that, were it read, would send the cluster or our connection to it
 * elsewhere, or break it: libpq's own (PostgreSQL docs, "Environment Variables"), PostgreSQL's
 * server and pg_ctl's (PGDATA, PGPORT), and those postgres.js reads for its options.
 */
function hostileVariables(root: string): Array<[string, string]> {
  return [
    ['PGPORT', '5499'],
    ['PGHOST', path.join(root, 'no-such-socket-directory')],
    ['PGHOSTADDR', '192.0.2.1'],
    ['PGUSER', 'mallory'],
    ['PGUSERNAME', 'mallory'],
    ['PGDATABASE', 'elsewhere'],
    ['PGPASSWORD', 'not the password'],
    ['PGSSLMODE', 'require'],
    ['PGSSL', 'require'],
    ['PGOPTIONS', '-c default_transaction_read_only=on'],
    ['PGDATA', path.join(root, 'pgdata-elsewhere')],
    ['PGAPPNAME', 'ledger serve 1'],
    ['PGTARGETSESSIONATTRS', 'standby'],
    ['PGTARGET_SESSION_ATTRS', 'standby'],
    ['PGCONNECT_TIMEOUT', '0.001'],
    ['PGMAX_LIFETIME', '0.05'],
    ['PGDEBUG', 'true'],
    ['PGCLIENTENCODING', 'LATIN1'],
    ['PGTZ', 'Pacific/Kiritimati'],
  ];
}

describe('D2: the embedded default ignores libpq\'s environment variables (issue 25 item 15)', () => {
  // Made while the tests are collected: the table of cases names paths inside it.
  const root = newDataRoot('ledger-pgenv-');
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it.each(hostileVariables(root))('with %s=%s: serve creates and starts a new cluster, an admin command joins it, a minted token works, SIGTERM stops both', async (name, hostile) => {
    const dir = path.join(root, name.toLowerCase());
    const env = { DATABASE_URL: `file:${dir}`, WEB_BIND_ADDR: 'off', [name]: hostile };
    try {
      const server = await startServe({ env: { ...env, BIND_ADDR: `127.0.0.1:${await freePort()}` }, cwd: root });
      try {
        expect(await (await fetch(`${server.url}/health`)).text()).toBe('ok');
        const added = await runLedger(['user', 'add', 'pg@example.com'], { env, cwd: root });
        expect(added.stderr, `${name}: user add`).toBe('');
        expect(added.stdout.split('\n')).toHaveLength(3); // D1: two lines, the password alone on the last
        const minted = await runLedger(['mint-token', 'pg@example.com'], { env, cwd: root });
        expect(minted.stderr, `${name}: mint-token`).toBe('');
        const accounts = await fetch(`${server.url}/accounts`, { headers: { authorization: `Bearer ${lastLine(minted)}` } });
        expect(accounts.status).toBe(200);
      } finally {
        expect(await server.stop()).toEqual({ code: 0, signal: null });
      }
      expect(postmaster(dir), 'SIGTERM stopped the cluster').toBeUndefined();
      if (name === 'PGDATA') expect(existsSync(hostile), 'nothing made in PGDATA').toBe(false);
    } finally {
      stopLeftOver(dir);
    }
  }, 90_000);

  it('with every variable at once, where the path is too long for a socket (127.0.0.1 with a password): an admin command alone creates, uses and stops the cluster', async () => {
    const dir = path.join(root, `a-directory-whose-path-is-longer-than-a-unix-socket-path-may-be-${'x'.repeat(40)}`, 'data');
    const env = { DATABASE_URL: `file:${dir}`, ...Object.fromEntries(hostileVariables(root)) };
    try {
      const added = await runLedger(['user', 'add', 'far@example.com', '--password', '-'], { env, stdin: 'a long enough password\n', cwd: root });
      expect(added.stderr).toBe('');
      expect(added.stdout).toBe('created user far@example.com\n');
      const listed = await runLedger(['user', 'list'], { env, cwd: root });
      expect(listed.stderr).toBe('');
      expect(listed.stdout).toMatch(/^far@example\.com\t0\tnever\n$/);
      expect(postmaster(dir)).toBeUndefined();
    } finally {
      stopLeftOver(dir);
    }
  }, 90_000);
});

describe.skipIf(!postgresAvailable())('D2: with a postgres:// DATABASE_URL, PG* variables keep their usual meaning [postgres]', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase('postgres');
  });
  afterAll(async () => {
    await database?.close();
  });

  it('PGDATABASE names the database a URL without one leaves out (postgres.js, as libpq)', async () => {
    const url = new URL(database.url);
    const name = decodeURIComponent(url.pathname.slice(1));
    url.pathname = '/';
    const listed = await runLedger(['user', 'list'], { env: { DATABASE_URL: url.href, PGDATABASE: name } });
    expect(listed.code, listed.stderr).toBe(0);
    expectOneLineRefusal(
      await runLedger(['user', 'list'], { env: { DATABASE_URL: url.href, PGDATABASE: 'ledger_no_such_database' } }),
      /ledger_no_such_database/,
    );
  }, 60_000);
});

describe('a start that fails leaves no embedded cluster running behind it (issue 25 item 15)', () => {
  let root: string;
  let dir: string;
  let taken: Server | undefined;
  beforeAll(async () => {
    root = newDataRoot('ledger-failed-start-');
    dir = path.join(root, 'data');
    const added = await runLedger(['user', 'add', 'first@example.com'], { env: { DATABASE_URL: `file:${dir}` }, cwd: root });
    expect(added.code, added.stderr).toBe(0);
  }, 90_000);
  afterAll(async () => {
    await new Promise((resolve) => (taken ? taken.close(resolve) : resolve(undefined)));
    stopLeftOver(dir);
    rmSync(root, { recursive: true, force: true });
  });

  it('the API port already taken: serve exits 1 with one line, and the cluster it started is stopped', async () => {
    taken = createServer();
    const port = await new Promise<number>((resolve) => taken!.listen(0, '127.0.0.1', () => resolve((taken!.address() as { port: number }).port)));
    const result = await runLedger(['serve'], { env: { DATABASE_URL: `file:${dir}`, BIND_ADDR: `127.0.0.1:${port}`, WEB_BIND_ADDR: 'off' }, cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^ledger: cannot listen on BIND_ADDR 127\.0\.0\.1:\d+: EADDRINUSE\n$/);
    expect(postmaster(dir), 'no postmaster left for the directory').toBeUndefined();
  }, 60_000);

  it('the cluster up but refusing the sessions serve needs: serve exits 1 with one line, and the cluster it started is stopped', async () => {
    await withEmbeddedDb(dir, (db) => db.execute(sql`alter database postgres allow_connections false`));
    expect(postmaster(dir)).toBeUndefined();
    const result = await runLedger(['serve'], { env: { DATABASE_URL: `file:${dir}`, BIND_ADDR: `127.0.0.1:${await freePort()}`, WEB_BIND_ADDR: 'off' }, cwd: root });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^ledger: [^\n]*"postgres" is not currently accepting connections\n$/);
    expect(postmaster(dir), 'no postmaster left for the directory').toBeUndefined();
  }, 60_000);
});
