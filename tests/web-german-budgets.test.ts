import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { englishOnScreen } from './support/i18n-walk';
import { message, missingBrowserPrerequisite, openWebSession, STRICT_BROWSER, type WebSession } from './support/web-session';

// Issue 39 item 1 (D26, D29, D19, D12) in chromium with German chosen: the Budgets page at 1,100
// and 390 px. A budget made from last year's figures, its rent typed "450,00" a month with
// rollover, stored to the cent (GET /budgets/{id}); changed with "1.234,56" (PUT) and deleted; a
// bad amount ("12,345") refused in German and nothing saved; no sideways scrolling at 390 px; a
// club's book says "Haushaltsplan". On each screen, no English sentence of the catalogues shown.

const EMAIL = 'kassenwart@example.com';
const PASSWORD = 'ein Passwort der Kasse';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1100, height: 900 };
const SECTIONS = ['budgets', 'common', 'nav', 'transactions', 'vocabulary'];
const de = (key: string) => message('de', key);
const ROLLOVER = de('budgets.form.rollover');

const missing = missingBrowserPrerequisite();
if (missing && !STRICT_BROWSER) console.warn(`web-german-budgets.test.ts skipped: ${missing}`);

/** Today where the browser is (Europe/Berlin), as the web app counts it. */
const TODAY = new Date().toLocaleDateString('en-CA', { timeZone: 'Europe/Berlin' });
/** The page's default months: next calendar year from October on, else this one. */
const YEAR = Number(TODAY.slice(0, 4)) + (Number(TODAY.slice(5, 7)) >= 10 ? 1 : 0);
const FROM = `${YEAR}-01`;
const TO = `${YEAR}-12`;
const BASIS = YEAR - 1;
/** Money as the German page shows it ("1.646,90 €"), and as an amount field holds it ("4.000,00"). */
const euro = (cents: number) => new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(cents / 100);
const typed = (cents: number) => new Intl.NumberFormat('de-DE', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(cents / 100);

type StoredLine = { account_id: number; account_name: string; amount_cents: number; per: 'month' | 'period'; rollover: boolean };
type Stored = { id: number; name: string; from: string; to: string; lines: StoredLine[] };

describe.skipIf(missing !== null && !STRICT_BROWSER)('issue 39 (D26, D29): the Budgets page in German, in chromium', () => {
  let s: WebSession;
  let page: Page;
  const ids: Record<string, number> = {};
  let draft: StoredLine[] = [];
  const made: Record<string, number> = {};
  const noEnglish = async () => expect(await englishOnScreen(page, SECTIONS)).toEqual([]);
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
  const lineOf = (form: Locator, account: string) => form.getByRole('group', { name: new RegExp(`^Posten \\d+: ${account}$`) });
  const numberOf = async (line: Locator) => Number((await line.locator('legend').textContent())!.match(/^Posten (\d+)/)![1]);
  const openBudgets = async () => {
    await page.goto(`${s.web}/budgets`);
    await page.getByRole('heading', { name: 'Budgets', level: 1 }).waitFor();
  };

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    s = await openWebSession({ prefix: 'ledger-web-german-budgets-', email: EMAIL, password: PASSWORD, language: 'de' });
    page = s.page;
    expect(s.language).toBe('de');
    for (const [name, kind] of [['Girokonto', 'asset'], ['Eröffnung', 'equity'], ['Gehalt', 'income'], ['Miete', 'expense'], ['Lebensmittel', 'expense']] as const) {
      ids[name] = (await s.post('/accounts', { name, kind })).body.id;
    }
    for (const [on, description, from, to, cents] of [
      [`${BASIS}-01-02`, 'Eröffnung', 'Eröffnung', 'Girokonto', 1_000_000],
      [`${BASIS}-03-15`, 'Gehalt März', 'Gehalt', 'Girokonto', 200_000],
      [`${BASIS}-04-15`, 'Gehalt April', 'Gehalt', 'Girokonto', 200_000],
      [`${BASIS}-04-01`, 'Miete', 'Girokonto', 'Miete', 85_000],
      [`${BASIS}-05-03`, 'Einkauf', 'Girokonto', 'Lebensmittel', 12_345],
      [`${BASIS}-06-07`, 'Einkauf', 'Girokonto', 'Lebensmittel', 12_345],
    ] as const) {
      const entries = [{ account_id: ids[to], amount_cents: cents }, { account_id: ids[from], amount_cents: -cents }];
      expect((await s.post('/transactions', { occurred_on: on, description, entries })).status).toBe(201);
    }
    draft = ((await s.call('GET', `/budgets/draft?from=${FROM}&to=${TO}`)).body as Stored).lines;
    expect(draft.map((l) => [l.account_name, l.amount_cents]).sort()).toEqual([
      ['Gehalt', 400_000],
      ['Lebensmittel', 24_690],
      ['Miete', 85_000],
    ]);
  }, 180_000);

  afterAll(async () => {
    await s?.close();
  });

  /** A budget made from last year's figures, its rent typed "450,00" a month with rollover. */
  async function makeFromDraft(name: string) {
    await page.getByRole('button', { name: 'Neues Budget', exact: true }).click();
    const form = page.getByRole('form', { name: 'Ein neues Budget' });
    expect(await form.getByLabel('Erster Monat').inputValue()).toBe(FROM);
    expect(await form.getByLabel('Letzter Monat').inputValue()).toBe(TO);
    await form.getByText(`Wenn Sie keine anderen Daten wählen: 1. Januar ${BASIS} bis 31. Dezember ${BASIS}, die 12 Monate vor dem ersten Monat.`).waitFor();
    await noEnglish();
    await form.getByLabel('Name').fill(name);
    await form.getByRole('button', { name: 'Mit den Zahlen des Vorjahres beginnen' }).click();
    await form.getByText(`3 Posten mit den Summen vom 1. Januar ${BASIS} bis zum 31. Dezember ${BASIS} ausgefüllt.`).waitFor();
    for (const [i, line] of draft.entries()) {
      const group = form.getByRole('group', { name: `Posten ${i + 1}: ${line.account_name}`, exact: true });
      expect(await group.getByLabel('Betrag', { exact: true }).inputValue()).toBe(typed(line.amount_cents));
      expect(await group.getByLabel('Wie oft').locator('option:checked').textContent()).toBe('einmal, für das ganze Budget');
    }
    const totals = form.locator('.budget-totals');
    await expect.poll(() => totals.innerText()).toBe(`Über 12 Monate:\nGeplante Einnahmen: ${euro(400_000)}\nGeplante Ausgaben: ${euro(109_690)}\nErgebnis: ${euro(290_310)}`);

    const rent = lineOf(form, 'Miete');
    await rent.getByLabel('Wie oft').selectOption({ label: 'im Monat' });
    await rent.getByLabel('Betrag', { exact: true }).fill('450,00');
    await rent.getByText(`= ${euro(45_000)}`).waitFor();
    await rent.getByLabel(ROLLOVER).check();
    await expect.poll(() => totals.innerText()).toBe(`Über 12 Monate:\nGeplante Einnahmen: ${euro(400_000)}\nGeplante Ausgaben: ${euro(564_690)}\nErgebnis: ${euro(-164_690)}`);
    await noEnglish();
    if (page.viewportSize()!.width === PHONE.width) expect(await noSideways()).toBe(true);
    await form.getByRole('button', { name: 'Budget anlegen' }).click();
    await page.getByRole('status').filter({ hasText: `Das Budget „${name}“ ist angelegt.` }).waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe(`Das Budget „${name}“ ist angelegt.`);

    const budget = ((await s.call('GET', '/budgets')).body as Stored[]).find((b) => b.name === name)!;
    made[name] = budget.id;
    expect(linesOf((await stored(budget.id)).body)).toEqual(
      draft.map((l) => ({ account_id: l.account_id, amount_cents: l.account_name === 'Miete' ? 45_000 : l.amount_cents, per: l.account_name === 'Miete' ? 'month' : 'period', rollover: l.account_name === 'Miete' })),
    );
    const row = page.getByRole('table', { name: 'Alle Budgets' }).getByRole('row').filter({ hasText: name });
    expect((await row.getByRole('cell').allTextContents()).slice(0, 2)).toEqual([`${name}3 Posten`, `Januar ${YEAR} – Dezember ${YEAR}`]);
    expect(await row.getByRole('link', { name: `Plan und Ist von ${name}` }).getAttribute('href')).toBe(`/budgets/report?id=${budget.id}`);
    await noEnglish();
  }

  it('at 1,100 px: a budget from last year’s figures, its rent typed "450,00" a month with rollover, stored to the cent; all in German', async () => {
    await page.setViewportSize(DESKTOP);
    await s.go('Budgets', 'Budgets');
    expect(await page.title()).toBe('Budgets — Ledger');
    await page.getByText('Noch kein Budget.').waitFor();
    await noEnglish();
    await makeFromDraft('Haushalt');
  });

  it('at 390 px: the same, with no sideways scrolling', async () => {
    await page.setViewportSize(PHONE);
    await openBudgets();
    await makeFromDraft('Haushalt unterwegs');
    expect(await noSideways()).toBe(true);
    await page.setViewportSize(DESKTOP);
  });

  it('changed (PUT) with "1.234,56"; a bad amount "12,345" is refused in German and nothing is saved', async () => {
    await openBudgets();
    await page.getByRole('button', { name: 'Haushalt ändern', exact: true }).click();
    const form = page.getByRole('form', { name: 'Haushalt ändern', exact: true });
    await page.getByRole('heading', { name: '„Haushalt“ ändern' }).waitFor();
    const food = lineOf(form, 'Lebensmittel');
    await food.getByLabel('Betrag', { exact: true }).fill('1.234,56');
    await food.getByText(`= ${euro(123_456)}`).waitFor();
    await form.getByRole('button', { name: 'Änderungen speichern' }).click();
    await page.getByRole('status').filter({ hasText: 'Das Budget „Haushalt“ ist gespeichert.' }).waitFor();
    const saved = (await stored(made.Haushalt!)).body;
    expect(linesOf(saved).find((l) => l.account_id === ids.Lebensmittel)).toEqual({ account_id: ids.Lebensmittel, amount_cents: 123_456, per: 'period', rollover: false });
    expect(linesOf(saved).find((l) => l.account_id === ids.Miete)).toEqual({ account_id: ids.Miete, amount_cents: 45_000, per: 'month', rollover: true });
    await noEnglish();

    await page.getByRole('button', { name: 'Haushalt ändern', exact: true }).click();
    const again = page.getByRole('form', { name: 'Haushalt ändern', exact: true });
    const line = lineOf(again, 'Lebensmittel');
    await line.getByLabel('Betrag', { exact: true }).fill('12,345');
    const refusal = de('common.amount.tooManyDecimals').replace('{{typed}}', '12,345').replace('{{example}}', '1.234,56');
    await line.getByText(refusal).waitFor();
    await again.getByRole('button', { name: 'Änderungen speichern' }).click();
    await again.getByRole('alert').filter({ hasText: `Posten ${await numberOf(line)}: ${refusal}` }).waitFor();
    expect((await stored(made.Haushalt!)).body).toEqual(saved);
    await noEnglish();
    await again.getByRole('button', { name: 'Abbrechen' }).click();
  });

  it('deleted, asked first in German', async () => {
    const asked = answerNext(true);
    await page.getByRole('button', { name: 'Haushalt unterwegs löschen' }).click();
    expect(await asked).toBe('Das Budget „Haushalt unterwegs“ löschen? Ihre Buchungen bleiben, wie sie sind.');
    await page.getByRole('status').filter({ hasText: 'Das Budget „Haushalt unterwegs“ ist gelöscht.' }).waitFor();
    expect((await stored(made['Haushalt unterwegs']!)).status).toBe(404);
    await noEnglish();
  });

  it('D12, D29: a club’s book says "Haushaltsplan": the header link, the heading, the new plan and its lines', async () => {
    expect((await s.call('PUT', '/settings', { book_style: 'club' })).status).toBe(200);
    try {
      await page.goto(`${s.web}/budgets`);
      await page.getByRole('heading', { name: 'Haushaltspläne', level: 1 }).waitFor();
      await page.getByRole('navigation', { name: de('nav.main') }).getByRole('link', { name: 'Haushaltsplan', exact: true }).waitFor();
      await page.getByRole('heading', { name: 'Alle Haushaltspläne' }).waitFor();
      await page.getByRole('button', { name: 'Neuer Haushaltsplan', exact: true }).click();
      const form = page.getByRole('form', { name: 'Ein neuer Haushaltsplan' });
      await form.getByRole('button', { name: 'Posten hinzufügen' }).click();
      expect(await form.getByRole('group', { name: 'Posten 1' }).getByLabel('Wie oft').locator('option').allTextContents()).toEqual(['im Monat', 'einmal, für den ganzen Haushaltsplan']);
      await form.getByRole('button', { name: 'Haushaltsplan aufstellen' }).click();
      await form.getByRole('alert').filter({ hasText: 'Geben Sie dem Haushaltsplan einen Namen.' }).waitFor();
      expect(await page.locator('main').innerText()).not.toMatch(/Budget/);
      await noEnglish();
    } finally {
      expect((await s.call('PUT', '/settings', { book_style: 'personal' })).status).toBe(200);
    }
  });
});
