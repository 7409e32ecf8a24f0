import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { englishOnScreen } from './support/i18n-walk';
import { addMonths, expectReportFigures, FIGURES, FIRST, LAST, makePlanBook, monthShown, pdfPages, THIS_MONTH, TODAY } from './support/plan-book';
import { message, missingBrowserPrerequisite, openWebSession, STRICT_BROWSER, type WebSession } from './support/web-session';

// Issue 39 (D26) with D29 and D12 in chromium, a browser in de-DE: "Plan und Wirklichkeit" of a
// family's budget and, once the book is a club's, "Plan und Ergebnis" of its Haushaltsplan: the
// lines in German words equal to the hand-computed figures (tests/support/plan-book.ts) at
// 1,100 px and 390 px, German money and months, the print ("Haushaltsplan 2026 – Plan und
// Ergebnis", "Gedruckt am …", one A4 page, no navigation), Home's card in German, and no English
// sentence of the planAndReality, common or nav catalogue on any of them.

const ARTIFACTS = path.resolve('test-artifacts/web-german-plan-and-reality');
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1100, height: 900 };
const YEAR = THIS_MONTH.slice(0, 4);
const NAMES = { bank: 'Girokonto', opening: 'Eröffnung', salary: 'Gehalt', groceries: 'Lebensmittel', eatingOut: 'Essen gehen', insurance: 'Versicherung', fun: 'Freizeit' };
const SECTIONS = ['planAndReality', 'common', 'nav'];

const missing = missingBrowserPrerequisite();
if (missing && !STRICT_BROWSER) console.warn(`web-german-plan-and-reality.test.ts skipped: ${missing}`);

/** Money as the German app shows it ("1.234,56 €"). */
const geld = (cents: number) => new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(cents / 100);
/** A date as the German app shows it ("27. November 2026"). */
const shown = (isoDate: string) => new Date(`${isoDate}T00:00:00Z`).toLocaleDateString('de-DE', { timeZone: 'UTC', dateStyle: 'long' });
/** Intl's no-break spaces compared as plain spaces. */
const plain = (text: string | null | undefined) => (text ?? '').replace(/\s+/g, ' ').trim();
const de = (key: string) => message('de', key);

/** The lines in German, computed by hand; the period line "im ganzen Budget" or "im ganzen Haushaltsplan" (D12). */
const SÄTZE = (whole: string) =>
  [
    `Gehalt: ${geld(FIGURES.salary.month)} von ${geld(FIGURES.salary.planned)} in diesem Monat, ${geld(FIGURES.salary.left)} stehen noch aus`,
    `Lebensmittel: ${geld(FIGURES.groceries.month)} von ${geld(FIGURES.groceries.planned)} in diesem Monat, ${geld(FIGURES.groceries.left)} übrig, davon ${geld(FIGURES.groceries.carried)} aus ${monthShown(FIRST, 'de-DE')} bis ${monthShown(addMonths(THIS_MONTH, -1), 'de-DE')}`,
    `Essen gehen: ${geld(FIGURES.eatingOut.month)} von ${geld(FIGURES.eatingOut.planned)} in diesem Monat, ${geld(FIGURES.eatingOut.over)} darüber`,
    `Versicherung: ${geld(FIGURES.insurance.actual)} von ${geld(FIGURES.insurance.planned)} ${whole}, ${geld(FIGURES.insurance.left)} übrig`,
  ].map(plain);

