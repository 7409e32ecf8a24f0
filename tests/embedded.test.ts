import { existsSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { holdDirectory, whoHolds, type AdminAnswer, type HeldDirectory } from '../src/admin/channel';
import { executeAdminRequest } from '../src/cli/execute';
import { loadConfig } from '../src/config';
import { embeddedPaths, lockAddress, type EmbeddedPaths } from '../src/db/embedded';
import { deadPid, freePort, isListening, lastLine, runLedger, startServe, type CliResult, type ServeProcess } from './support/processes';

// D2: the embedded database (PGlite in a data directory) is opened by one process at a time. The
// lock is an abstract Unix socket named after the directory, which the kernel frees when its
// process ends: `serve` holds it, admin commands still work while it runs (through the same socket,
// its admin channel), a second `serve` exits with one clear line, a `serve` finding an admin command
// on the directory waits for it, and nothing a crashed process left behind blocks anybody.
// D10: SIGTERM stops the server cleanly. README: The embedded database. Real processes throughout;
// there are few of them, as each pays tsx's start-up and PGlite's opening.

/** Longer than a Unix socket path may be (107 bytes): the lock's address does not depend on it. */
const LONG_NAME = `a-data-directory-whose-path-is-longer-than-any-unix-socket-path-may-be-${'x'.repeat(40)}`;

describe('ledger serve on the embedded database (D2, D10)', () => {
  let root: string;
  let paths: EmbeddedPaths;
  let server: ServeProcess | undefined;
  let held: HeldDirectory | undefined;
  let port: number;
  let token: string;

  const env = (bindPort: number): Record<string, string> => ({
    DATABASE_URL: `file:${paths.dir}`,
    BIND_ADDR: `127.0.0.1:${bindPort}`,
    WEB_BIND_ADDR: 'off',
  });
  const ledger = async (args: string[], stdin?: string) => runLedger(args, { env: env(await freePort()), stdin, cwd: root });
  const bearer = (value = token) => ({ authorization: `Bearer ${value}` });
  const accountsWith = (value: string) => fetch(`${server!.url}/accounts`, { headers: bearer(value) });
  const emails = (list: CliResult) => list.stdout.trimEnd().split('\n').map((l) => l.split('\t')[0]).sort();

  function expectOneLineRefusal(result: CliResult, line: string) {
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`ledger: ${line}\n`);
  }

  beforeAll(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'ledger-embedded-'));
    paths = embeddedPaths(path.join(root, LONG_NAME, 'data'));
  });
  afterAll(async () => {
    await server?.kill();
    await held?.release();
    rmSync(root, { recursive: true, force: true });
  });

  it('serve creates and migrates a new data directory (a path longer than a socket path may be), answers GET /health, and holds the directory', async () => {
    expect(Buffer.byteLength(paths.dir)).toBeGreaterThan(107);
    port = await freePort();
    server = await startServe({ env: env(port), cwd: root });
    expect(server.listening).toMatchObject({ level: 'info', event: 'listening', url: `http://127.0.0.1:${port}`, web: null, database: 'pglite' });

    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('ok');

    expect(await whoHolds(paths)).toEqual({ pid: server.pid, serving: true });
    expect(Buffer.byteLength(lockAddress(paths.dir))).toBe(72);
    expect(statSync(paths.adminKey).mode & 0o777).toBe(0o600);
    expect(statSync(paths.dir).mode & 0o777).toBe(0o700);
    expect(statSync(paths.pgData).isDirectory()).toBe(true);
  }, 90_000);

  it('while serve runs, user add and mint-token on the same DATABASE_URL succeed through its admin channel, and the token works against it', async () => {
    const added = await ledger(['user', 'add', 'live@example.com']);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(lastLine(added)).toMatch(/^[A-HJ-NP-Za-km-z2-9]{20}$/);

    const minted = await ledger(['mint-token', 'live@example.com', '--label', 'while serving']);
    expect(minted.stderr).toBe('');
    expect(minted.code).toBe(0);
    token = lastLine(minted);
    expect(token).toMatch(/^lg_[A-Za-z0-9_-]{43}$/);
    // The server never let go of the directory: the commands went through it.
    expect(await whoHolds(paths)).toEqual({ pid: server!.pid, serving: true });

    const created = await fetch(`${server!.url}/accounts`, {
      method: 'POST',
      headers: { ...bearer(), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Kept Savings', kind: 'asset' }),
    });
    expect(created.status).toBe(201);
    const listed = await accountsWith(token);
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { name: string }[]).map((a) => a.name)).toEqual(['Kept Savings']);
    expect((await fetch(`${server!.url}/accounts`)).status).toBe(401);
  }, 60_000);

  it('while serve runs, user list and a refused command also go through the admin channel (one line, exit 1)', async () => {
    const [list, duplicate] = await Promise.all([ledger(['user', 'list']), ledger(['user', 'add', 'Live@Example.com'])]);
    expect(list.code).toBe(0);
    // The bearer request above recorded the user as seen.
    expect(list.stdout).toMatch(/^live@example\.com\t0\t\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\n$/);
    expectOneLineRefusal(duplicate, 'a user live@example.com already exists');
  }, 60_000);

  it('while serve runs, user passwd revokes the user\'s tokens (the running server answers 401) and user rm removes the user', async () => {
    expect((await ledger(['user', 'add', 'leaver@example.com', '--password', '-'], 'leaver password 1\n')).code).toBe(0);
    const first = lastLine(await ledger(['mint-token', 'leaver@example.com']));
    expect((await accountsWith(first)).status).toBe(200);

    const passwd = await ledger(['user', 'passwd', 'leaver@example.com', '--password', '-'], 'leaver password 2\n');
    expect(passwd.stderr).toBe('');
    expect(passwd.code).toBe(0);
    expect(passwd.stdout).toBe('reset the password of leaver@example.com; every session ended and every token revoked\n');
    const revoked = await accountsWith(first);
    expect(revoked.status).toBe(401);
    expect(await revoked.json()).toEqual({ error: 'authentication required' });
    // The other user's token is untouched.
    expect((await accountsWith(token)).status).toBe(200);

    const second = lastLine(await ledger(['mint-token', 'leaver@example.com']));
    expect((await accountsWith(second)).status).toBe(200);
    const removed = await ledger(['user', 'rm', 'leaver@example.com']);
    expect(removed.stderr).toBe('');
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe('removed user leaver@example.com; their transactions stay, without an author\n');
    expect((await accountsWith(second)).status).toBe(401);
    expect(emails(await ledger(['user', 'list']))).toEqual(['live@example.com']);
  }, 90_000);

  it('a second serve on the same directory exits 1 with one line naming the process using it; the first keeps serving', async () => {
    const secondPort = await freePort();
    const second = await runLedger(['serve'], { env: env(secondPort), cwd: root });
    expectOneLineRefusal(second, `the database in ${paths.dir} is already in use by process ${server!.pid}`);
    expect(await isListening(secondPort)).toBe(false);

    expect(await whoHolds(paths)).toEqual({ pid: server!.pid, serving: true });
    const health = await fetch(`${server!.url}/health`);
    expect(await health.text()).toBe('ok');
  }, 60_000);

  it('D10: SIGTERM stops serve with exit 0, releasing the port, the directory and the admin key', async () => {
    const exit = await server!.stop('SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(server!.logs.at(-1)).toMatchObject({ event: 'stopped' });
    // D14: stderr holds the one start-up line for people, nothing else (no fault, no stack).
    expect(server!.stderr()).toMatch(/^ledger: serving the web app off \(WEB_BIND_ADDR=off\) and the API [^\n]+\n$/);
    // D10: stdout held JSON lines only, one per request, and never the token.
    expect(server!.logs.filter((l) => l.event === 'not-json')).toEqual([]);
    expect(server!.logs).toContainEqual(expect.objectContaining({ event: 'request', method: 'GET', path: '/health', status: 200 }));
    expect(server!.logs).toContainEqual(expect.objectContaining({ event: 'request', method: 'POST', path: '/accounts', status: 201 }));
    expect(JSON.stringify(server!.logs)).not.toContain(token);
    expect(await isListening(port)).toBe(false);
    expect(await whoHolds(paths)).toBeUndefined();
    expect(existsSync(paths.adminKey)).toBe(false);
    server = undefined;
  }, 30_000);

  it('D2: with no serve running, admin commands open the directory themselves and let go of it; a lock file naming a live process (pid reuse) means nothing', async () => {
    // What the file lock of an earlier version left: a pid that now belongs to someone else.
    writeFileSync(path.join(paths.dir, 'ledger.lock'), JSON.stringify({ pid: process.pid, role: 'serve' }));
    const minted = await ledger(['mint-token', 'live@example.com', '--label', 'offline']);
    expect(minted.stderr).toBe('');
    expect(minted.code).toBe(0);
    expect(lastLine(minted)).toMatch(/^lg_[A-Za-z0-9_-]{43}$/);
    const list = await ledger(['user', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^live@example\.com\t0\t\d{4}-\d\d-\d\dT[^\n]+Z\n$/);
    expect(await whoHolds(paths)).toBeUndefined();
  }, 60_000);

  it('D2: two serves started together on a directory with a stale lock: exactly one serves, the other exits naming it; a SIGKILL frees the directory at once', async () => {
    // What a SIGKILLed serve of an earlier version left: its lock (a dead pid) and socket file.
    writeFileSync(path.join(paths.dir, 'ledger.lock'), JSON.stringify({ pid: deadPid(), role: 'serve', socket: path.join(paths.dir, 'admin.sock') }));
    writeFileSync(path.join(paths.dir, 'admin.sock'), '');

    const ports = [await freePort(), await freePort()];
    const outcomes = await Promise.allSettled(ports.map((p) => startServe({ env: env(p), cwd: root })));
    const winners = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    const losers = outcomes.flatMap((o) => (o.status === 'rejected' ? [String(o.reason)] : []));
    expect(winners).toHaveLength(1);
    server = winners[0]!;
    expect(losers).toEqual([`Error: serve exited with 1 before listening: ledger: the database in ${paths.dir} is already in use by process ${server.pid}\n`]);
    expect(await whoHolds(paths)).toEqual({ pid: server.pid, serving: true });
    expect((await accountsWith(token)).status).toBe(200);

    // A crash (no clean-up at all): the next command gets the directory straight away.
    expect(await server.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    server = undefined;
    expect(await whoHolds(paths)).toBeUndefined();
    const list = await ledger(['user', 'list']);
    expect(list.stderr).toBe('');
    expect(emails(list)).toEqual(['live@example.com']);
  }, 120_000);

  it('D2: serve waits for an admin command holding the directory (only another serve is refused); the data persist; SIGINT stops it too', async () => {
    // This test process stands in for a slow admin command.
    const attempt = await holdDirectory(paths, 'admin');
    if (!attempt.acquired) throw new Error(`the directory is held by ${JSON.stringify(attempt.holder)}`);
    held = attempt.lock;
    port = await freePort();
    const starting = startServe({ env: env(port), cwd: root });
    let started = false;
    void starting.then(() => (started = true), () => {});
    await sleep(4_000);
    expect(started).toBe(false);
    expect(await whoHolds(paths)).toEqual({ pid: process.pid, serving: false });
    await held.release();
    held = undefined;

    server = await starting;
    expect(await whoHolds(paths)).toEqual({ pid: server.pid, serving: true });
    const listed = await accountsWith(token);
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { name: string }[]).map((a) => a.name)).toEqual(['Kept Savings']);

    expect(await server.stop('SIGINT')).toEqual({ code: 0, signal: null });
    expect(await whoHolds(paths)).toBeUndefined();
    server = undefined;
  }, 90_000);
});

