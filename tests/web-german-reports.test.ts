import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { englishOnScreen } from './support/i18n-walk';
import { message, missingBrowserPrerequisite, openWebSession, STRICT_BROWSER, type WebSession } from './support/web-session';

// Issue 38 (D29) for Reconcile and Reports, in chromium in a German browser (de-DE) against
// `ledger serve` on the embedded database, a club's book (D12) with a bank and a card account: the
// Reconcile page (a difference, then agreeing, then reconciled), the register with its ✓ and the
// undo asked in German, Reports with a custom period, the forecast, and the annual report on screen
// and as printed — German sentences on each, German dates and money, and no sentence of the English
// catalogue's reconcile, reports, common or nav sections anywhere.

const PASSWORD = 'ein Passwort des Kassenwarts';
const missing = missingBrowserPrerequisite();
if (missing && !STRICT_BROWSER) console.warn(`web-german-reports.test.ts skipped: ${missing}`);

const YEAR = new Date().getFullYear();
const LAST_YEAR = YEAR - 1;
const STATEMENT_DATE = `${YEAR}-01-31`;
/** A date as the web app shows it in German (formatDate: "31. Januar 2026"). */
const shown = (isoDate: string) => new Date(`${isoDate}T00:00:00Z`).toLocaleDateString('de-DE', { timeZone: 'UTC', dateStyle: 'long' });
/** Intl puts a no-break space before the € sign: compared as a plain space. */
const plain = (text: string | null | undefined) => text?.replace(/\s+/g, ' ').trim();
const SECTIONS = ['reconcile', 'reports', 'common', 'nav'];