describe.skipIf(missing !== null && !STRICT_BROWSER)('issue 39 (D26, D29): Plan und Wirklichkeit, Haushaltsplan, print and Home’s card in German, in chromium (de-DE)', () => {
  let s: WebSession;
  let page: Page;
  let budgetId = 0;
  const noSideways = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  const noEnglish = async () => expect(await englishOnScreen(page, SECTIONS)).toEqual([]);
  const sentences = async () => (await page.locator('.plan-and-reality .plan-lines li').allTextContents()).map(plain);
  const openReport = async (heading: string) => {
    await page.goto(`${s.web}/budgets/report?id=${budgetId}`);
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
    await page.locator('.plan-lines li').first().waitFor();
  };
  const openHome = async () => {
    await page.goto(s.web);
    await page.getByRole('heading', { name: de('home.title'), level: 1 }).waitFor();
    await page.locator('.budget-card').waitFor();
  };
  /** The print: no navigation, no buttons, the title and the date printed; ONE A4 page. */
  const expectPrint = async (title: string, file: string) => {
    await page.emulateMedia({ media: 'print' });
    try {
      expect(await page.getByRole('navigation', { name: de('nav.main') }).isVisible()).toBe(false);
      for (const button of await page.getByRole('button').all()) expect(await button.isVisible()).toBe(false);
      expect(plain(await page.locator('.print-title').textContent())).toBe(title);
      expect(await page.locator('.print-title').isVisible()).toBe(true);
      expect(await page.getByText(`Gedruckt am ${shown(TODAY)}`, { exact: true }).isVisible()).toBe(true);
      await noEnglish();
    } finally {
      await page.emulateMedia({ media: null });
    }
    const pdf = await page.pdf({ format: 'A4' });
    writeFileSync(path.join(ARTIFACTS, file), pdf);
    expect(pdfPages(pdf)).toBe(1);
  };

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    mkdirSync(ARTIFACTS, { recursive: true });
    s = await openWebSession({ prefix: 'ledger-web-german-plan-', email: 'familie@example.com', password: 'ein Passwort der Familie', locale: 'de-DE' });
    page = s.page;
    expect(s.language).toBe('de');
    const made = await makePlanBook(s, NAMES, YEAR);
    budgetId = made.budgetId;
    await expectReportFigures(s, budgetId, made.ids);
  }, 180_000);

  afterAll(async () => {
    await s?.close();
  });

  it('D29: "Plan und Wirklichkeit" at 1,100 px and 390 px: the lines in German with German money and months, "Nicht im Budget", the table, no English', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      await openReport('Plan und Wirklichkeit');
      expect(await sentences()).toEqual(SÄTZE('im ganzen Budget'));
      expect(plain(await page.locator('.unplanned').textContent())).toBe(plain(`Nicht im Budget: Freizeit ${geld(FIGURES.fun.actual)}`));
      expect(plain(await page.locator('.plan-name').textContent())).toBe(`${YEAR} ${monthShown(FIRST, 'de-DE', true)} bis ${monthShown(LAST, 'de-DE', true)}, Stand: ${shown(TODAY)}`);
      const table = page.getByRole('table', { name: 'Das ganze Budget' });
      expect(await table.getByRole('columnheader').allTextContents()).toEqual(['Konto', 'Soll', 'Ist', 'Abweichung']);
      expect(plain(await table.getByRole('row', { name: /^Ergebnis/ }).textContent())).toBe(
        plain(`Ergebnis (Einnahmen − Ausgaben)${geld(FIGURES.result.planned)}${geld(FIGURES.result.actual)}${geld(FIGURES.result.actual - FIGURES.result.planned)}`),
      );
      expect(plain(await table.getByRole('row', { name: /^Freizeit/ }).textContent())).toBe(plain(`Freizeitnicht geplant${geld(FIGURES.fun.actual)}${geld(FIGURES.fun.actual)}`));
      await page.getByRole('button', { name: 'Drucken' }).waitFor();
      expect(await noSideways(), `keine Querlaufleiste bei ${viewport.width} px`).toBe(true);
      // The whole budget's table fits the phone too: nothing of it hides behind its own scrolling.
      expect(await table.evaluate((t) => t.parentElement!.scrollWidth <= t.parentElement!.clientWidth + 1)).toBe(true);
      await noEnglish();
      await page.screenshot({ path: path.join(ARTIFACTS, `bericht-${viewport.width}.png`), fullPage: true });
    }
    await page.setViewportSize(DESKTOP);
    await expectPrint(`Budget ${YEAR} – Plan und Wirklichkeit`, 'budget.pdf');
  });

  it('D29: Home’s card in German, this month’s figures, leading to the report', async () => {
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      await openHome();
      const card = page.locator('.budget-card');
      expect(plain(await card.getByRole('heading').textContent())).toBe(`Budget ${YEAR} in diesem Monat`);
      expect(plain(await card.locator('.budget-card-total').textContent())).toBe(plain(`Bisher ausgegeben: ${geld(FIGURES.card.spent)} von ${geld(FIGURES.card.planned)}`));
      expect((await card.locator('.plan-lines li').allTextContents()).map(plain)).toEqual([SÄTZE('')[1], SÄTZE('')[2]]);
      expect(await noSideways()).toBe(true);
      await noEnglish();
    }
    await page.setViewportSize(DESKTOP);
    await page.locator('.budget-card').getByRole('link', { name: 'Plan und Wirklichkeit ansehen' }).click();
    await page.getByRole('heading', { name: 'Plan und Wirklichkeit', level: 1 }).waitFor();
    await page.locator('.plan-lines li').first().waitFor();
    expect(await sentences()).toEqual(SÄTZE('im ganzen Budget'));
  });

  it('D12, D29: a club’s book says Haushaltsplan: "Plan und Ergebnis", "Nicht im Haushaltsplan", the print "Haushaltsplan 2026 – Plan und Ergebnis" on one A4 page, the card', async () => {
    expect((await s.call('PUT', '/settings', { book_style: 'club' })).status).toBe(200);
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      await openReport('Plan und Ergebnis');
      expect(await sentences()).toEqual(SÄTZE('im ganzen Haushaltsplan'));
      expect(plain(await page.locator('.unplanned').textContent())).toBe(plain(`Nicht im Haushaltsplan: Freizeit ${geld(FIGURES.fun.actual)}`));
      await page.getByRole('table', { name: 'Der ganze Haushaltsplan' }).waitFor();
      await page.getByRole('link', { name: 'Andere Haushaltspläne' }).waitFor();
      expect(await noSideways()).toBe(true);
      await noEnglish();
    }
    await page.setViewportSize(DESKTOP);
    await expectPrint(`Haushaltsplan ${YEAR} – Plan und Ergebnis`, 'haushaltsplan.pdf');

    await openHome();
    expect(plain(await page.locator('.budget-card').getByRole('heading').textContent())).toBe(`Haushaltsplan ${YEAR} in diesem Monat`);
    expect(plain(await page.locator('.budget-card .budget-card-total').textContent())).toBe(plain(`Bisher ausgezahlt: ${geld(FIGURES.card.spent)} von ${geld(FIGURES.card.planned)}`));
    await noEnglish();

    // Without an id: the Haushaltspläne to choose from.
    await page.goto(`${s.web}/budgets/report`);
    await page.getByRole('heading', { name: 'Haushaltsplan wählen' }).waitFor();
    await page.getByRole('link', { name: YEAR, exact: true }).waitFor();
    await noEnglish();
  });
});
