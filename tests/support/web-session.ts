import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
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

export type SessionLanguage = 'en' | 'de';

type Catalogue = { [key: string]: string | Catalogue };

/** D29: a message of the web app's catalogue of `language` (what the page shows for the key). */
export function message(language: SessionLanguage, key: string): string {
  const catalogue = JSON.parse(readFileSync(path.resolve(`src/web/locales/${language}.json`), 'utf8')) as Catalogue;
  const found = key.split('.').reduce<string | Catalogue | undefined>((at, part) => (typeof at === 'object' ? at[part] : undefined), catalogue);
  if (typeof found !== 'string') throw new Error(`no message ${key} in ${language}.json`);
  return found;
}

/** D29: the language the app shows a browser of `locale` that chose `chosen` (or none): the browser's when it is German, else English. */
export function languageOf(locale: string, chosen?: SessionLanguage): SessionLanguage {
  return chosen ?? (locale.toLowerCase().startsWith('de') ? 'de' : 'en');
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
  /** D29: the language the app shows this session (its catalogue's words are used to sign in and navigate). */
  language: SessionLanguage;
  /** Follows a link of the main navigation and waits for the page's heading. */
  go(link: string, heading: string): Promise<void>;
  close(): Promise<void>;
}

export async function openWebSession(options: {
  prefix: string;
  email: string;
  password: string;
  locale?: string;
  timezoneId?: string;
  /** D29: a language chosen in this browser before the first page loads (localStorage `ledger.language`); else the browser's. */
  language?: SessionLanguage;
}): Promise<WebSession> {
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
  const language = languageOf(options.locale ?? 'en-US', options.language);
  // Seeded once, as a person's earlier choice: a choice made later in the test is kept across reloads.
  if (options.language) {
    await context.addInitScript((chosen) => {
      if (window.location.protocol.startsWith('http') && !localStorage.getItem('ledger.language')) localStorage.setItem('ledger.language', chosen);
    }, options.language);
  }
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) violations.push(message.text());
  });
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });

  // Password, then the first passkey: a full session, in the session's language (D29).
  const words = (key: string) => message(language, key);
  await page.goto(web);
  await page.getByLabel(words('signIn.email')).fill(options.email);
  await page.getByLabel(words('signIn.password'), { exact: true }).fill(options.password);
  await page.getByRole('button', { name: words('signIn.continue') }).click();
  await page.getByRole('button', { name: words('signIn.enrol') }).click();
  // Home's heading, whatever its words: the header's Sign out shows the session is full.
  await page.getByRole('button', { name: words('nav.signOut') }).waitFor();
  await page.locator('main h1').waitFor();

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
    language,
    call,
    post: (path, body) => call('POST', path, body),
    async go(link, heading) {
      await page.getByRole('navigation', { name: message(language, 'nav.main') }).getByRole('link', { name: link, exact: true }).click();
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
    },
    async close() {
      await context.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