describe('the admin channel (D2): proofs both ways, one delivery per request', () => {
  let root: string;
  let paths: EmbeddedPaths;
  let lock: HeldDirectory | undefined;
  const config = () => loadConfig({ DATABASE_URL: `file:${paths.dir}` });
  const mint = { op: 'mint-token', email: 'someone@example.com', label: null, days: 1 } as const;

  beforeAll(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'ledger-channel-'));
  });
  afterEach(async () => {
    await lock?.release();
    lock = undefined;
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** This process plays a `serve` holding a fresh directory; `received` counts the requests it got. */
  async function fakeServe(name: string, handle?: (request: unknown) => Promise<AdminAnswer>) {
    paths = embeddedPaths(path.join(root, name));
    const attempt = await holdDirectory(paths, 'serve');
    if (!attempt.acquired) throw new Error('the directory is held');
    lock = attempt.lock;
    const received: unknown[] = [];
    if (handle) {
      lock.answerAdminRequests((request) => {
        received.push(request);
        return handle(request);
      });
    }
    return { lock, received };
  }

  it('a request the server took but never answered is not sent again: one line saying it may have run', async () => {
    const { received } = await fakeServe('dropped', async () => {
      throw new Error('the server died while running the command');
    });
    const started = Date.now();
    await expect(executeAdminRequest(config(), mint)).rejects.toThrow(
      `the server (process ${process.pid}) closed the admin connection without an answer; the command may or may not have run`,
    );
    expect(received).toEqual([mint]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a request that reaches a server still opening its database waits for it, and is answered once', async () => {
    const { lock: starting } = await fakeServe('starting');
    const received: unknown[] = [];
    const answered = executeAdminRequest(config(), mint);
    await sleep(500);
    starting.answerAdminRequests(async (request) => {
      received.push(request);
      return { ok: true, lines: ['done'] };
    });
    expect(await answered).toEqual(['done']);
    expect(received).toEqual([mint]);
  });

  it('a request taken by a server that stops before opening its database goes to the next holder, once', async () => {
    const { lock: stopping } = await fakeServe('stopping');
    const answered = executeAdminRequest(config(), mint);
    await sleep(500); // the request is waiting for the database to open
    await stopping.release();
    lock = undefined;
    // The next server takes the directory at once; the command tries again after its 200 ms pause.
    const { received } = await fakeServe('stopping', async () => ({ ok: true, lines: ['done'] }));
    expect(await answered).toEqual(['done']);
    expect(received).toEqual([mint]);
  });

  it('a command that does not know the directory\'s key is refused without running anything', async () => {
    const { received } = await fakeServe('stranger', async () => ({ ok: true, lines: ['ran'] }));
    const connection = net.createConnection(lockAddress(paths.dir));
    connection.setEncoding('utf8');
    let text = '';
    connection.on('data', (chunk: string) => {
      text += chunk;
      if (text.split('\n').length === 2) connection.write(`${JSON.stringify({ proof: 'AAAA', request: mint })}\n`);
    });
    connection.write(`${JSON.stringify({ nonce: 'a nonce of a stranger' })}\n`);
    await new Promise((resolve) => connection.on('close', resolve));
    const [greeting, answer] = text.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(greeting).toMatchObject({ pid: process.pid, serving: true });
    expect(answer).toEqual({ ok: false, message: 'the admin command could not prove it may use this data directory' });
    expect(received).toEqual([]);
  });

  it('a holder that cannot prove it is the directory\'s server (a squatter on the name) never receives the request', async () => {
    const { received } = await fakeServe('squatted', async () => ({ ok: true, lines: ['ran'] }));
    writeFileSync(paths.adminKey, 'another key entirely');
    await expect(executeAdminRequest(config(), mint)).rejects.toThrow(
      `process ${process.pid} holds ${paths.dir} but cannot prove it is its ledger server`,
    );
    expect(received).toEqual([]);
  });

  it('the lock is per directory, by its real path: a symlink to a held directory is held too', async () => {
    await fakeServe('real');
    const link = path.join(root, 'link');
    symlinkSync(paths.dir, link);
    expect(lockAddress(link)).toBe(lockAddress(paths.dir));
    const other = await holdDirectory(embeddedPaths(link), 'admin');
    expect(other).toEqual({ acquired: false, holder: { pid: process.pid, serving: true } });
  });
});
