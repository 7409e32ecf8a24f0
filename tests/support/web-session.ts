import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { loadConfig } from '../../src/config';
import { WEB_DIST } from '../../src/http/web-app';
import { addUser } from '../../src/identity/users';
import { startServer, type RunningServer } from '../../src/server';
import { newDataRoot, withEmbeddedDb } from './embedded';
import { freePort } from './processes';

// A person in Debian's chromium (playwright-core, a CDP virtual authenticator), signed in with a
// password and a first passkey to `ledger serve` on a new embedded database: the set-up the
// browser tests of the web app share.

export const CHROMIUM = '/usr/bin/chromium';

/** In CI or against a real PostgreSQL a missing browser fails, never skips. */
export const STRICT_BROWSER = process.env.CI === 'true' || Boolean(process.env.TEST_DATABASE_URL);

/** Why the browser tests cannot run here (building the web app first if it is not built), or null. */
export function missingBrowserPrerequisite(): string | null {
  if (!existsSync(CHROMIUM)) return `${CHROMIUM} is missing (Debian: apt-get install chromium)`;
  if (!existsSync(path.join(WEB_DIST, 'index.html'))) {
    try {
      execFileSync('npm', ['run', '--silent', 'build:web'], { stdio: 'pipe', timeout: 120_000 });
    } catch (error) {
      return `dist/web is not built and \`npm run build:web\` failed: ${(error as { stderr?: Buffer }).stderr?.toString() ?? error}`;
    }
    if (!existsSync(path.join(WEB_DIST, 'index.html'))) return '`npm run build:web` did not produce dist/web/index.html';
  }
  return null;
}

export interface WebSession {
  page: Page;
  context: BrowserContext;
  api: string;
  web: string;
  /** Every error the server logged. */
  faults: Record<string, unknown>[];
  /** Content-Security-Policy violations reported by the page. */
  violations: string[];
  /** A request to the API with the page's own session; answers the status and JSON body (null when none). */
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** `call('POST', path, body)`. */
  post(path: string, body: unknown): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Follows a link of the main navigation and waits for the page's heading. */
  go(link: string, heading: string): Promise<void>;
  close(): Promise<void>;
}

export async function openWebSession(options: { prefix: string; email: string; password: string; locale?: string; timezoneId?: string }): Promise<WebSession> {
  const dir = newDataRoot(options.prefix);
  const [apiPort, webPort] = [await freePort(), await freePort()];
  const api = `http://localhost:${apiPort}`;
  const web = `http://localhost:${webPort}`;
  const faults: Record<string, unknown>[] = [];
  const violations: string[] = [];
  const config = loadConfig({
    DATABASE_URL: `file:${path.join(dir, 'data')}`,
    BIND_ADDR: `127.0.0.1:${apiPort}`,
    WEB_BIND_ADDR: `127.0.0.1:${webPort}`,
    API_ORIGIN: api,
    WEB_ORIGIN: web,
  });
  const server: RunningServer = await startServer(config, { info() {}, error: (event, fields) => faults.push({ event, ...fields }) });
  await withEmbeddedDb(path.join(dir, 'data'), (db) => addUser(db, options.email, options.password));

  const context = await chromium.launchPersistentContext(path.join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1100, height: 900 },
    locale: options.locale ?? 'en-US',
    timezoneId: options.timezoneId ?? 'Europe/Berlin',
    acceptDownloads: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  context.setDefaultTimeout(10_000);
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) violations.push(message.text());
  });
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });

  // Password, then the first passkey: a full session.
  await page.goto(web);
  await page.getByLabel('Email').fill(options.email);
  await page.getByLabel('Password').fill(options.password);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('button', { name: 'Create a passkey' }).click();
  await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();

  const call: WebSession['call'] = (method, path, body) =>
    page.evaluate(
      async ({ method, url, body }) => {
        const res = await fetch(url, {
          method,
          credentials: 'include',
          headers: body === undefined ? {} : { 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: res.status, body: await res.json().catch(() => null) };
      },
      { method, url: `${api}${path}`, body },
    );

  return {
    page,
    context,
    api,
    web,
    faults,
    violations,
    call,
    post: (path, body) => call('POST', path, body),
    async go(link, heading) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
    },
    async close() {
      await context.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
