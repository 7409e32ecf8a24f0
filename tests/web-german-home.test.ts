import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays as addDaysInRange } from '../src/book/occurrences';
import { startingBalanceInWords, type StartingBalanceSentences } from '../src/book/debt-words';
import { VOCABULARY } from '../src/book/vocabulary';
import { englishOnScreen } from './support/i18n-walk';
import { message, missingBrowserPrerequisite, openWebSession, STRICT_BROWSER, type WebSession } from './support/web-session';
import en from '../src/web/locales/en.json';
import de from '../src/web/locales/de.json';

// Issue 38 (D29, D12) in chromium, a browser in de-DE: Home (this month's cards, Coming up with
// the German plural of its days, the balances by kind, the recent list with opening balances in
// German words) and Accounts (kind headings, the new-account form with its opening-balance
// question by kind, an account's own form, a used account's delete explanation with German
// plurals), in both book styles: the household's Haushaltsbuch words, then the club's (Girokonto,
// Kasse, Rücklagen, Mitgliedsbeiträge). On each, no English sentence of the vocabulary, accounts,
// home, common or nav catalogue is on the screen. Without a browser: the catalogue's English
// vocabulary is src/book/vocabulary.ts' (the MCP tools' words), and the CSV export's words stay English.

const EMAIL = 'haushalt@example.com';
const PASSWORD = 'ein Passwort des Haushalts';
const SECTIONS = ['vocabulary', 'accounts', 'home', 'common', 'nav'];

const missing = missingBrowserPrerequisite();
if (missing && !STRICT_BROWSER) console.warn(`web-german-home.test.ts skipped: ${missing}`);

/** Today where the browser is (Europe/Berlin), as the web app counts it. */
const TODAY = new Date().toLocaleDateString('en-CA', { timeZone: 'Europe/Berlin' });
const addDays = (date: string, days: number) => addDaysInRange(date, days)!;
/** A date as the web app shows it in German ("3. März 2026"). */
const shown = (isoDate: string) => new Date(`${isoDate}T00:00:00Z`).toLocaleDateString('de-DE', { timeZone: 'UTC', dateStyle: 'long' });
const de_ = (key: string) => message('de', key);

describe('issue 38 (D29, D12): the vocabulary in both languages, without a browser', () => {
  it('the catalogue’s English vocabulary is src/book/vocabulary.ts’ word for word (the MCP tools keep that file)', () => {
    for (const style of ['personal', 'club'] as const) {
      const catalogue = en.vocabulary[style] as Record<string, unknown>;
      for (const [key, value] of Object.entries(VOCABULARY[style])) expect(catalogue[key], `${style}.${key}`).toEqual(value);
    }
  });

  it('the club’s German words are D29’s (Einnahme buchen, Vermögensübersicht, Girokonto, Kasse, Rücklagen, Mitgliedsbeiträge)', () => {
    const club = de.vocabulary.club;
    expect([club.moneyIn, club.moneyOut, club.move, club.balanceSheet, club.incomeStatement]).toEqual([
      'Einnahme buchen',
      'Ausgabe buchen',
      'Umbuchung zwischen Konten',
      'Vermögensübersicht',
      'Einnahmen und Ausgaben',
    ]);
    expect(club.kinds.asset).toContain('Girokonto, Kasse');
    expect(club.kinds.equity).toBe('Rücklagen');
    expect(club.kinds.income).toContain('Mitgliedsbeiträge');
    const personal = de.vocabulary.personal;
    expect([personal.moneyIn, personal.moneyOut, personal.move, personal.balanceSheet, personal.kinds.equity]).toEqual([
      'Einnahme',
      'Ausgabe',
      'Umbuchen',
      'Was wir haben und schulden',
      'Anfangsbestände',
    ]);
  });

  it('issue 37 item 7: an opening balance in words stays English by default (the CSV export) and takes the catalogue’s German when given', () => {
    const money = (cents: number) => `$${(cents / 100).toFixed(2)}`;
    const card = { account_name: 'Visa card', kind: 'liability' as const, natural_cents: 120_433 };
    expect(startingBalanceInWords('club', card, 'Opening balance of Visa card', money)).toEqual({ lead: 'Opening balance', rest: 'the club owes $1204.33 on Visa card' });
    const german = de.vocabulary.club.debt as StartingBalanceSentences;
    expect(startingBalanceInWords('club', card, 'Anfangsbestand von Visa card', money, german)).toEqual({ lead: 'Anfangsbestand', rest: 'der Verein schuldet $1204.33 auf Visa card' });
    // A balance set later from the German Accounts page ("Saldo von … gesetzt") is told as a change.
    const less = { account_name: 'Girokonto', kind: 'asset' as const, natural_cents: -2_000 };
    expect(startingBalanceInWords('personal', less, 'Saldo von Girokonto auf 5,00 € gesetzt', money, de.vocabulary.personal.debt)).toEqual({
      lead: 'Saldo gesetzt',
      rest: '$20.00 weniger auf Girokonto',
    });
  });
});

