import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { germanOnScreen } from './support/i18n-walk';
import { message, missingBrowserPrerequisite, openWebSession, STRICT_BROWSER, type WebSession } from './support/web-session';

// D26 in the web app (issue 39 item 1), in chromium against `ledger serve`: the Budgets page at
// 1,100 and 390 px. A budget made from last year's figures (GET /budgets/draft), one line typed as
// money (D19: "450.00" a month, with rollover), saved, and what is stored read back through
// GET /budgets/{id} to the cent; changed (PUT) and deleted (asked first); a bad amount refused at
// the field and nothing saved; no sideways scrolling at 390 px; a club's book says "plan" (D12).

const ARTIFACTS = path.resolve('test-artifacts/web-budgets');
const EMAIL = 'family@example.com';
const PASSWORD = 'a family password';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1100, height: 900 };
const en = (key: string) => message('en', key);
const ROLLOVER = en('budgets.form.rollover');

const missing = missingBrowserPrerequisite();
if (missing && !STRICT_BROWSER) console.warn(`web-budgets.test.ts skipped: ${missing}`);

/** Today where the browser is (Europe/Berlin), as the web app counts it. */
const TODAY = new Date().toLocaleDateString('en-CA', { timeZone: 'Europe/Berlin' });
/** The page's default months: next calendar year from October on, else this one. */
const YEAR = Number(TODAY.slice(0, 4)) + (Number(TODAY.slice(5, 7)) >= 10 ? 1 : 0);
const FROM = `${YEAR}-01`;
const TO = `${YEAR}-12`;
/** Last year's figures: the 12 months before the budget (GET /budgets/draft's default). */
const BASIS = YEAR - 1;

type StoredLine = { account_id: number; account_name: string; amount_cents: number; per: 'month' | 'period'; rollover: boolean };
type Stored = { id: number; name: string; from: string; to: string; lines: StoredLine[] };

