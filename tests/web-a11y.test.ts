import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingBrowserPrerequisite, openWebSession, STRICT_BROWSER, type WebSession } from './support/web-session';

// Issue 6/7 "done means": an axe-core scan (WCAG 2 A and AA rules) of every page of the web app,
// in both book styles, at desktop and phone width, reports no serious or critical violation.

const missing = missingBrowserPrerequisite();
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** Every page; the Reconcile page (D20) of the bank account, with its unreconciled transactions ticked. */
const PAGES = ['/', '/transactions', '/import', '/accounts', '/reconcile?account=', '/reports', '/reports/annual', '/schedules', '/history', '/settings', '/device'] as const;

describe.skipIf(missing !== null && !STRICT_BROWSER)('accessibility of every page (axe-core, issue 6/7)', () => {
  let s: WebSession;
  const ids: Record<string, number> = {};

  /** The serious and critical violations on the page as it is now. */
  const scan = async (): Promise<string[]> => {
    // Evaluated through the debugging protocol, which the page's Content-Security-Policy does not govern.
    await s.page.evaluate(AXE);
    const violations = await s.page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run(context: Document, options: unknown): Promise<{ violations: Violation[] }> } }).axe;
      return (await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })).violations;
    });
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  };

  const visit = async (path: string) => {
    await s.page.goto(`${s.web}${path}`);
    await s.page.getByRole('heading', { level: 1 }).waitFor();
    await s.page.waitForLoadState('networkidle');
  };

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    s = await openWebSession({ prefix: 'ledger-web-a11y-', email: 'a11y@example.com', password: 'a treasurer password' });
    for (const [name, kind] of [['Bank', 'asset'], ['Card', 'liability'], ['Opening', 'equity'], ['Salary', 'income'], ['Groceries', 'expense']] as const) {
      ids[name] = (await s.post('/accounts', { name, kind })).body.id;
    }
    for (const [on, description, from, to, cents] of [
      ['2025-12-20', 'Opening the book', 'Opening', 'Bank', 100_000],
      ['2026-10-01', 'Salary', 'Salary', 'Bank', 250_000],
      ['2026-11-02', 'Market', 'Card', 'Groceries', 4_550],
    ] as const) {
      const entries = [{ account_id: ids[to], amount_cents: cents }, { account_id: ids[from], amount_cents: -cents }];
      expect((await s.post('/transactions', { occurred_on: on, description, entries })).status).toBe(201);
    }
    // D21: a reminder due now, for Home's "Coming up" and the Schedules page's list.
    const due = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
    const reminder = { description: 'Rent', entries: [{ account_id: ids.Groceries, amount_cents: 85_000 }, { account_id: ids.Bank, amount_cents: -85_000 }], start_on: due, every: 'month', mode: 'remind' };
    expect((await s.post('/schedules', reminder)).status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await s?.close();
  });

  it('the scan itself finds a violation when there is one (an image without a text alternative)', async () => {
    await visit('/');
    await s.page.evaluate(() => document.querySelector('main')!.append(Object.assign(document.createElement('img'), { src: '/nothing.png' })));
    expect((await scan()).join('\n')).toMatch(/^image-alt \(critical\)/m);
  });

  for (const style of ['personal', 'club'] as const) {
    for (const width of [1100, 390]) {
      it(`${style} book, ${width} px: no serious or critical violation on any page`, async () => {
        const status = await s.page.evaluate(
          async ({ api, bookStyle }) =>
            (await fetch(`${api}/settings`, { method: 'PUT', credentials: 'include', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ book_style: bookStyle }) })).status,
          { api: s.api, bookStyle: style },
        );
        expect(status).toBe(200);
        await s.page.setViewportSize({ width, height: 900 });
        const found: Record<string, string[]> = {};
        for (const path of PAGES) {
          await visit(path.endsWith('=') ? `${path}${ids.Bank}` : path);
          const violations = await scan();
          if (violations.length > 0) found[path] = violations;
        }
        expect(found).toEqual({});
      });
    }
  }

  // Issue 37 item 9: the Import page's CSV sample and preview tables scroll sideways; axe found
  // `scrollable-region-focusable` (serious) on them at both widths.
  for (const width of [1100, 390]) {
    it(`D16: the Import page with a CSV file's first rows and its preview open, ${width} px: no serious or critical violation`, async () => {
      await s.page.setViewportSize({ width, height: 900 });
      await visit('/import');
      const field = (label: string) => s.page.getByLabel(new RegExp(`^${label}`));
      await field('Account of the statement').selectOption({ label: 'Bank' });
      await field('Account for lines no rule matches').selectOption({ label: 'Groceries' });
      const long = 'Lastschrift Einzug Stadtwerke Beispielstadt Abschlag Strom und Gas Vertragskonto 1234567890 Zahlungsreferenz';
      const csv = ['Buchungstag;Wertstellung;Verwendungszweck;Empfaenger;IBAN;Betrag;Saldo', `02.03.2026;02.03.2026;${long};Stadtwerke Beispielstadt GmbH;DE02120300000000202051;-120,00;1.000,00`].join('\r\n');
      await field('Statement file').setInputFiles({ name: 'wide.csv', mimeType: 'text/csv', buffer: Buffer.from(csv, 'utf8') });
      await s.page.getByRole('table', { name: 'First rows of the file' }).waitFor();
      await field('Date column').selectOption({ label: 'Buchungstag' });
      await field('Description column').selectOption({ label: 'Verwendungszweck' });
      await field('Amount column').selectOption({ label: 'Betrag' });
      await field('Date format').selectOption({ label: 'DD.MM.YYYY' });
      await field('Decimal mark').selectOption({ label: 'Comma (1234,56)' });
      await field('Separator').selectOption({ label: 'Semicolon ;' });
      await s.page.getByRole('button', { name: 'Preview' }).click();
      await s.page.getByRole('table', { name: 'Statement lines' }).waitFor();
      await s.page.waitForLoadState('networkidle');
      expect(await scan()).toEqual([]);
    });
  }

  it('a skip link is the first Tab stop and takes the keyboard to the page heading; after Save the focus is not lost to the page body', async () => {
    await s.page.setViewportSize({ width: 1100, height: 900 });
    expect((await s.call('PUT', '/settings', { book_style: 'personal' })).status).toBe(200);
    await visit('/transactions');
    await s.page.keyboard.press('Tab');
    const first = await s.page.evaluate(() => document.activeElement?.textContent);
    expect(first).toBe('Skip to the page');
    await s.page.keyboard.press('Enter');
    expect(await s.page.evaluate(() => ({ tag: document.activeElement?.tagName, text: document.activeElement?.textContent }))).toEqual({ tag: 'H1', text: 'Transactions' });

    const form = s.page.locator('form.record');
    await s.page.getByRole('radio', { name: 'Money out' }).check();
    await form.getByLabel('Date').fill('2026-11-03');
    await form.getByLabel('Description').fill('Focus check');
    await form.getByLabel('Amount', { exact: true }).fill('1');
    await form.getByLabel('Paid from').selectOption({ label: 'Bank' });
    await form.getByLabel('Spent on').selectOption({ label: 'Groceries' });
    await form.getByRole('button', { name: 'Save', exact: true }).focus();
    await s.page.keyboard.press('Enter');
    await form.getByRole('status').filter({ hasText: 'Saved “Focus check”' }).waitFor();
    await expect.poll(() => s.page.evaluate(() => document.activeElement?.tagName)).not.toBe('BODY');
    expect(await s.page.evaluate(() => document.activeElement?.textContent)).toBe('Save');
  });

  it('D21: the schedule forms, opened (a new schedule, a transaction made to repeat, a reminder posted with another amount), at 390 px', async () => {
    await s.page.setViewportSize({ width: 390, height: 900 });
    const found: Record<string, string[]> = {};
    for (const [path, buttons] of [
      ['/schedules', ['Make a schedule']],
      ['/transactions', ['Edit Salary', 'Repeat…']],
      ['/', [/^Post now with another amount/]],
    ] as const) {
      await visit(path);
      for (const name of buttons) await s.page.getByRole('button', { name, exact: typeof name === 'string' }).first().click();
      await s.page.getByRole('form').last().waitFor();
      const violations = await scan();
      if (violations.length > 0) found[path] = violations;
    }
    expect(found).toEqual({});
  });

  it('D22: a transaction opened with its receipts (a thumbnail, a PDF), an image full size, and the record form with a receipt chosen, at 390 px', async () => {
    await s.page.setViewportSize({ width: 390, height: 900 });
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
    const { body: listed } = await s.call('GET', '/transactions?q=Salary&limit=5');
    const sent = await s.page.evaluate(
      async ({ api, id, png }) => {
        const add = async (name: string, type: string, body: BlobPart) =>
          (await fetch(`${api}/transactions/${id}/attachments?name=${name}`, { method: 'POST', credentials: 'include', headers: { 'content-type': type }, body: new Blob([body]) })).status;
        return [await add('till.png', 'image/png', Uint8Array.from(atob(png), (c) => c.charCodeAt(0))), await add('invoice.pdf', 'application/pdf', '%PDF-1.4\n%%EOF\n')];
      },
      { api: s.api, id: listed[0].id as number, png },
    );
    expect(sent).toEqual([201, 201]);
    const found: Record<string, string[]> = {};
    const scanned = async (what: string) => {
      const violations = await scan();
      if (violations.length > 0) found[what] = violations;
    };
    await visit('/transactions');
    await s.page.getByRole('button', { name: 'Edit Salary' }).click();
    const tile = s.page.getByRole('button', { name: 'Show till.png full size' });
    await tile.locator('img').waitFor();
    await scanned('the opened transaction with its receipts');
    await tile.click();
    await s.page.getByRole('dialog', { name: 'till.png' }).getByRole('img').waitFor();
    await scanned('the receipt full size');
    await s.page.keyboard.press('Escape');
    await s.page.locator('form.record').first().locator('input[type=file]').setInputFiles({ name: 'slip.png', mimeType: 'image/png', buffer: Buffer.from(png, 'base64') });
    await s.page.getByRole('button', { name: 'Take off slip.png' }).waitFor();
    await scanned('the record form with a receipt chosen');
    expect(found).toEqual({});
  });

  it('the sign-in page, signed out', async () => {
    await s.page.setViewportSize({ width: 1100, height: 900 });
    await s.page.evaluate(async (api) => void (await fetch(`${api}/auth/logout`, { method: 'POST', credentials: 'include' })), s.api);
    await s.page.goto(s.web);
    await s.page.getByLabel('Email').waitFor();
    expect(await scan()).toEqual([]);
  });
});
