import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingBrowserPrerequisite, openWebSession, STRICT_BROWSER, type WebSession } from './support/web-session';

// Issue 37 item 11 (D19's far-date question), in chromium: entering last year's lines asked "more
// than a year from today?" on every line (6 times for 6 lines). It is asked once per year while the
// page is open, and not at all for a year the book already has transactions in.

const missing = missingBrowserPrerequisite();
const YEAR = new Date().getFullYear();
/** Always more than a year before today, whatever today is. */
const FAR = YEAR - 2;
/** A year the book already has a transaction in (recorded through the API before the page opened). */
const KNOWN = YEAR - 3;

describe.skipIf(missing !== null && !STRICT_BROWSER)('a far date is asked about once, not per line (issue 37 item 11, D19)', () => {
  let s: WebSession;
  const asked: string[] = [];

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    s = await openWebSession({ prefix: 'ledger-web-far-dates-', email: 'far-dates@example.com', password: 'a treasurer password' });
    const ids: number[] = [];
    for (const [name, kind] of [['Bank', 'asset'], ['Groceries', 'expense']] as const) {
      const res = await s.post('/accounts', { name, kind });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const res = await s.post('/transactions', { occurred_on: `${KNOWN}-05-01`, description: 'Known year', entries: [{ account_id: ids[1], amount_cents: 100 }, { account_id: ids[0], amount_cents: -100 }] });
    expect(res.status).toBe(201);
    s.page.on('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.accept();
    });
    await s.page.reload();
    await s.go('Transactions', 'Transactions');
  }, 120_000);
  afterAll(() => s?.close());

  const record = async (date: string, description: string) => {
    const page = s.page;
    await page.getByRole('radio', { name: 'Money out' }).check();
    await page.getByLabel('Date').fill(date);
    await page.getByLabel('Description').fill(description);
    await page.getByLabel('Amount', { exact: true }).fill('12.50');
    await page.getByLabel('Paid from').selectOption({ label: 'Bank' });
    await page.getByLabel('Spent on').selectOption({ label: 'Groceries' });
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.locator('form.record').getByRole('status').filter({ hasText: `Saved “${description}”` }).waitFor();
  };

  it('six lines of a far year: asked once, all six saved', async () => {
    for (let month = 1; month <= 6; month++) await record(`${FAR}-0${month}-15`, `Line ${month} of ${FAR}`);
    expect(asked).toEqual([expect.stringMatching(new RegExp(`^The date .*${FAR} is more than a year from today\\. Save it anyway\\?$`))]);
    const list = await s.call('GET', `/transactions?from=${FAR}-01-01&to=${FAR}-12-31`);
    expect(list.body).toHaveLength(6);
  });

  it('a year the book already has transactions in is not asked about', async () => {
    asked.length = 0;
    await record(`${KNOWN}-07-01`, `Another of ${KNOWN}`);
    expect(asked).toEqual([]);
  });

  it('another far year is still asked about', async () => {
    asked.length = 0;
    await record(`${YEAR + 5}-01-10`, 'Far ahead');
    expect(asked).toHaveLength(1);
  });
});
