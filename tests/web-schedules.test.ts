import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays as addDaysInRange, nthOccurrence } from '../src/book/occurrences';
import { missingBrowserPrerequisite, openWebSession, STRICT_BROWSER, type WebSession } from './support/web-session';

// D21 in the web app (issue "4/8 Things that come back"), in chromium against `ledger serve`:
// a monthly rent made to repeat from its transaction at 390 px, seen in Home's "Coming up"; the
// preview's dates in words with the month's last day in shorter months; a start in the past asks
// first and says how many dates will be posted at once; a reminder posted, one skipped, one
// posted with another amount (checked through the API); the forecast's dashed lines and their
// words; History's "posted by the schedule '…'"; the Schedules page's edit and delete.

const ARTIFACTS = path.resolve('test-artifacts/web-schedules');
const DOCS = path.resolve('docs/screenshots');
const EMAIL = 'family@example.com';
const PASSWORD = 'a family password';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1100, height: 900 };

const missing = missingBrowserPrerequisite();
if (missing && !STRICT_BROWSER) console.warn(`web-schedules.test.ts skipped: ${missing}`);

/** Today where the browser is (Europe/Berlin), as the web app counts it. */
const TODAY = new Date().toLocaleDateString('en-CA', { timeZone: 'Europe/Berlin' });
const YEAR = Number(TODAY.slice(0, 4));
/** A date as the web app shows it in an English browser (formatDate: medium, en-US). */
const shown = (isoDate: string) => new Date(`${isoDate}T00:00:00Z`).toLocaleDateString('en-US', { timeZone: 'UTC', dateStyle: 'medium' });
/** A date with its weekday, as the schedule previews show it. */
const dayShown = (isoDate: string) =>
  new Date(`${isoDate}T00:00:00Z`).toLocaleDateString('en-US', { timeZone: 'UTC', weekday: 'short', year: 'numeric', month: 'short', day: 'numeric' });
const monthly = (start: string, n: number) => nthOccurrence({ start_on: start, every: 'month', interval: 1, until_on: null }, n)!;
// Near today: never past 9999-12-31, where the arithmetic answers null (D21's bounds).
const addDays = (date: string, days: number) => addDaysInRange(date, days)!;

/** The year of the next 31 January after today: a first date less than a year away (D19 asks about further ones). */
const HALL_YEAR = TODAY < `${YEAR}-01-31` ? YEAR : YEAR + 1;
/** The year whose 31 January, made to repeat, comes back at the end of a February after today and within a year. */
const GYM_YEAR = TODAY < `${YEAR}-02-28` ? YEAR : YEAR + 1;
/** The rent transaction made to repeat: ten days ago, so that its next month is in Home's 30 days. */
const RENT_ON = addDays(TODAY, -10);
/** The reminder: its first three months fall from 40 days ago to about 20 days ahead. */
const POWER_START = addDays(TODAY, -40);