describe.skipIf(missing !== null && !STRICT_BROWSER)('Reconcile and Reports in German (issue 38, D29)', () => {
  let s: WebSession;
  let page: Page;
  const ids: Record<string, number> = {};

  /** Accepts the next window.confirm and answers its question. */
  const acceptNext = () =>
    new Promise<string>((resolve) =>
      page.once('dialog', (dialog) => {
        resolve(dialog.message());
        void dialog.accept();
      }),
    );

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    s = await openWebSession({ prefix: 'ledger-web-german-reports-', email: 'kassenwart@example.com', password: PASSWORD, locale: 'de-DE' });
    page = s.page;
    expect((await s.call('PUT', '/settings', { book_style: 'club' })).status).toBe(200);
    for (const [name, kind] of [
      ['Girokonto', 'asset'],
      ['Vereinskarte', 'liability'],
      ['Rücklagen', 'equity'],
      ['Mitgliedsbeiträge', 'income'],
      ['Hallenmiete', 'expense'],
    ] as const) {
      ids[name] = (await s.post('/accounts', { name, kind })).body.id;
    }
    for (const [on, description, from, to, cents] of [
      [`${LAST_YEAR}-12-01`, 'Anfangsbestand', 'Rücklagen', 'Girokonto', 200_000],
      [`${LAST_YEAR}-12-15`, 'Beitrag Dezember', 'Mitgliedsbeiträge', 'Girokonto', 5_000],
      [`${YEAR}-01-10`, 'Beitrag Anna Schmidt', 'Mitgliedsbeiträge', 'Girokonto', 6_000],
      [`${YEAR}-01-20`, 'Sporthalle Januar', 'Girokonto', 'Hallenmiete', 12_000],
      [`${YEAR}-01-28`, 'Trikots', 'Vereinskarte', 'Hallenmiete', 4_550],
    ] as const) {
      const entries = [{ account_id: ids[to], amount_cents: cents }, { account_id: ids[from], amount_cents: -cents }];
      expect((await s.post('/transactions', { occurred_on: on, description, entries })).status).toBe(201);
    }
    // The book style is read once signed in: start afresh.
    await page.reload();
    await page.locator('main h1').waitFor();
  }, 180_000);

  afterAll(async () => {
    await s?.close();
  });

  it('issue 38 (D29, D20): Reconcile in German — the choice, a difference, then agreeing, then reconciled', async () => {
    await page.goto(`${s.web}/reconcile`);
    await page.getByRole('heading', { name: 'Abgleichen', level: 1 }).waitFor();
    await page.getByText('Wählen Sie das Konto, dessen Kontoauszug Ihnen vorliegt:').waitFor();
    expect(await page.getByRole('link', { name: /abgleichen$/ }).allTextContents()).toEqual(['Girokonto abgleichen', 'Vereinskarte abgleichen']);
    expect(await englishOnScreen(page, SECTIONS)).toEqual([]);

    await page.goto(`${s.web}/reconcile?account=${ids.Rücklagen}`);
    await page.getByText('Rücklagen ist kein Bank-, Bar- oder Kartenkonto: Es gibt keinen Kontoauszug, mit dem es sich abgleichen ließe.').waitFor();
    expect(await englishOnScreen(page, SECTIONS)).toEqual([]);

    await page.getByRole('link', { name: 'Girokonto abgleichen', exact: true }).click();
    await page.getByRole('heading', { name: 'Girokonto abgleichen', level: 1 }).waitFor();
    await page.getByText('Girokonto wurde noch nie abgeglichen: Der Anfangssaldo beträgt 0,00 €.').waitFor();
    await page.getByLabel('Datum des Kontoauszugs').fill(STATEMENT_DATE);
    await page.getByRole('heading', { name: `Noch nicht abgeglichen, bis ${shown(STATEMENT_DATE)}` }).waitFor();
    await page.getByText('Geben Sie den Saldo laut Kontoauszug ein, um die Differenz zu sehen.').waitFor();
    await page.getByText('Haken Sie ab, was auf dem Kontoauszug steht, und entfernen Sie den Haken bei allem, was dort fehlt.').waitFor();
    const finish = page.getByRole('button', { name: 'Abgleich abschließen', exact: true });
    const difference = async () => plain(await page.locator('.reconcile-sums output').textContent());

    // D12 in German: a club's words for what the statement says (the vocabulary's); D19: German money typed.
    await page.getByLabel(message('de', 'vocabulary.club.statementBalance.asset.label')).fill('1.930,00');
    await expect.poll(difference).toBe('Differenz: -60,00 €');
    expect(await finish.isDisabled()).toBe(true);
    expect(await englishOnScreen(page, SECTIONS)).toEqual([]);
    await page.getByRole('checkbox', { name: 'Beitrag Anna Schmidt' }).uncheck();
    await expect.poll(difference).toBe('Differenz: 0,00 € ✓');
    expect(await finish.isDisabled()).toBe(false);

    await finish.click();
    const done = `Girokonto ist jetzt bis ${shown(STATEMENT_DATE)} abgeglichen (Saldo 1.930,00 €).`;
    await expect.poll(async () => plain(await page.getByRole('status').filter({ hasText: 'ist jetzt bis' }).textContent())).toBe(`${done} Im Kontoblatt ansehen`);
    await expect.poll(async () => plain(await page.locator('form.reconcile > p').first().textContent())).toBe(
      `Abgeglichen bis ${shown(STATEMENT_DATE)}: 1.930,00 €. Kontoblatt von Girokonto`,
    );
    expect(await englishOnScreen(page, SECTIONS)).toEqual([]);

    // A statement older than the last one proven, said before sending.
    await page.getByLabel('Datum des Kontoauszugs').fill(`${YEAR}-01-15`);
    await page.getByText(`Das Datum des Kontoauszugs darf nicht vor dem ${shown(STATEMENT_DATE)} liegen, dem Ende des letzten Abgleichs.`).waitFor();
    expect(await englishOnScreen(page, SECTIONS)).toEqual([]);
  });

  it('issue 38 (D29, D20): the register in German, its ✓, and the last reconciliation undone after a German question', async () => {
    await page.goto(`${s.web}/reconcile?account=${ids.Girokonto}`);
    await page.getByRole('link', { name: 'Kontoblatt von Girokonto' }).click();
    await page.getByRole('heading', { name: 'Berichte', level: 1 }).waitFor();
    const register = page.getByRole('table', { name: 'Kontoblatt' });
    await register.getByRole('cell', { name: 'Anfangssaldo' }).waitFor();
    expect(await register.getByRole('columnheader').allTextContents()).toEqual(['Datum', 'Beschreibung', 'Betrag', 'Saldo']);
    const row = register.getByRole('row').filter({ has: page.getByRole('link', { name: 'Sporthalle Januar', exact: true }) });
    expect(plain(await row.textContent())).toBe(`${shown(`${YEAR}-01-20`)}Sporthalle Januar ✓ abgeglichen-120,00 €1.990,00 €`);
    expect(await row.locator('.reconciled').getAttribute('title')).toBe('Abgeglichen');
    await page.getByText(`Abgeglichen bis ${shown(STATEMENT_DATE)}: 1.930,00 €.`).waitFor();
    expect(await englishOnScreen(page, SECTIONS)).toEqual([]);

    const asked = acceptNext();
    await page.getByRole('button', { name: 'Letzten Abgleich rückgängig machen' }).click();
    expect(plain(await asked)).toBe(
      `Den Abgleich von Girokonto bis ${shown(STATEMENT_DATE)} (Saldo 1.930,00 €) rückgängig machen? Seine Buchungen lassen sich dann wieder ändern, bis sie erneut abgeglichen werden.`,
    );
    await page.getByRole('status').filter({ hasText: `Der Abgleich von Girokonto bis ${shown(STATEMENT_DATE)}` }).waitFor();
    await page.getByText('Noch nicht abgeglichen.', { exact: true }).waitFor();
    await expect.poll(() => row.locator('.reconciled').count()).toBe(0);
    expect(await englishOnScreen(page, SECTIONS)).toEqual([]);
  });

  it('issue 38 (D29, D7): Reports in German — the balance check, a custom period in words, a refused period, the forecast', async () => {
    await page.goto(`${s.web}/reports`);
    await page.getByRole('heading', { name: 'Berichte', level: 1 }).waitFor();
    await page.getByText('✓ Das geht auf: Die Bücher sind ausgeglichen.').waitFor();
    const periodText = () => page.locator('.period p.muted').textContent().then(plain);
    await expect.poll(periodText).toBe(`Zahlen vom ${shown(`${YEAR}-01-01`)} bis zum ${shown(`${YEAR}-12-31`)}.`);

    await page.getByRole('radio', { name: 'Eigener Zeitraum' }).check();
    await page.getByLabel('Von', { exact: true }).fill(`${LAST_YEAR}-12-01`);
    await page.getByLabel('Bis', { exact: true }).fill(`${YEAR}-01-31`);
    await expect.poll(periodText).toBe(`Zahlen vom ${shown(`${LAST_YEAR}-12-01`)} bis zum ${shown(`${YEAR}-01-31`)}.`);
    // Dues 50 + 60, the hall 120 and the kit 45.50: a result of -55.50.
    await expect.poll(async () => plain(await page.getByText(/^Ergebnis:/).textContent())).toBe('Ergebnis: -55,50 €');
    expect(await englishOnScreen(page, SECTIONS)).toEqual([]);

    await page.getByLabel('Von', { exact: true }).fill(`${YEAR}-02-01`);
    await page.getByText('„Von“ liegt nach „Bis“.').waitFor();
    expect(await englishOnScreen(page, SECTIONS)).toEqual([]);
    await page.getByLabel('Von', { exact: true }).fill('');
    await expect.poll(periodText).toBe(`Zahlen von der ersten Buchung bis zum ${shown(`${YEAR}-01-31`)}.`);

    // D21's forecast: its German heading, horizons and figures in words.
    const forecast = page.getByRole('region', { name: 'Prognose' });
    await forecast.getByRole('radio', { name: '3 Monate' }).check();
    const inWords = forecast.getByRole('list', { name: 'Prognose in Worten' });
    await expect.poll(async () => (await inWords.getByRole('listitem').allTextContents()).map(plain)).toEqual([
      'Girokonto: heute 1.990,00 €; keine wiederkehrende Buchung ändert den Saldo.',
      'Vereinskarte: heute 45,50 €; keine wiederkehrende Buchung ändert den Saldo.',
    ]);
    await forecast.getByText('Heute', { exact: true }).waitFor();
    await forecast.getByText(/^Salden von heute bis zum .*, gestrichelt: noch nicht gebucht\./).waitFor();
    expect(await englishOnScreen(page, SECTIONS)).toEqual([]);
  });

  it('issue 38 (D29, D20): the annual report in German, on screen and as printed, and „Jahr … abschließen“ asked in German', async () => {
    await page.goto(`${s.web}/reports`);
    await page.getByRole('link', { name: 'Jahresbericht', exact: true }).click();
    await page.getByRole('heading', { name: `Jahresbericht ${LAST_YEAR}`, level: 1 }).waitFor();
    expect(await page.title()).toBe(`Jahresbericht ${LAST_YEAR} — Ledger`);
    await page.getByText(`Vom ${shown(`${LAST_YEAR}-01-01`)} bis zum ${shown(`${LAST_YEAR}-12-31`)}`, { exact: true }).waitFor();
    await page.getByText(`Stand: ${shown(`${LAST_YEAR}-12-31`)}`, { exact: true }).waitFor();
    const result = page.getByRole('row').filter({ hasText: 'Jahresergebnis' });
    expect(plain(await result.textContent())).toBe('Jahresergebnis50,00 €');
    await page.getByRole('heading', { name: 'Für die Kassenprüfung' }).waitFor();
    await page.getByRole('button', { name: 'Drucken' }).waitFor();
    expect(await englishOnScreen(page, SECTIONS)).toEqual([]);

    // As printed: the statements in German, the buttons and the auditors' files left off.
    await page.emulateMedia({ media: 'print' });
    const printed = plain(await page.evaluate(() => document.body.innerText))!;
    expect(printed).toContain(`Jahresbericht ${LAST_YEAR}`);
    expect(printed).toContain('Jahresergebnis');
    expect(printed).toContain('Ergebnis bis zum Stichtag');
    expect(printed).not.toContain(`Jahr ${LAST_YEAR} abschließen`);
    expect(await englishOnScreen(page, SECTIONS)).toEqual([]);
    await page.emulateMedia({ media: 'screen' });

    const asked = acceptNext();
    await page.getByRole('button', { name: `Jahr ${LAST_YEAR} abschließen` }).click();
    expect(await asked).toBe(
      `Jahr ${LAST_YEAR} abschließen? Danach kann nichts mit einem Datum bis einschließlich ${shown(`${LAST_YEAR}-12-31`)} mehr erfasst, geändert oder gelöscht werden, bis die Bücher in den Einstellungen wieder geöffnet werden.`,
    );
    await page
      .getByRole('status')
      .filter({ hasText: `Das Jahr ${LAST_YEAR} ist abgeschlossen: Die Bücher sind bis einschließlich ${shown(`${LAST_YEAR}-12-31`)} geschlossen.` })
      .waitFor();
    expect(await englishOnScreen(page, SECTIONS)).toEqual([]);

    // The running year: reported so far.
    await page.getByRole('combobox', { name: /^Jahr/ }).selectOption(String(YEAR));
    await page.getByRole('heading', { name: `Jahresbericht ${YEAR}`, level: 1 }).waitFor();
    await page.getByText(/\(bisher\)$/).waitFor();
    await page.getByText(/^Bisher, Stand: /).waitFor();
    expect(await englishOnScreen(page, SECTIONS)).toEqual([]);
  });

  it('ran without server faults or Content-Security-Policy violations', () => {
    expect(s.faults).toEqual([]);
    expect(s.violations).toEqual([]);
  });
});
