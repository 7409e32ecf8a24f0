import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedPaths, type EmbeddedPaths } from '../src/db/embedded';
import { deadPid, freePort, isListening, lastLine, runLedger, startServe, type CliResult, type ServeProcess } from './support/processes';

// D2: the embedded database (PGlite in a data directory) is opened by one process at a time;
// `serve` holds the directory's lock, admin commands still work while it runs (through its admin
// socket), a second `serve` exits with one clear line, a lock left by a dead process is taken over.
// D10: SIGTERM stops the server cleanly. README: The embedded database. Real processes throughout;
// there are few of them, as each pays tsx's start-up and PGlite's opening.

describe('ledger serve on the embedded database (D2, D10)', () => {
  let root: string;
  let paths: EmbeddedPaths;
  let server: ServeProcess | undefined;
  let port: number;
  let token: string;

  const env = (bindPort: number): Record<string, string> => ({
    DATABASE_URL: `file:${paths.dir}`,
    BIND_ADDR: `127.0.0.1:${bindPort}`,
    WEB_BIND_ADDR: 'off',
  });
  const ledger = async (args: string[], stdin?: string) => runLedger(args, { env: env(await freePort()), stdin, cwd: root });
  const readLock = () => JSON.parse(readFileSync(paths.lockFile, 'utf8')) as Record<string, unknown>;
  const bearer = () => ({ authorization: `Bearer ${token}` });

  function expectOneLineRefusal(result: CliResult, line: string) {
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`ledger: ${line}\n`);
  }

  beforeAll(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'ledger-embedded-'));
    paths = embeddedPaths(path.join(root, 'data'));
  });
  afterAll(async () => {
    await server?.kill();
    rmSync(root, { recursive: true, force: true });
  });

  it('serve creates and migrates a new data directory, answers GET /health, and holds the lock naming its pid and admin socket', async () => {
    port = await freePort();
    server = await startServe({ env: env(port), cwd: root });
    expect(server.listening).toMatchObject({ level: 'info', event: 'listening', url: `http://127.0.0.1:${port}`, web: null, database: 'pglite' });

    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('ok');

    expect(readLock()).toEqual({ pid: server.pid, role: 'serve', socket: paths.adminSocket });
    const socket = statSync(paths.adminSocket);
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
    expect(statSync(paths.dir).mode & 0o777).toBe(0o700);
    expect(statSync(paths.pgData).isDirectory()).toBe(true);
  }, 90_000);

  it('while serve runs, user add and mint-token on the same DATABASE_URL succeed through its admin socket, and the token works against it', async () => {
    const added = await ledger(['user', 'add', 'live@example.com']);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(lastLine(added)).toMatch(/^[A-HJ-NP-Za-km-z2-9]{20}$/);

    const minted = await ledger(['mint-token', 'live@example.com', '--label', 'while serving']);
    expect(minted.stderr).toBe('');
    expect(minted.code).toBe(0);
    token = lastLine(minted);
    expect(token).toMatch(/^lg_[A-Za-z0-9_-]{43}$/);
    // The server never let go of the directory: the commands went through its socket.
    expect(readLock()).toEqual({ pid: server!.pid, role: 'serve', socket: paths.adminSocket });

    const created = await fetch(`${server!.url}/accounts`, {
      method: 'POST',
      headers: { ...bearer(), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Kept Savings', kind: 'asset' }),
    });
    expect(created.status).toBe(201);
    const listed = await fetch(`${server!.url}/accounts`, { headers: bearer() });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { name: string }[]).map((a) => a.name)).toEqual(['Kept Savings']);
    expect((await fetch(`${server!.url}/accounts`)).status).toBe(401);
  }, 60_000);

  it('while serve runs, user list and a refused command also go through the admin socket (one line, exit 1)', async () => {
    const [list, duplicate] = await Promise.all([ledger(['user', 'list']), ledger(['user', 'add', 'Live@Example.com'])]);
    expect(list.code).toBe(0);
    // The bearer request above recorded the user as seen.
    expect(list.stdout).toMatch(/^live@example\.com\t0\t\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\n$/);
    expectOneLineRefusal(duplicate, 'a user live@example.com already exists');
  }, 60_000);

  it('a second serve on the same directory exits 1 with one line naming the process using it; the first keeps serving', async () => {
    const secondPort = await freePort();
    const second = await runLedger(['serve'], { env: env(secondPort), cwd: root });
    expectOneLineRefusal(second, `the database in ${paths.dir} is already in use by process ${server!.pid}`);
    expect(await isListening(secondPort)).toBe(false);

    expect(readLock()).toEqual({ pid: server!.pid, role: 'serve', socket: paths.adminSocket });
    expect(existsSync(paths.adminSocket)).toBe(true);
    const health = await fetch(`${server!.url}/health`);
    expect(await health.text()).toBe('ok');
  }, 60_000);

  it('D10: SIGTERM stops serve with exit 0, releasing the port, the lock and the admin socket', async () => {
    const exit = await server!.stop('SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(server!.logs.at(-1)).toMatchObject({ event: 'stopped' });
    expect(server!.stderr()).toBe('');
    // D10: stdout held JSON lines only, one per request, and never the token.
    expect(server!.logs.filter((l) => l.event === 'not-json')).toEqual([]);
    expect(server!.logs).toContainEqual(expect.objectContaining({ event: 'request', method: 'GET', path: '/health', status: 200 }));
    expect(server!.logs).toContainEqual(expect.objectContaining({ event: 'request', method: 'POST', path: '/accounts', status: 201 }));
    expect(JSON.stringify(server!.logs)).not.toContain(token);
    expect(await isListening(port)).toBe(false);
    expect(existsSync(paths.lockFile)).toBe(false);
    expect(existsSync(paths.adminSocket)).toBe(false);
    server = undefined;
  }, 30_000);

  it('D2: with no serve running, admin commands open the directory themselves and let go of it', async () => {
    const minted = await ledger(['mint-token', 'live@example.com', '--label', 'offline']);
    expect(minted.code).toBe(0);
    expect(lastLine(minted)).toMatch(/^lg_[A-Za-z0-9_-]{43}$/);
    const list = await ledger(['user', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^live@example\.com\t0\t\d{4}-\d\d-\d\dT[^\n]+Z\n$/);
    expect(existsSync(paths.lockFile)).toBe(false);
  }, 60_000);

  it('D2: serve takes over a lock left by a dead process; the data persist across the restart; SIGINT stops it too', async () => {
    // What a SIGKILLed serve leaves behind: its lock (naming its socket) and the socket file.
    const stale = deadPid();
    writeFileSync(paths.lockFile, JSON.stringify({ pid: stale, role: 'serve', socket: paths.adminSocket }));
    writeFileSync(paths.adminSocket, '');

    port = await freePort();
    server = await startServe({ env: env(port), cwd: root });
    expect(readLock()).toEqual({ pid: server.pid, role: 'serve', socket: paths.adminSocket });
    expect(statSync(paths.adminSocket).isSocket()).toBe(true);

    const listed = await fetch(`${server.url}/accounts`, { headers: bearer() });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { name: string }[]).map((a) => a.name)).toEqual(['Kept Savings']);

    expect(await server.stop('SIGINT')).toEqual({ code: 0, signal: null });
    expect(existsSync(paths.lockFile)).toBe(false);
    server = undefined;
  }, 90_000);

  it('D2: an admin command takes over a lock left by a dead process too', async () => {
    writeFileSync(paths.lockFile, JSON.stringify({ pid: deadPid(), role: 'admin' }));
    const result = await ledger(['user', 'add', 'after-crash@example.com', '--password', '-'], 'a password after the crash\n');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(existsSync(paths.lockFile)).toBe(false);
    const list = await ledger(['user', 'list']);
    expect(list.code).toBe(0);
    const emails = list.stdout.trimEnd().split('\n').map((l) => l.split('\t')[0]);
    expect(emails.sort()).toEqual(['after-crash@example.com', 'live@example.com']);
  }, 60_000);
});