describe.skipIf(missing !== null && !STRICT_BROWSER)('the Budgets page in chromium (D26, D19, D12)', () => {
  let s: WebSession;
  let page: Page;
  const ids: Record<string, number> = {};
  /** What GET /budgets/draft answers for the default months: the lines the form must show, in order. */
  let draft: StoredLine[] = [];
  const made: Record<string, number> = {};
  const noSideways = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  const answerNext = (accept: boolean) =>
    new Promise<string>((resolve) =>
      page.once('dialog', (dialog) => {
        resolve(dialog.message());
        void (accept ? dialog.accept() : dialog.dismiss());
      }),
    );
  const stored = async (id: number) => (await s.call('GET', `/budgets/${id}`)) as { status: number; body: Stored };
  const linesOf = (b: Stored) => b.lines.map(({ account_id, amount_cents, per, rollover }) => ({ account_id, amount_cents, per, rollover }));
  const lineOf = (form: Locator, account: string) => form.getByRole('group', { name: new RegExp(`^Line \\d+: ${account}$`) });
  const openBudgets = async () => {
    await page.goto(`${s.web}/budgets`);
    await page.getByRole('heading', { name: 'Budgets', level: 1 }).waitFor();
  };

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    mkdirSync(ARTIFACTS, { recursive: true });
    s = await openWebSession({ prefix: 'ledger-web-budgets-', email: EMAIL, password: PASSWORD });
    page = s.page;
    for (const [name, kind] of [['Bank', 'asset'], ['Opening', 'equity'], ['Salary', 'income'], ['Rent', 'expense'], ['Food', 'expense'], ['Gifts', 'expense']] as const) {
      ids[name] = (await s.post('/accounts', { name, kind })).body.id;
    }
    // Last year: salary twice, rent once, food twice; nothing on Gifts (no draft line for it).
    for (const [on, description, from, to, cents] of [
      [`${BASIS}-01-02`, 'Opening the book', 'Opening', 'Bank', 1_000_000],
      [`${BASIS}-03-15`, 'March salary', 'Salary', 'Bank', 200_000],
      [`${BASIS}-04-15`, 'April salary', 'Salary', 'Bank', 200_000],
      [`${BASIS}-04-01`, 'Flat rent', 'Bank', 'Rent', 85_000],
      [`${BASIS}-05-03`, 'Groceries', 'Bank', 'Food', 12_345],
      [`${BASIS}-06-07`, 'Groceries', 'Bank', 'Food', 12_345],
    ] as const) {
      const entries = [{ account_id: ids[to], amount_cents: cents }, { account_id: ids[from], amount_cents: -cents }];
      expect((await s.post('/transactions', { occurred_on: on, description, entries })).status).toBe(201);
    }
    const answer = await s.call('GET', `/budgets/draft?from=${FROM}&to=${TO}`);
    expect(answer.status).toBe(200);
    draft = (answer.body as Stored).lines;
    expect(draft.map((l) => [l.account_name, l.amount_cents, l.per]).sort()).toEqual([
      ['Food', 24_690, 'period'],
      ['Rent', 85_000, 'period'],
      ['Salary', 400_000, 'period'],
    ]);
  }, 180_000);

  afterAll(async () => {
    await s?.close();
  });

  /** Makes a budget from last year's figures, its rent typed as "450.00" a month with rollover (D26, D19). */
  async function makeFromDraft(name: string) {
    await page.getByRole('button', { name: 'New budget', exact: true }).click();
    const form = page.getByRole('form', { name: 'A new budget' });
    // The default months: next year in the last quarter, else this one.
    expect(await form.getByLabel('First month').inputValue()).toBe(FROM);
    expect(await form.getByLabel('Last month').inputValue()).toBe(TO);
    await form.getByText(en('budgets.form.noLines')).waitFor();
    await form.getByLabel('Name').fill(name);
    await form.getByRole('button', { name: 'Start from last year’s figures' }).click();
    await form.getByText(`Filled in 3 lines with the totals from Jan 1, ${BASIS} to Dec 31, ${BASIS}.`).waitFor();
    // Every line of the draft, in its order, at last year's total for the whole budget.
    const groups = form.getByRole('group', { name: /^Line \d+: / });
    await expect.poll(() => groups.count()).toBe(3);
    for (const [i, line] of draft.entries()) {
      const group = form.getByRole('group', { name: `Line ${i + 1}: ${line.account_name}`, exact: true });
      expect(await group.getByLabel('Amount', { exact: true }).inputValue()).toBe((line.amount_cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2 }));
      expect(await group.getByLabel('How often').inputValue()).toBe('period');
      // Rollover is only for a line per month.
      expect(await group.getByLabel(ROLLOVER).count()).toBe(0);
    }
    const totals = form.locator('.budget-totals');
    await expect.poll(() => totals.innerText()).toBe('Over 12 months:\nPlanned income: €4,000.00\nPlanned spending: €1,096.90\nResult: €2,903.10');

    const rent = lineOf(form, 'Rent');
    await rent.getByLabel('How often').selectOption({ label: 'a month' });
    await rent.getByLabel('Amount', { exact: true }).fill('450.00');
    await rent.getByText('= €450.00').waitFor();
    await rent.getByLabel(ROLLOVER).check();
    // As typed: 12 × €450.00 + €246.90 planned spending.
    await expect.poll(() => totals.innerText()).toBe('Over 12 months:\nPlanned income: €4,000.00\nPlanned spending: €5,646.90\nResult: -€1,646.90');
    const phone = page.viewportSize()!.width === PHONE.width;
    if (phone) expect(await noSideways()).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, phone ? 'form-phone.png' : 'form.png'), fullPage: true });
    await form.getByRole('button', { name: 'Make the budget' }).click();
    const notice = page.getByRole('status').filter({ hasText: `Made the budget “${name}”.` });
    await notice.waitFor();
    // As on Schedules: the notice takes the focus once the form is gone.
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe(`Made the budget “${name}”.`);
    await form.waitFor({ state: 'detached' });

    const budget = ((await s.call('GET', '/budgets')).body as Stored[]).find((b) => b.name === name)!;
    made[name] = budget.id;
    const { status, body } = await stored(budget.id);
    expect(status).toBe(200);
    expect(body).toMatchObject({ name, from: FROM, to: TO });
    expect(linesOf(body)).toEqual(
      draft.map((l) => ({ account_id: l.account_id, amount_cents: l.account_name === 'Rent' ? 45_000 : l.amount_cents, per: l.account_name === 'Rent' ? 'month' : 'period', rollover: l.account_name === 'Rent' })),
    );
    const row = page.getByRole('table', { name: 'Every budget' }).getByRole('row').filter({ hasText: name });
    await row.waitFor();
    expect((await row.getByRole('cell').allTextContents()).slice(0, 2)).toEqual([`${name}3 lines`, `January ${YEAR} – December ${YEAR}`]);
    const report = row.getByRole('link', { name: `Plan and reality of ${name}` });
    expect(await report.getAttribute('href')).toBe(`/budgets/report?id=${budget.id}`);
  }

  it('at 1,100 px: the header says "Budgets"; a budget made from last year’s figures, its rent typed "450.00" a month with rollover, is stored to the cent', async () => {
    await page.setViewportSize(DESKTOP);
    await s.go('Budgets', 'Budgets');
    expect(await page.title()).toBe('Budgets — Ledger');
    await page.getByText('No budget yet.').waitFor();
    await makeFromDraft('Household');
    expect(await germanOnScreen(page, ['budgets'])).toEqual([]);
  });

  it('at 390 px: the same, with no sideways scrolling of the page, form or list', async () => {
    await page.setViewportSize(PHONE);
    await openBudgets();
    await makeFromDraft('Household on the phone');
    expect(await noSideways()).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'list-phone.png'), fullPage: true });
    await page.getByRole('button', { name: 'Change Household on the phone' }).click();
    await page.getByRole('form', { name: 'Change Household on the phone' }).waitFor();
    expect(await noSideways()).toBe(true);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.setViewportSize(DESKTOP);
  });

  it('a budget changed (PUT): an amount typed with grouping "1,234.56", a line removed and one added; stored as typed', async () => {
    await openBudgets();
    await page.getByRole('button', { name: 'Change Household', exact: true }).click();
    const form = page.getByRole('form', { name: 'Change Household', exact: true });
    await page.getByRole('heading', { name: 'Change “Household”' }).waitFor();
    expect(await lineOf(form, 'Rent').getByLabel('Amount', { exact: true }).inputValue()).toBe('450.00');
    expect(await lineOf(form, 'Rent').getByLabel(ROLLOVER).isChecked()).toBe(true);
    await lineOf(form, 'Food').getByLabel('Amount', { exact: true }).fill('1,234.56');
    const salaryLine = Number((await lineOf(form, 'Salary').locator('legend').textContent())!.match(/^Line (\d+)/)![1]);
    await form.getByRole('button', { name: `Remove line ${salaryLine}` }).click();
    await expect.poll(() => lineOf(form, 'Salary').count()).toBe(0);
    await form.getByRole('button', { name: 'Add a line' }).click();
    const added = form.getByRole('group', { name: 'Line 3', exact: true });
    // An account another line names is not offered again (D26: each account at most once).
    const offered = await added.getByLabel('Account').locator('option').allTextContents();
    expect(offered.filter((o) => ['Rent', 'Food', 'Salary', 'Gifts', 'Bank'].includes(o)).sort()).toEqual(['Gifts', 'Salary']);
    expect(await added.getByLabel('Account').locator('optgroup').evaluateAll((groups) => groups.map((g) => g.getAttribute('label')))).toEqual(['Income', 'Spending categories']);
    await added.getByLabel('Account').selectOption({ label: 'Salary' });
    const salaryAgain = form.getByRole('group', { name: 'Line 3: Salary', exact: true });
    await salaryAgain.getByLabel('Amount', { exact: true }).fill('300');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved the budget “Household”.' }).waitFor();

    const { body } = await stored(made.Household!);
    const order = draft.filter((l) => l.account_name !== 'Salary').map((l) => l.account_name);
    const expected: Record<string, { amount_cents: number; per: string; rollover: boolean }> = {
      Rent: { amount_cents: 45_000, per: 'month', rollover: true },
      Food: { amount_cents: 123_456, per: 'period', rollover: false },
    };
    expect(linesOf(body)).toEqual([
      ...order.map((name) => ({ account_id: ids[name], ...expected[name] })),
      { account_id: ids.Salary, amount_cents: 30_000, per: 'month', rollover: false },
    ]);
  });

  it('D19: a bad amount ("12.345") is refused at the field and on Save, with a clear message; nothing is saved', async () => {
    await openBudgets();
    const before = (await stored(made.Household!)).body;
    await page.getByRole('button', { name: 'Change Household', exact: true }).click();
    const form = page.getByRole('form', { name: 'Change Household', exact: true });
    const food = lineOf(form, 'Food');
    const foodLine = Number((await food.locator('legend').textContent())!.match(/^Line (\d+)/)![1]);
    await food.getByLabel('Amount', { exact: true }).fill('12.345');
    const refusal = '“12.345” has more than two decimals: an amount has cents at most, like 1,234.56.';
    await food.getByText(refusal).waitFor();
    expect(await food.getByLabel('Amount', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await form.getByRole('alert').filter({ hasText: `Line ${foodLine}: ${refusal}` }).waitFor();
    expect((await stored(made.Household!)).body).toEqual(before);
    // And a line without an account.
    await food.getByLabel('Amount', { exact: true }).fill('12.34');
    await form.getByRole('button', { name: 'Add a line' }).click();
    await form.getByRole('button', { name: 'Save changes' }).click();
    await form.getByRole('alert').filter({ hasText: 'Line 4: choose an account.' }).waitFor();
    expect((await stored(made.Household!)).body).toEqual(before);
    await form.getByRole('button', { name: 'Cancel' }).click();
    await form.waitFor({ state: 'detached' });
  });

  it('D26: other basis dates give other figures (asked before the lines typed are replaced); dates in the wrong order, more than 36 months and a name taken are refused in words, nothing saved', async () => {
    await openBudgets();
    const before = ((await s.call('GET', '/budgets')).body as Stored[]).length;
    await page.getByRole('button', { name: 'New budget', exact: true }).click();
    const form = page.getByRole('form', { name: 'A new budget' });
    await form.getByRole('button', { name: 'Start from last year’s figures' }).click();
    await expect.poll(() => form.getByRole('group', { name: /^Line \d+: / }).count()).toBe(3);
    // April of last year only: the rent and one salary.
    await form.getByLabel('From', { exact: true }).fill(`${BASIS}-04-01`);
    await form.getByLabel('Through', { exact: true }).fill(`${BASIS}-04-30`);
    let asked = answerNext(false);
    await form.getByRole('button', { name: 'Start from last year’s figures' }).click();
    expect(await asked).toBe('Replace the 3 lines with last year’s figures?');
    expect(await form.getByRole('group', { name: /^Line \d+: / }).count()).toBe(3);
    asked = answerNext(true);
    await form.getByRole('button', { name: 'Start from last year’s figures' }).click();
    await asked;
    await form.getByText(`Filled in 2 lines with the totals from Apr 1, ${BASIS} to Apr 30, ${BASIS}.`).waitFor();
    expect(await lineOf(form, 'Salary').getByLabel('Amount', { exact: true }).inputValue()).toBe('2,000.00');
    expect(await lineOf(form, 'Rent').getByLabel('Amount', { exact: true }).inputValue()).toBe('850.00');
    expect(await lineOf(form, 'Food').count()).toBe(0);

    // Only a start, after the default end (the last day before the first month): refused before asking.
    await form.getByLabel('Through', { exact: true }).fill('');
    await form.getByLabel('From', { exact: true }).fill(`${YEAR}-02-01`);
    await form.getByRole('button', { name: 'Start from last year’s figures' }).click();
    await form.getByRole('alert').filter({ hasText: 'Last year’s figures end before they begin: choose the dates again.' }).waitFor();

    await form.getByLabel('Name').fill('Four years');
    await form.getByLabel('Last month').fill(`${YEAR + 3}-12`);
    await form.locator('.budget-totals').getByText('Over 48 months:').waitFor();
    await form.getByRole('button', { name: 'Make the budget' }).click();
    await form.getByRole('alert').filter({ hasText: 'At most 36 months: these are 48.' }).waitFor();
    // The server's refusal of a name taken (ignoring case, D26), in the page's words (D29).
    await form.getByLabel('Last month').fill(TO);
    await form.getByLabel('Name').fill('household');
    await form.getByRole('button', { name: 'Make the budget' }).click();
    await form.getByRole('alert').filter({ hasText: 'There is a budget called “household” already: choose another name.' }).waitFor();
    expect(((await s.call('GET', '/budgets')).body as Stored[]).length).toBe(before);
    await form.getByRole('button', { name: 'Cancel' }).click();
  });

  it('a budget deleted, asked first: declined it stays, accepted it is gone (404)', async () => {
    await openBudgets();
    let asked = answerNext(false);
    await page.getByRole('button', { name: 'Delete Household on the phone' }).click();
    expect(await asked).toBe('Delete the budget “Household on the phone”? Your transactions stay as they are.');
    expect((await stored(made['Household on the phone']!)).status).toBe(200);
    asked = answerNext(true);
    await page.getByRole('button', { name: 'Delete Household on the phone' }).click();
    await asked;
    await page.getByRole('status').filter({ hasText: 'Deleted the budget “Household on the phone”.' }).waitFor();
    expect((await stored(made['Household on the phone']!)).status).toBe(404);
    await expect.poll(() => page.getByRole('table', { name: 'Every budget' }).getByRole('row').filter({ hasText: 'Household on the phone' }).count()).toBe(0);
    expect((await stored(made.Household!)).status).toBe(200);
  });

  it('D12: a club’s book says "plan": the header link, the heading, the new plan, its "once, for the whole plan" and payments', async () => {
    expect((await s.call('PUT', '/settings', { book_style: 'club' })).status).toBe(200);
    try {
      await page.goto(`${s.web}/budgets`);
      await page.getByRole('heading', { name: 'Plans', level: 1 }).waitFor();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Plan', exact: true }).waitFor();
      expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Budgets', exact: true }).count()).toBe(0);
      await page.getByRole('heading', { name: 'Every plan' }).waitFor();
      await page.getByRole('button', { name: 'New plan', exact: true }).click();
      const form = page.getByRole('form', { name: 'A new plan' });
      await form.getByRole('button', { name: 'Add a line' }).click();
      expect(await form.getByRole('group', { name: 'Line 1' }).getByLabel('How often').locator('option').allTextContents()).toEqual(['a month', 'once, for the whole plan']);
      await form.locator('.budget-totals').getByText('Planned payments: €0.00').waitFor();
      await form.getByRole('button', { name: 'Make the plan' }).click();
      await form.getByRole('alert').filter({ hasText: 'Give the plan a name.' }).waitFor();
      expect(await page.locator('main').innerText()).not.toMatch(/budget/i);
    } finally {
      expect((await s.call('PUT', '/settings', { book_style: 'personal' })).status).toBe(200);
    }
  });
});