describe.skipIf(missing !== null && !STRICT_BROWSER)('issue 38 (D29, D12): Home and Accounts in German, in chromium (de-DE)', () => {
  let s: WebSession;
  let page: Page;
  const ids: Record<string, number> = {};
  /** Answers the next window.confirm (accepting it or not) and resolves to its question. */
  const answerNext = (accept: boolean) =>
    new Promise<string>((resolve) =>
      page.once('dialog', (dialog) => {
        resolve(dialog.message());
        void (accept ? dialog.accept() : dialog.dismiss());
      }),
    );
  const noEnglish = async () => expect(await englishOnScreen(page, SECTIONS)).toEqual([]);
  const openAccounts = async () => {
    await page.goto(`${s.web}/accounts`);
    await page.getByRole('heading', { name: 'Konten', level: 1 }).waitFor();
  };
  const openHome = async () => {
    await page.goto(s.web);
    await page.getByRole('heading', { name: 'Übersicht', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'Letzte Buchungen' }).waitFor();
  };
  const newAccount = () => page.getByRole('region', { name: 'Neues Konto' });

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    s = await openWebSession({ prefix: 'ledger-web-german-home-', email: EMAIL, password: PASSWORD, locale: 'de-DE' });
    page = s.page;
    expect(s.language).toBe('de');
    for (const [name, kind] of [['Girokonto', 'asset'], ['Gehalt', 'income'], ['Lebensmittel', 'expense'], ['Miete', 'expense']] as const) {
      ids[name] = (await s.post('/accounts', { name, kind })).body.id;
    }
    const pay = async (description: string, from: number, to: number, cents: number) =>
      expect(
        (await s.post('/transactions', { occurred_on: TODAY, description, entries: [{ account_id: to, amount_cents: cents }, { account_id: from, amount_cents: -cents }] })).status,
      ).toBe(201);
    await pay('Gehalt November', ids.Gehalt!, ids.Girokonto!, 250_000);
    await pay('Wocheneinkauf', ids.Girokonto!, ids.Lebensmittel!, 8_450);
    // Coming up: a reminder due today (waiting for a decision) and a rent that posts by itself in 10 days.
    const schedule = async (description: string, start_on: string, mode: 'post' | 'remind', cents: number) =>
      expect(
        (
          await s.post('/schedules', {
            description,
            entries: [{ account_id: ids.Miete, amount_cents: cents }, { account_id: ids.Girokonto, amount_cents: -cents }],
            start_on,
            every: 'month',
            interval: 1,
            mode,
          })
        ).status,
      ).toBe(201);
    await schedule('Strom', TODAY, 'remind', 4_500);
    await schedule('Wohnungsmiete', addDays(TODAY, 10), 'post', 90_000);
  }, 120_000);

  afterAll(async () => {
    await s?.close();
  });

  it('Accounts (household): kind headings, the new-account form asking the opening balance by kind, an opening balance booked against Anfangsbestände', async () => {
    await openAccounts();
    await expect.poll(() => page.title()).toBe('Konten — Ledger');
    await page.getByRole('heading', { name: 'Bank und Bargeld (was wir haben)', level: 2 }).waitFor();
    await page.getByRole('heading', { name: 'Ausgabenkategorien', level: 2 }).waitFor();
    await page.getByRole('heading', { name: 'Was wir schulden', level: 2 }).waitFor();
    expect(await page.getByText('Noch keine.').count()).toBeGreaterThan(0);
    // The new-account form: a bank's question, then a card's.
    await newAccount().getByLabel('Name', { exact: true }).fill('Sparbuch');
    await newAccount().getByLabel('Wie viel ist heute auf dem Konto?').waitFor();
    await newAccount().getByText('Mit Minuszeichen, wenn das Konto überzogen ist. Leer lassen, wenn das Konto bei null beginnt.').waitFor();
    await noEnglish();
    await newAccount().getByLabel('Wie viel ist heute auf dem Konto?').fill('500');
    await newAccount().getByRole('button', { name: 'Konto anlegen' }).click();
    await page.getByText(`„Sparbuch“ angelegt: 500,00 € Bestand am ${shown(TODAY)}, gebucht gegen Anfangsbestände.`).waitFor();
    await noEnglish();

    await newAccount().getByRole('combobox', { name: /^Art/ }).selectOption({ label: 'Was wir schulden' });
    await newAccount().getByLabel('Wie viel schulden Sie heute auf dem Konto?').waitFor();
    await newAccount().getByLabel('Name', { exact: true }).fill('Visa Karte');
    await newAccount().getByLabel('Wie viel schulden Sie heute auf dem Konto?').fill('350');
    await newAccount().getByRole('button', { name: 'Konto anlegen' }).click();
    await page.getByText(`„Visa Karte“ angelegt: 350,00 € Schulden am ${shown(TODAY)}, gebucht gegen Anfangsbestände.`).waitFor();
    await page.getByRole('heading', { name: 'Anfangsbestände', level: 2 }).waitFor();
    await noEnglish();

    // An account's own form: its fields named after it, the question about it.
    await page.getByRole('button', { name: '„Girokonto“ ändern' }).click();
    const form = page.getByRole('form', { name: '„Girokonto“ ändern' });
    await form.getByLabel('Name von „Girokonto“').waitFor();
    await form.getByLabel('Wie viel ist heute auf „Girokonto“?').waitFor();
    await form.getByText('Leer lassen, um ihn unverändert zu lassen (heute 2.415,50 €).', { exact: false }).waitFor();
    await form.getByRole('button', { name: '„Girokonto“ speichern' }).waitFor();
    await noEnglish();
  });

  it('Accounts: a used account is not deleted, with German plurals ("2 Buchungen haben …", "1 Buchung hat …")', async () => {
    await openAccounts();
    let question = answerNext(true);
    await page.getByRole('button', { name: '„Girokonto“ löschen' }).click();
    expect(await question).toBe('Konto „Girokonto“ löschen?');
    await page.getByText('„Girokonto“ kann nicht gelöscht werden: 2 Buchungen haben Einträge auf diesem Konto.', { exact: false }).waitFor();
    await page.getByRole('link', { name: 'die 2 Buchungen auf „Girokonto“' }).waitFor();
    await noEnglish();
    question = answerNext(true);
    await page.getByRole('button', { name: '„Lebensmittel“ löschen' }).click();
    await question;
    await page.getByText('„Lebensmittel“ kann nicht gelöscht werden: 1 Buchung hat einen Eintrag auf diesem Konto.', { exact: false }).waitFor();
    await page.getByRole('link', { name: 'die 1 Buchung auf „Lebensmittel“' }).waitFor();
    await noEnglish();
  });

  it('Home (household): this month in Haushaltsbuch words, Coming up with its plural, opening balances told in German', async () => {
    await openHome();
    await expect.poll(() => page.title()).toBe('Übersicht — Ledger');
    await page.getByRole('heading', { name: 'Einnahmen diesen Monat' }).waitFor();
    await page.getByRole('heading', { name: 'Ausgaben diesen Monat' }).waitFor();
    await page.getByRole('heading', { name: 'Konten (was wir haben)' }).waitFor();
    await page.getByRole('heading', { name: 'Was wir schulden' }).waitFor();
    await page.getByRole('heading', { name: 'Demnächst' }).waitFor();
    await page.getByText(`Die nächsten 30 Tage, bis ${shown(addDays(TODAY, 30))}.`).waitFor();
    await page.getByRole('heading', { name: 'Wartet auf Sie' }).waitFor();
    await page.getByRole('heading', { name: 'Wird automatisch gebucht' }).waitFor();
    const recent = page.getByRole('table', { name: 'Letzte Buchungen' });
    await recent.getByRole('columnheader', { name: 'Beschreibung' }).waitFor();
    await recent.getByText('Anfangsbestand: 500,00 € auf Sparbuch').waitFor();
    await recent.getByText('Anfangsbestand: wir schulden 350,00 € auf Visa Karte').waitFor();
    await recent.getByRole('cell', { name: 'Einnahme', exact: true }).waitFor();
    await recent.getByRole('cell', { name: 'Ausgabe', exact: true }).waitFor();
    await noEnglish();
    // A reminder's "another amount" form, then Skip.
    await page.getByRole('button', { name: `Jetzt mit anderem Betrag buchen: Strom vom ${shown(TODAY)}` }).click();
    await page.getByLabel('Betrag diesmal (sonst 45,00 €)').waitFor();
    await noEnglish();
    await page.getByRole('button', { name: `Strom vom ${shown(TODAY)} überspringen` }).click();
    await page.getByText(`„Strom“ vom ${shown(TODAY)} übersprungen.`).waitFor();
    await noEnglish();
  });

  it('the club (book_style club): Accounts’ and Home’s club words (Geldbestände: Girokonto, Kasse; Rücklagen; Mitgliedsbeiträge)', async () => {
    expect((await s.call('PUT', '/settings', { book_style: 'club' })).status).toBe(200);
    await openAccounts();
    await page.getByRole('heading', { name: de_('vocabulary.club.accountHeadings.asset'), level: 2 }).waitFor();
    await page.getByRole('heading', { name: 'Geldbestände (Girokonto, Kasse)', level: 2 }).waitFor();
    await page.getByRole('heading', { name: 'Verbindlichkeiten des Vereins', level: 2 }).waitFor();
    await page.getByRole('heading', { name: 'Rücklagen', level: 2 }).waitFor();
    await page.getByRole('heading', { name: 'Einnahmen (Mitgliedsbeiträge, Spenden, Veranstaltungen)', level: 2 }).waitFor();
    await newAccount().getByRole('combobox', { name: /^Art/ }).selectOption({ label: 'Verbindlichkeiten des Vereins' });
    await newAccount().getByLabel('Wie viel schuldet der Verein heute auf dem Konto?').waitFor();
    await newAccount().getByText('Der geschuldete Betrag ohne Vorzeichen; mit Minuszeichen, wenn der Verein ein Guthaben hat.', { exact: false }).waitFor();
    await noEnglish();
    // Changing a kind asks first, in the club's words of what the balance counts as.
    await page.getByRole('button', { name: '„Sparbuch“ ändern' }).click();
    const form = page.getByRole('form', { name: '„Sparbuch“ ändern' });
    await form.getByLabel('Art von „Sparbuch“').selectOption({ label: 'Ausgaben (Raummiete, Ausrüstung, Veranstaltungen)' });
    const question = answerNext(false);
    await form.getByRole('button', { name: '„Sparbuch“ speichern' }).click();
    expect((await question).replace(/\u00a0/g, ' ')).toBe('Die 500,00 € von „Sparbuch“ zählen dann in jedem Bericht als Ausgaben statt als Geldbestände des Vereins. Art von „Sparbuch“ ändern?');
    await noEnglish();

    await openHome();
    await page.getByRole('heading', { name: 'Einnahmen diesen Monat' }).waitFor();
    await page.getByRole('heading', { name: 'Geldbestände (Girokonto, Kasse)' }).waitFor();
    await page.getByRole('heading', { name: 'Verbindlichkeiten des Vereins' }).waitFor();
    const recent = page.getByRole('table', { name: 'Letzte Buchungen' });
    await recent.getByText('Anfangsbestand: der Verein schuldet 350,00 € auf Visa Karte').waitFor();
    await noEnglish();
  });
});
