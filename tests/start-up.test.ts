import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, openTestDatabase, postgresAvailable, type TestDatabase } from './support/databases';
import { newDataRoot } from './support/embedded';
import { freePort, runLedger, startServe, type ServeProcess } from './support/processes';

// D14 and issue 1/7 item 2 and 3: the README's first command works as written, and `serve` tells
// a person, in one line on stderr, where it is and what to do next.

const CHECKOUT = fileURLToPath(new URL('..', import.meta.url));
const PASSWORD = 'a password for the start-up line';

/** Waits until `read()` matches, for output that arrives on another pipe than the one awaited. */
async function eventually(read: () => string, pattern: RegExp): Promise<string> {
  for (let i = 0; i < 100 && !pattern.test(read()); i++) await new Promise((r) => setTimeout(r, 50));
  return read();
}

describe('D14: npm start, exactly as the README writes it', () => {
  let root: string;
  beforeAll(() => {
    root = newDataRoot('ledger-npm-start-');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('serves the API and the web app, then stops cleanly on SIGTERM (it failed with "ledger: not found")', async () => {
    const [api, web] = [await freePort(), await freePort()];
    const child = spawn('npm', ['start'], {
      cwd: CHECKOUT,
      env: {
        ...process.env,
        DATABASE_URL: `file:${path.join(root, 'data')}`,
        BIND_ADDR: `127.0.0.1:${api}`,
        WEB_BIND_ADDR: `127.0.0.1:${web}`,
        // The web app answers on WEB_ORIGIN only (another host is redirected there: finding 10 of issue 6/7).
        WEB_ORIGIN: `http://127.0.0.1:${web}`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.resume();
    let gone = false;
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code))).finally(() => (gone = true));
    try {
      let health: Response | undefined;
      for (let i = 0; i < 600 && !health && !gone; i++) {
        health = await fetch(`http://127.0.0.1:${api}/health`).catch(() => undefined);
        if (!health) await new Promise((r) => setTimeout(r, 100));
      }
      expect(health?.status, stderr).toBe(200);
      const page = await fetch(`http://127.0.0.1:${web}/`);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toMatch(/<script[^>]+src="\/assets\//);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, stderr).toBe(0);
    expect(stderr).not.toContain('not found');
  }, 90_000);

  it('a SIGTERM while serve is still starting (initdb of a new directory) ends it cleanly once it is up: exit 0, the cluster stopped', async () => {
    const dir = path.join(root, 'signalled-while-starting');
    const child = spawn(process.execPath, [path.join(CHECKOUT, 'bin', 'ledger.js'), 'serve'], {
      env: { ...process.env, DATABASE_URL: `file:${dir}`, BIND_ADDR: `127.0.0.1:${await freePort()}`, WEB_BIND_ADDR: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.resume();
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    // While initdb makes the cluster in a directory beside the one named (src/db/embedded.ts).
    const initialising = () => readdirSync(root).some((name) => name.startsWith('.signalled-while-starting.new-'));
    for (let i = 0; i < 400 && !initialising(); i++) await new Promise((r) => setTimeout(r, 5));
    expect(initialising(), 'initdb began').toBe(true);
    child.kill('SIGTERM');
    expect(await exited, stderr).toBe(0);
    expect(existsSync(path.join(dir, 'PG_VERSION')), 'the cluster was made whole').toBe(true);
    expect(existsSync(path.join(dir, 'postmaster.pid')), 'and stopped').toBe(false);
  }, 90_000);
});

for (const backend of BACKENDS) {
  describe.skipIf(backend === 'postgres' && !postgresAvailable())(`D14: the start-up line on stderr [${backend}]`, () => {
    let root: string;
    let database: TestDatabase | undefined;
    let env: Record<string, string>;
    let server: ServeProcess | undefined;

    beforeAll(async () => {
      root = newDataRoot(`ledger-start-line-${backend}-`);
      database = backend === 'postgres' ? await openTestDatabase('postgres') : undefined; // embedded: a file: directory of its own
      env = {
        DATABASE_URL: database?.url ?? `file:${path.join(root, 'data')}`,
        API_ORIGIN: 'http://ledger.example:8081',
        WEB_ORIGIN: 'http://ledger.example:8080',
      };
    });
    afterAll(async () => {
      await server?.kill();
      await database?.close();
      rmSync(root, { recursive: true, force: true });
    });

    const start = async () => {
      const [api, web] = [await freePort(), await freePort()];
      server = await startServe({ env: { ...env, BIND_ADDR: `127.0.0.1:${api}`, WEB_BIND_ADDR: `127.0.0.1:${web}` }, cwd: root });
      return { api, web, line: await eventually(server.stderr, /\n/) };
    };

    it('with no user: both addresses and the exact command that creates the first user, in one line', async () => {
      const { api, web, line } = await start();
      expect(line).toBe(
        `ledger: serving the web app http://ledger.example:8080 (listening on http://127.0.0.1:${web}) and the API ` +
          `http://ledger.example:8081 (listening on http://127.0.0.1:${api}); no user yet: create one with npx ledger user add <email>\n`,
      );
      expect((await server!.stop()).code).toBe(0);
    }, 90_000);

    it('once a user exists: the addresses only', async () => {
      expect((await runLedger(['user', 'add', 'first@example.com', '--password', '-'], { env, stdin: `${PASSWORD}\n`, cwd: root })).code).toBe(0);
      const { api, web, line } = await start();
      expect(line).toBe(
        `ledger: serving the web app http://ledger.example:8080 (listening on http://127.0.0.1:${web}) and the API ` +
          `http://ledger.example:8081 (listening on http://127.0.0.1:${api})\n`,
      );
      expect((await server!.stop()).code).toBe(0);
    }, 90_000);
  });
}