describe.skipIf(missing !== null && !STRICT_BROWSER)('schedules in chromium (D21)', () => {
  let s: WebSession;
  let page: Page;
  const ids: Record<string, number> = {};
  const call = (method: string, url: string, body?: unknown) => s.call(method, url, body);
  const go = (link: string, heading: string) => s.go(link, heading);
  const noSideways = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  /** Answers the next window.confirm (accepting it or not) and resolves to its question. */
  const answerNext = (accept: boolean) =>
    new Promise<string>((resolve) =>
      page.once('dialog', (dialog) => {
        resolve(dialog.message());
        void (accept ? dialog.accept() : dialog.dismiss());
      }),
    );
  const schedules = async () => (await call('GET', '/schedules')).body as { id: number; description: string; start_on: string; next_on: string | null; mode: string; every: string; entries: { account_id: number; amount_cents: number }[] }[];
  const transactionsOf = async (description: string) =>
    ((await call('GET', `/transactions?q=${encodeURIComponent(description)}`)).body as { occurred_on: string; description: string; entries: { amount_cents: number }[] }[]).filter(
      (t) => t.description === description,
    );

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    mkdirSync(ARTIFACTS, { recursive: true });
    s = await openWebSession({ prefix: 'ledger-web-schedules-', email: EMAIL, password: PASSWORD });
    page = s.page;
    for (const [name, kind] of [['Bank', 'asset'], ['Card', 'liability'], ['Opening', 'equity'], ['Salary', 'income'], ['Rent', 'expense'], ['Power', 'expense'], ['Hall', 'expense']] as const) {
      ids[name] = (await s.post('/accounts', { name, kind })).body.id;
    }
    for (const [on, description, from, to, cents] of [
      [addDays(TODAY, -60), 'Opening the book', 'Opening', 'Bank', 500_000],
      [RENT_ON, 'Flat rent', 'Bank', 'Rent', 85_000],
    ] as const) {
      const entries = [{ account_id: ids[to], amount_cents: cents }, { account_id: ids[from], amount_cents: -cents }];
      expect((await s.post('/transactions', { occurred_on: on, description, entries })).status).toBe(201);
    }
    const reminder = await s.post('/schedules', {
      description: 'Electricity',
      entries: [{ account_id: ids.Power, amount_cents: 6_500 }, { account_id: ids.Bank, amount_cents: -6_500 }],
      start_on: POWER_START,
      every: 'month',
      mode: 'remind',
    });
    expect(reminder.status).toBe(201);
  }, 180_000);

  afterAll(async () => {
    await s?.close();
    if (process.env.UPDATE_SCREENSHOTS) copyFileSync(path.join(ARTIFACTS, 'coming-up.png'), path.join(DOCS, 'coming-up.png'));
  });

  it('at 390 px a monthly rent is made to repeat from its transaction, from its next month on, and is seen in Coming up', async () => {
    await page.setViewportSize(PHONE);
    await go('Transactions', 'Transactions');
    await page.getByRole('button', { name: 'Edit Flat rent', exact: true }).click();
    await page.getByRole('button', { name: 'Repeat…' }).click();
    const form = page.getByRole('form', { name: 'Repeat Flat rent' });
    const next = monthly(RENT_ON, 1);
    expect(await form.getByLabel('Next date').inputValue()).toBe(next);
    await form.getByText(`“Flat rent” of ${shown(RENT_ON)} was the first.`).waitFor();
    const preview = form.locator('.schedule-preview');
    await expect.poll(() => preview.textContent()).toContain(`Next: ${dayShown(next)}, then ${shown(monthly(RENT_ON, 2))}, ${shown(monthly(RENT_ON, 3))}`);
    expect(await form.getByLabel('Post it automatically').isChecked()).toBe(true);
    expect(await noSideways()).toBe(true);
    await form.screenshot({ path: path.join(ARTIFACTS, 'repeat-form.png') });
    await form.getByRole('button', { name: 'Make the schedule' }).click();
    await page.getByRole('status').filter({ hasText: `Made the schedule “Flat rent”: every month, next on ${shown(next)}.` }).waitFor();

    const made = (await schedules()).find((one) => one.description === 'Flat rent')!;
    expect(made).toMatchObject({ every: 'month', mode: 'post', next_on: next });
    expect(made.entries).toEqual([
      expect.objectContaining({ account_id: ids.Rent, amount_cents: 85_000 }),
      expect.objectContaining({ account_id: ids.Bank, amount_cents: -85_000 }),
    ]);
    // The transaction was the first: it is not posted again.
    expect((await transactionsOf('Flat rent')).map((t) => t.occurred_on)).toEqual([RENT_ON]);

    await go('Ledger', 'Home');
    const automatic = page.getByRole('list', { name: 'Will post by itself' });
    await automatic.getByRole('listitem').filter({ hasText: 'Flat rent' }).waitFor();
    expect(await automatic.getByRole('listitem').filter({ hasText: 'Flat rent' }).textContent()).toBe(`${dayShown(next)} — Flat rent: Money out €850.00 from Bank to Rent`);
    expect(await noSideways()).toBe(true);
  });

  it('at 390 px a reminder is posted from Coming up, another skipped, a third posted with another amount (D21)', async () => {
    const [first, second, third] = [0, 1, 2].map((n) => monthly(POWER_START, n)) as [string, string, string];
    const waiting = page.getByRole('list', { name: 'Waiting for you' });
    await waiting.getByRole('listitem').first().waitFor();
    expect(await waiting.getByRole('listitem').count()).toBe(3);
    await page.getByRole('region', { name: 'Coming up' }).screenshot({ path: path.join(ARTIFACTS, 'coming-up.png') });

    await page.getByRole('button', { name: `Post Electricity of ${shown(first)}`, exact: true }).click();
    await page.getByRole('status').filter({ hasText: `Posted “Electricity” of ${shown(first)}.` }).waitFor();
    await page.getByRole('button', { name: `Skip Electricity of ${shown(second)}`, exact: true }).click();
    await page.getByRole('status').filter({ hasText: `Skipped “Electricity” of ${shown(second)}.` }).waitFor();
    await expect.poll(() => waiting.getByRole('listitem').count()).toBe(1);

    await page.getByRole('button', { name: `Post now with another amount: Electricity of ${shown(third)}`, exact: true }).click();
    const other = page.getByRole('form', { name: `Post Electricity of ${shown(third)} with another amount` });
    await other.getByLabel('Amount this time (usually €65.00)').fill('97.30');
    await other.getByText('= €97.30').waitFor();
    await other.getByRole('button', { name: 'Post now' }).click();
    await page.getByRole('status').filter({ hasText: `Posted “Electricity” of ${shown(third)} with €97.30.` }).waitFor();
    await page.getByText('Nothing to decide.').waitFor();
    expect(await noSideways()).toBe(true);

    const posted = await transactionsOf('Electricity');
    expect(posted.map((t) => [t.occurred_on, Math.max(...t.entries.map((e) => e.amount_cents))]).sort()).toEqual([
      [first, 6_500],
      [third, 9_730],
    ]);
    expect((await call('GET', `/schedules/due?through=${addDays(TODAY, 30)}`)).body).toEqual([]);
  });

  it('the preview shows the month’s last day in shorter months (31 Jan → 28/29 Feb → 31 Mar), and the schedule is listed with who made it', async () => {
    await page.setViewportSize(DESKTOP);
    await go('Schedules', 'Schedules');
    await page.getByRole('button', { name: 'Make a schedule' }).click();
    const form = page.getByRole('form', { name: 'New schedule' });
    await form.getByLabel('Description').fill('Hall rent');
    await form.getByLabel('Amount').fill('120');
    await form.getByLabel('Paid from').selectOption({ label: 'Bank' });
    await form.getByLabel('Spent on').selectOption({ label: 'Hall' });
    const start = `${HALL_YEAR}-01-31`;
    await form.getByLabel('First date').fill(start);
    const february = new Date(Date.UTC(HALL_YEAR, 2, 0)).toISOString().slice(0, 10);
    const preview = form.locator('.schedule-preview');
    await expect.poll(() => preview.textContent()).toContain(`Next: ${dayShown(start)}, then ${shown(february)}, ${shown(`${HALL_YEAR}-03-31`)}, ${shown(`${HALL_YEAR}-04-30`)} …`);
    await preview.getByText(`In shorter months: the last day of the month (${shown(february)}).`).waitFor();
    await form.getByLabel('Remind me (post or skip it on Home)').check();
    await form.getByRole('button', { name: 'Make the schedule' }).click();
    await page.getByRole('status').filter({ hasText: `Made the schedule “Hall rent”: every month, next on ${shown(start)}.` }).waitFor();

    const row = page.getByRole('table', { name: 'Every schedule' }).getByRole('row').filter({ hasText: 'Hall rent' });
    await row.waitFor();
    expect((await row.getByRole('cell').allTextContents()).slice(0, 4)).toEqual([
      shown(start),
      'Hall rentMoney out €120.00 from Bank to Hall',
      `Every month from ${shown(start)}; reminds you`,
      EMAIL,
    ]);
    await page.screenshot({ path: path.join(ARTIFACTS, 'schedules.png'), fullPage: true });
    // On a phone the list has no sideways scrolling either.
    await page.setViewportSize(PHONE);
    expect(await noSideways()).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'schedules-phone.png'), fullPage: true });
    await page.setViewportSize(DESKTOP);
  });

  it('a start in the past says how many dates will be posted at once, and asks first: refused, nothing is saved', async () => {
    await page.getByRole('button', { name: 'Make a schedule' }).click();
    const form = page.getByRole('form', { name: 'New schedule' });
    await form.getByLabel('Description').fill('Pocket money');
    await form.getByLabel('Amount').fill('5');
    await form.getByLabel('Paid from').selectOption({ label: 'Bank' });
    await form.getByLabel('Spent on').selectOption({ label: 'Hall' });
    await form.getByLabel('Weeks, months or years').selectOption('week');
    const start = addDays(TODAY, -14);
    await form.getByLabel('First date').fill(start);
    await form.locator('.schedule-preview').getByText(`3 dates are today or already past (${shown(start)}, ${shown(addDays(start, 7))} and ${shown(TODAY)}): all 3 will be posted at once when you save.`).waitFor();
    const asked = answerNext(false);
    await form.getByRole('button', { name: 'Make the schedule' }).click();
    expect(await asked).toBe(`3 dates, from ${shown(start)} to ${shown(TODAY)}, are today or already past: all 3 will be posted at once. Save the schedule?`);
    await form.getByRole('alert').filter({ hasText: 'Not saved: nothing was posted.' }).waitFor();
    expect((await schedules()).map((one) => one.description)).not.toContain('Pocket money');
    await form.getByRole('button', { name: 'Cancel' }).click();
  });

  it('issue 37 item 4: the promise "all 3 will be posted at once" holds — accepted, the 3 dates are in the Transactions list right after saving, without waiting for the background run (D21)', async () => {
    await go('Schedules', 'Schedules');
    await page.getByRole('button', { name: 'Make a schedule' }).click();
    const form = page.getByRole('form', { name: 'New schedule' });
    await form.getByLabel('Description').fill('Allowance');
    await form.getByLabel('Amount').fill('5');
    // From the card: the bank's forecast below stays the family's.
    await form.getByLabel('Paid from').selectOption({ label: 'Card' });
    await form.getByLabel('Spent on').selectOption({ label: 'Hall' });
    await form.getByLabel('Weeks, months or years').selectOption('week');
    const start = addDays(TODAY, -14);
    const dates = [start, addDays(start, 7), TODAY];
    await form.getByLabel('First date').fill(start);
    await form.locator('.schedule-preview').getByText(`3 dates are today or already past (${shown(start)}, ${shown(dates[1]!)} and ${shown(TODAY)}): all 3 will be posted at once when you save.`).waitFor();
    const asked = answerNext(true);
    await form.getByRole('button', { name: 'Make the schedule' }).click();
    expect(await asked).toBe(`3 dates, from ${shown(start)} to ${shown(TODAY)}, are today or already past: all 3 will be posted at once. Save the schedule?`);
    await page.getByRole('status').filter({ hasText: `Made the schedule “Allowance”: every week, next on ${shown(addDays(TODAY, 7))}.` }).waitFor();
    // The background run is minutes away: the three are there because saving posted them.
    expect((await transactionsOf('Allowance')).map((t) => t.occurred_on).sort()).toEqual(dates);
    await go('Transactions', 'Transactions');
    await expect.poll(() => page.getByRole('button', { name: 'Edit Allowance', exact: true }).count(), { timeout: 5_000 }).toBe(3);
    const allowance = (await schedules()).find((one) => one.description === 'Allowance')!;
    expect(allowance).toMatchObject({ mode: 'post', next_on: addDays(TODAY, 7) });
    expect((await call('DELETE', `/schedules/${allowance.id}`)).status).toBe(204);
    await go('Schedules', 'Schedules');
  });

  it('D21 bounds: a start with more than 1,000 dates due says "more than 1,000" before saving, and nothing is sent (the server would refuse it)', async () => {
    await go('Schedules', 'Schedules');
    await page.getByRole('button', { name: 'Make a schedule' }).click();
    const form = page.getByRole('form', { name: 'New schedule' });
    await form.getByLabel('Description').fill('Ancient dues');
    await form.getByLabel('Amount').fill('1');
    await form.getByLabel('Paid from').selectOption({ label: 'Bank' });
    await form.getByLabel('Spent on').selectOption({ label: 'Hall' });
    await form.getByLabel('Weeks, months or years').selectOption('week');
    // 1,001 weekly dates through today.
    const start = addDays(TODAY, -7 * 1000);
    await form.getByLabel('First date').fill(start);
    const tooMany = `More than 1,000 dates, from ${shown(start)} on, are today or already past: a schedule that posts itself may post at most 1,000 at once. Choose a later first date, an end (“Until”), or “Remind me”.`;
    await form.locator('.schedule-preview').getByText(tooMany).waitFor();
    expect(await form.locator('.schedule-preview').textContent()).not.toContain('will be posted at once');
    // Neither the far-date question (D19) nor the posting one: the answer would not matter.
    let asked = false;
    const ask = (dialog: { dismiss(): Promise<void> }) => {
      asked = true;
      void dialog.dismiss();
    };
    page.on('dialog', ask);
    const sent: string[] = [];
    const seen = (request: { method(): string; url(): string }) => void (request.method() !== 'GET' && sent.push(`${request.method()} ${request.url()}`));
    page.on('request', seen);
    try {
      await form.getByRole('button', { name: 'Make the schedule' }).click();
      await form.getByRole('alert').filter({ hasText: `Not saved: ${tooMany}` }).waitFor();
    } finally {
      page.off('dialog', ask);
      page.off('request', seen);
    }
    expect(asked).toBe(false);
    expect(sent).toEqual([]);
    expect((await schedules()).map((one) => one.description)).not.toContain('Ancient dues');
    // Made a reminder, it says the dates wait instead, and saves.
    await form.getByLabel('Remind me (post or skip it on Home)').check();
    await form.locator('.schedule-preview').getByText(`More than 1,000 dates, from ${shown(start)} on, are today or already past: they wait on Home for you to post or skip.`).waitFor();
    await form.getByRole('button', { name: 'Cancel' }).click();
  });

  it('a schedule is changed (PUT) and deleted (asked first) on the Schedules page', async () => {
    await page.getByRole('button', { name: 'Edit the schedule Hall rent' }).click();
    const form = page.getByRole('form', { name: 'Edit the schedule Hall rent' });
    await form.getByLabel('Amount').fill('130');
    await form.getByRole('button', { name: 'Save the schedule' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved the schedule “Hall rent”' }).waitFor();
    const hall = (await schedules()).find((one) => one.description === 'Hall rent')!;
    expect(hall.entries.map((e) => e.amount_cents)).toEqual([13_000, -13_000]);

    const asked = answerNext(true);
    await page.getByRole('button', { name: 'Delete the schedule Hall rent' }).click();
    expect(await asked).toBe('Delete the schedule “Hall rent”? What it posted stays in the books.');
    await page.getByRole('status').filter({ hasText: 'Deleted the schedule “Hall rent”.' }).waitFor();
    expect((await schedules()).map((one) => one.description)).not.toContain('Hall rent');
  });

  it('at 390 px Reports shows the forecast of the bank as a dashed line, and in words', async () => {
    await page.setViewportSize(PHONE);
    await go('Reports', 'Reports');
    const section = page.getByRole('region', { name: 'Forecast' });
    const words = section.getByRole('list', { name: 'Forecast in words' });
    await words.getByRole('listitem').first().waitFor({ state: 'attached' });
    const bank = (await words.getByRole('listitem').allTextContents()).find((line) => line.startsWith('Bank:'))!;
    // Opening 5,000 − rent 850 − electricity 65 = 4,085.00 today (the 97.30 is dated ahead, with
    // its reminder); the rent's next month takes 850.
    expect(bank.startsWith(`Bank: €4,085.00 today, €3,235.00 on ${shown(monthly(RENT_ON, 1))}, `), bank).toBe(true);
    expect(await section.locator('svg.chart path.forecast-line').count()).toBe(2);
    await section.screenshot({ path: path.join(ARTIFACTS, 'forecast.png') });
    expect(await section.locator('svg.chart path.forecast-line').first().getAttribute('stroke-dasharray')).toBe('6 4');
    expect(await noSideways()).toBe(true);
  });

  it('History says which schedule posted a transaction, or that it was deleted since (records with via "schedule")', async () => {
    await page.setViewportSize(DESKTOP);
    const rent = (await schedules()).find((one) => one.description === 'Flat rent')!;
    // The server posts a post schedule's dates when it starts and every 10 minutes: here the
    // records it would write are added to the page's answer, one of an existing schedule and
    // one of a schedule deleted since.
    await page.route(`${s.api}/changes*`, async (route) => {
      const answer = await route.fetch();
      const body = (await answer.json()) as { changes: Record<string, unknown>[] };
      const posted = body.changes.find((c) => c.subject === 'transaction' && c.action === 'create')!;
      body.changes.unshift(
        { ...posted, id: 100_001, via: 'schedule', client_id: null, schedule_id: rent.id },
        { ...posted, id: 100_002, via: 'schedule', client_id: null, schedule_id: 999_999 },
      );
      await route.fulfill({ response: answer, json: body });
    });
    try {
      await go('History', 'History');
      const items = page.getByRole('listitem');
      await items.first().waitFor();
      const texts = await items.allTextContents();
      expect(texts[0]).toMatch(/, posted by the schedule “Flat rent”\.$/);
      expect(texts[1]).toMatch(/, posted by a schedule since deleted\.$/);
      // The Post on Home was the person's own, from the web app, and names its schedule (issue 37 item 6).
      expect(texts.some((t) => /^You posted “Electricity” \(€65\.00\) of .* from the schedule “Electricity” on .*, from the web app\.$/.test(t)), JSON.stringify(texts)).toBe(true);
      expect(texts.some((t) => /^You made the schedule “Flat rent” \(€850\.00, every month\) on .*, from the web app\.$/.test(t))).toBe(true);
    } finally {
      await page.unroute(`${s.api}/changes*`);
    }
  });

  it('every submit of the new forms is disabled while it is sent: a double click makes one schedule', async () => {
    await go('Schedules', 'Schedules');
    await page.getByRole('button', { name: 'Make a schedule' }).click();
    const form = page.getByRole('form', { name: 'New schedule' });
    await form.getByLabel('Description').fill('Club dues');
    await form.getByLabel('Amount').fill('30');
    await form.getByLabel('Paid from').selectOption({ label: 'Bank' });
    await form.getByLabel('Spent on').selectOption({ label: 'Hall' });
    await form.getByLabel('First date').fill(addDays(TODAY, 5));
    await form.getByRole('button', { name: 'Make the schedule' }).dblclick();
    await page.getByRole('status').filter({ hasText: 'Made the schedule “Club dues”' }).waitFor();
    expect((await schedules()).filter((one) => one.description === 'Club dues')).toHaveLength(1);
  });

  it('a blocked date says why on Home: Post is not offered, Skip is (an account the schedule names was deleted)', async () => {
    const club = (await s.post('/accounts', { name: 'Tennis club', kind: 'expense' })).body.id as number;
    const made = await s.post('/schedules', {
      description: 'Tennis',
      entries: [{ account_id: club, amount_cents: 2_500 }, { account_id: ids.Bank, amount_cents: -2_500 }],
      start_on: addDays(TODAY, 3),
      until_on: addDays(TODAY, 3),
      every: 'month',
      mode: 'remind',
    });
    expect(made.status).toBe(201);
    expect((await call('DELETE', `/accounts/${club}`)).status).toBe(204);
    await go('Ledger', 'Home');
    const item = page.getByRole('list', { name: 'Waiting for you' }).getByRole('listitem').filter({ hasText: 'Tennis' });
    await item.getByText('Cannot be posted: the account "Tennis club" no longer exists.').waitFor();
    const name = `Tennis of ${shown(addDays(TODAY, 3))}`;
    expect(await item.getByRole('button', { name: `Post ${name}`, exact: true }).isDisabled()).toBe(true);
    expect(await item.getByRole('button', { name: /^Post now with another amount/ }).count()).toBe(0);
    await item.getByRole('button', { name: `Skip ${name}`, exact: true }).click();
    await page.getByRole('status').filter({ hasText: `Skipped “Tennis” of ${shown(addDays(TODAY, 3))}.` }).waitFor();
    await expect.poll(() => item.count()).toBe(0);
  });

  it('a month-end transaction made to repeat keeps its day: 31 Jan → 28/29 Feb → 31 Mar, and the transaction is not posted again', async () => {
    const paid = `${GYM_YEAR}-01-31`;
    const gym = [{ account_id: ids.Hall, amount_cents: 4_000 }, { account_id: ids.Card, amount_cents: -4_000 }];
    expect((await s.post('/transactions', { occurred_on: paid, description: 'Gym', entries: gym })).status).toBe(201);
    await go('Transactions', 'Transactions');
    await page.getByRole('button', { name: 'Edit Gym', exact: true }).click();
    await page.getByRole('button', { name: 'Repeat…' }).click();
    const form = page.getByRole('form', { name: 'Repeat Gym' });
    const february = new Date(Date.UTC(GYM_YEAR, 2, 0)).toISOString().slice(0, 10);
    expect(await form.getByLabel('Next date').inputValue()).toBe(february);
    const preview = form.locator('.schedule-preview');
    await expect.poll(() => preview.textContent()).toContain(`Next: ${dayShown(february)}, then ${shown(`${GYM_YEAR}-03-31`)}, ${shown(`${GYM_YEAR}-04-30`)}, ${shown(`${GYM_YEAR}-05-31`)} …`);
    await preview.getByText(`In shorter months: the last day of the month (${shown(february)}).`).waitFor();
    await form.getByRole('button', { name: 'Make the schedule' }).click();
    await page.getByRole('status').filter({ hasText: `Made the schedule “Gym”: every month, next on ${shown(february)}.` }).waitFor();
    expect((await schedules()).find((one) => one.description === 'Gym')).toMatchObject({ start_on: paid, next_on: february, mode: 'post' });
    expect((await transactionsOf('Gym')).map((t) => t.occurred_on)).toEqual([paid]);
    expect(s.faults).toEqual([]);
    expect(s.violations).toEqual([]);
  });
});
