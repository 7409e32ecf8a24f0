import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { openPglite } from '../src/db/database';
import { embeddedPaths } from '../src/db/embedded';
import { WEB_DIST } from '../src/http/web-app';
import { startServer, type RunningServer } from '../src/server';
import { addUser } from '../src/users';

// Issue 5/6: the web app in a real browser (Debian's chromium through playwright-core, a CDP
// virtual authenticator) against `ledger serve` on the embedded database.

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = path.resolve('test-artifacts/web');
const EMAIL = 'treasurer@example.com';
const PASSWORD = 'a treasurer password';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

const runnable = existsSync(CHROMIUM) && existsSync(path.join(WEB_DIST, 'index.html'));

describe.skipIf(!runnable)('web app in chromium (issue 5/6, D9)', () => {
  let dir: string;
  let server: RunningServer;
  let context: BrowserContext;
  let page: Page;
  let api: string;
  let web: string;
  const faults: Record<string, unknown>[] = [];

  const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
  const post = (url: string, body: Record<string, string>) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body) });

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    dir = mkdtempSync(path.join(os.tmpdir(), 'ledger-web-'));
    const seed = await openPglite(embeddedPaths(dir).pgData);
    await addUser(seed.db, EMAIL, PASSWORD);
    await seed.close();

    const [apiPort, webPort] = [await freePort(), await freePort()];
    api = `http://localhost:${apiPort}`;
    web = `http://localhost:${webPort}`;
    const config = loadConfig({
      DATABASE_URL: `file:${dir}`,
      BIND_ADDR: `127.0.0.1:${apiPort}`,
      WEB_BIND_ADDR: `127.0.0.1:${webPort}`,
      API_ORIGIN: api,
      WEB_ORIGIN: web,
    });
    server = await startServer(config, { info() {}, error: (event, fields) => faults.push({ event, ...fields }) });

    context = await chromium.launchPersistentContext(path.join(dir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1100, height: 900 },
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = context.pages()[0] ?? (await context.newPage());
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
  }, 120_000);

  afterAll(async () => {
    await context?.close();
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function signIn(expectEnrol: boolean) {
    await page.goto(web);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: expectEnrol ? 'Create a passkey' : 'Use my passkey' }).click();
    await page.getByRole('heading', { name: 'Home' }).waitFor();
  }

  it('first sign-in enrols a passkey; a second sign-in uses it', async () => {
    await page.goto(web);
    await page.getByRole('heading', { name: 'Sign in to Ledger' }).waitFor();
    await shot('sign-in');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toBe('wrong email or password');

    await signIn(true);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Ledger' }).waitFor();
    await signIn(false);
    await shot('home-empty');
  });

  it('records money in, money out and a move, and balances change', async () => {
    await page.getByRole('link', { name: 'Accounts' }).click();
    for (const [name, kind] of [
      ['Bank', 'Accounts (money we have)'],
      ['Cash box', 'Accounts (money we have)'],
      ['Salary', 'Income'],
      ['Groceries', 'Spending categories'],
    ] as const) {
      await page.getByLabel('Name').fill(name);
      await page.getByLabel('Kind').selectOption({ label: kind });
      await page.getByRole('button', { name: 'Add account' }).click();
      await page.getByRole('rowheader', { name }).waitFor();
    }
    await shot('accounts');

    await page.getByRole('link', { name: 'Transactions' }).click();
    const record = async (mode: string, description: string, amount: string, first: string, second: string) => {
      await page.getByRole('radio', { name: mode }).check();
      await page.getByLabel('Description').fill(description);
      await page.getByLabel('Amount', { exact: true }).fill(amount);
      const selects = page.locator('form.record select');
      await selects.nth(0).selectOption({ label: first });
      await selects.nth(1).selectOption({ label: second });
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('cell', { name: description, exact: true }).waitFor();
    };
    await record('Money in', 'November salary', '2,500.00', 'Bank', 'Salary');
    await record('Money out', 'Market', '45.50', 'Bank', 'Groceries');
    await record('Move money', 'Float', '100', 'Bank', 'Cash box');
    await shot('transactions');

    await page.getByRole('link', { name: 'Ledger', exact: true }).click();
    await page.getByRole('heading', { name: 'Home' }).waitFor();
    const balanceOf = (name: string) => page.getByRole('row', { name: new RegExp(`^${name}`) }).locator('td').textContent();
    expect(await balanceOf('Bank')).toMatch(/2,354\.50|2\.354,50|2 354[,.]50/);
    expect(await balanceOf('Cash box')).toMatch(/100[.,]00/);
    await shot('home');

    await page.getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('heading', { name: 'What we have and owe' }).waitFor();
    await shot('reports');
  });

  it('switching the book style changes the wording everywhere', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('radio', { name: 'Club (an association)' }).check();
    await page.getByRole('link', { name: 'Transactions' }).click();
    await page.getByRole('radio', { name: 'Record a receipt' }).waitFor();
    await page.getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('heading', { name: 'Statement of funds' }).waitFor();
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('radio', { name: 'Personal (a household)' }).check();
    await page.getByRole('link', { name: 'Transactions' }).click();
    await page.getByRole('radio', { name: 'Money in' }).waitFor();
  });

  it('completes an authorization-code flow for a fresh dynamic client through /authorize, with the warning', async () => {
    const redirectUri = 'http://127.0.0.1:9/callback';
    const registered = (await (
      await fetch(`${api}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Pocket Assistant', redirect_uris: [redirectUri] }),
      })
    ).json()) as { client_id: string };
    const verifier = randomBytes(32).toString('base64url');
    const query = new URLSearchParams({
      client_id: registered.client_id,
      redirect_uri: redirectUri,
      response_type: 'code',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: api,
      state: 'st-1',
    });
    let landed = '';
    await page.route('http://127.0.0.1:9/**', (route) => {
      landed = route.request().url();
      return route.fulfill({ status: 200, body: 'back in the app' });
    });
    await page.goto(`${api}/oauth/authorize?${query}`);
    await page.getByRole('heading', { name: 'Allow Pocket Assistant?' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('registered itself and has never been used');
    await shot('consent');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(/127\.0\.0\.1:9\/callback/);
    const back = new URL(landed);
    expect(back.searchParams.get('state')).toBe('st-1');
    const token = await post(`${api}/oauth/token`, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: redirectUri,
      client_id: registered.client_id,
      code_verifier: verifier,
    });
    expect(token.status).toBe(200);
  });

  it('completes a device flow through /device with the prefilled code', async () => {
    const started = (await (await post(`${api}/oauth/device_authorization`, { client_id: 'ledger-desktop', resource: api })).json()) as {
      device_code: string;
      verification_uri_complete: string;
    };
    await page.goto(started.verification_uri_complete);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('Ledger Desktop asks for full access').waitFor();
    await shot('device');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('status').waitFor();
    const token = await post(`${api}/oauth/token`, {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: started.device_code,
      client_id: 'ledger-desktop',
    });
    expect(token.status).toBe(200);
  });

  it('a signed-out person opening /device signs in first and returns to the same request', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Ledger' }).waitFor();
    const started = (await (await post(`${api}/oauth/device_authorization`, { client_id: 'ledger-cli', resource: api })).json()) as {
      verification_uri_complete: string;
    };
    await page.goto(started.verification_uri_complete);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Use my passkey' }).click();
    await page.getByRole('heading', { name: 'Connect a device' }).waitFor();
    expect(await page.getByLabel('Code shown on the device').inputValue()).toBe(new URL(started.verification_uri_complete).searchParams.get('user_code'));
  });

  it('lists connections in settings and revokes one', async () => {
    await page.goto(`${web}/settings`);
    const revoke = page.getByRole('button', { name: 'Revoke Ledger Desktop' });
    await revoke.waitFor();
    await shot('settings');
    page.once('dialog', (dialog) => void dialog.accept());
    await revoke.click();
    await revoke.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Revoke Pocket Assistant' }).waitFor();
    expect(faults, 'server faults during the browser session').toEqual([]);
  });
});
