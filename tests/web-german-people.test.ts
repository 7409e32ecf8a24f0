import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { englishOnScreen } from './support/i18n-walk';
import { missingBrowserPrerequisite, openWebSession, STRICT_BROWSER, type WebSession } from './support/web-session';

// Issue 40 (D27, D29, D12, D19) in chromium, a browser in de-DE, a club's book: the Mitglieder
// page — a member list pasted with German headers (`;`-separated, as German spreadsheets write
// CSV) whose bad IBAN names "Zeile 3" and saves nothing, then a good one added whole; a
// Beitragsart "Mitgliedsbeitrag" typed "5,00" ("5,00 € im Monat"); who owes ("schuldet 15,00 €,
// seit …"); a member's Kontoauszug; the Zahlungserinnerung printed alone; no English sentence of
// the people, personStatement, dues, common or nav catalogue on screen; no sideways scrolling at
// 390 px; people's accounts not on the Konten page.

const EMAIL = 'kassenwart@verein.example';
const PASSWORD = 'ein Passwort des Vereins';
const SECTIONS = ['people', 'personStatement', 'dues', 'common', 'nav'];

const missing = missingBrowserPrerequisite();
if (missing && !STRICT_BROWSER) console.warn(`web-german-people.test.ts skipped: ${missing}`);

const TODAY = new Date().toLocaleDateString('en-CA', { timeZone: 'Europe/Berlin' });
function monthStart(back: number): string {
  const [y, m] = TODAY.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 1 - back, 1)).toISOString().slice(0, 10);
}
const START = monthStart(2);
/** A date as the web app shows it in German ("1. März 2026"). */
const shown = (isoDate: string) => new Date(`${isoDate}T00:00:00Z`).toLocaleDateString('de-DE', { timeZone: 'UTC', dateStyle: 'long' });
/** German dates as a spreadsheet writes them (01.03.2026). */
/** Text as read, the non-breaking space German money puts before € read as a space. */
const plain = (text: string | null | undefined) => (text ?? '').replace(/\u00a0/g, ' ');
const dotted = (isoDate: string) => isoDate.split('-').reverse().join('.');

const BAD_LIST = [
  'Name;E-Mail;IBAN;Mitgliedsnummer;Mandatsreferenz;Mandatsdatum;Eintritt',
  `Anna Schmidt;anna@example.org;DE89 3704 0044 0532 0130 00;1;M-1;15.01.2024;${dotted(START)}`,
  'Bernd Müller;bernd@example.org;DE89370400440532013001;2;;;01.02.2024',
  'Clara Weiß;;NL91ABNA0417164300;3;;;',
].join('\n');
const GOOD_LIST = BAD_LIST.replace('DE89370400440532013001', 'AT611904300234573201');

describe.skipIf(missing !== null && !STRICT_BROWSER)('Mitglieder und Beiträge in chromium, ein Verein auf Deutsch (issue 40, D27, D29)', () => {
  let s: WebSession;
  let page: Page;
  const noEnglish = async () => expect(await englishOnScreen(page, SECTIONS)).toEqual([]);
  const noSideways = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  const people = async () => (await s.call('GET', '/people')).body as { id: number; name: string; balance_cents: number }[];
  const paste = async (text: string) => {
    const form = page.getByRole('form', { name: 'Mitgliederliste einfügen' });
    await form.getByLabel('Zeilen aus einer Tabelle kopiert, die erste Zeile mit den Spaltennamen').fill(text);
    return form;
  };

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    s = await openWebSession({ prefix: 'ledger-web-german-people-', email: EMAIL, password: PASSWORD, locale: 'de-DE' });
    page = s.page;
    expect(s.language).toBe('de');
    expect((await s.call('PUT', '/settings', { book_style: 'club' })).status).toBe(200);
    for (const [name, kind] of [['Girokonto', 'asset'], ['Mitgliedsbeiträge', 'income']] as const) expect((await s.post('/accounts', { name, kind })).status).toBe(201);
    await page.reload();
  }, 180_000);

  afterAll(async () => {
    await s?.close();
  });

  it('eine Mitgliederliste mit deutschen Spalten: die falsche IBAN nennt Zeile 3 und nichts wird angelegt; die richtige Liste wird ganz angelegt', async () => {
    await s.go('Mitglieder', 'Mitglieder');
    let form = await paste(BAD_LIST);
    const preview = form.getByRole('table', { name: 'Die Liste, wie sie angelegt wird' });
    expect(await preview.getByRole('row').nth(1).getByRole('cell').allTextContents()).toEqual(['2', 'Anna Schmidt', 'anna@example.org', 'DE89370400440532013000', '1', 'M-1', '15. Januar 2024', shown(START)]);
    await form.getByRole('alert').filter({ hasText: 'Zeile 3: die Prüfziffern der IBAN stimmen nicht.' }).waitFor();
    expect(await form.getByRole('button', { name: '3 Mitglieder anlegen' }).isDisabled()).toBe(true);
    await noEnglish();
    expect(await people()).toEqual([]);

    form = await paste(GOOD_LIST);
    await form.getByText('3 Mitglieder, bereit zum Anlegen.').waitFor();
    await form.getByRole('button', { name: '3 Mitglieder anlegen' }).click();
    await page.getByRole('status').filter({ hasText: '3 Mitglieder angelegt.' }).waitFor();
    const list = page.getByRole('table', { name: 'Mitglieder und ihr Stand' });
    await expect.poll(() => list.getByRole('rowheader').allTextContents()).toEqual(['Anna Schmidt', 'Bernd Müller', 'Clara Weiß']);
    expect(await list.getByRole('columnheader').allTextContents()).toEqual(['Name', 'Mitgliedsnr.', 'Stand', 'Aktionen']);
    await noEnglish();
  });

  it('eine Beitragsart „5,00“ im Monat (D19): Anna, seit ihrem Eintritt dabei, schuldet 15,00 €; die Übersicht sagt, was der Verein fordert', async () => {
    await page.goto(`${s.web}/dues`);
    await page.getByRole('heading', { name: 'Beitragsarten', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Beitragsart anlegen' }).click();
    const form = page.getByRole('form', { name: 'Neue Beitragsart' });
    await form.getByLabel('Name').fill('Mitgliedsbeitrag');
    await form.getByLabel('Betrag').fill('5,00');
    await expect.poll(async () => plain(await form.locator('output').first().textContent())).toBe('= 5,00 €');
    await form.getByLabel('Wie oft').selectOption('month');
    await form.getByLabel('Erster Termin').fill(START);
    await form.getByLabel('Als Einnahme gebucht auf').selectOption({ label: 'Mitgliedsbeiträge' });
    await noEnglish();
    await form.getByRole('button', { name: 'Beitragsart anlegen' }).click();
    await page.getByRole('status').filter({ hasText: /Die Beitragsart „Mitgliedsbeitrag“ ist angelegt: 5,00\s€ im Monat\./ }).waitFor();
    const plan = ((await s.call('GET', '/dues-plans')).body as { id: number; amount_cents: number }[])[0]!;
    expect(plan.amount_cents).toBe(500);
    await noEnglish();

    // Anna joined on the plan's start; a new plan given to an existing member charges from today (D27), so the past months come from the API here.
    const anna = (await people()).find((p) => p.name === 'Anna Schmidt')!;
    const full = (await s.call('GET', `/people/${anna.id}`)).body;
    expect((await s.call('DELETE', `/people/${anna.id}`)).status).toBe(204);
    const again = await s.post('/people', { ...Object.fromEntries(Object.entries(full).filter(([k, v]) => v !== null && !['id', 'account_id', 'balance_cents'].includes(k))), dues_plan_id: plan.id });
    expect(again.status).toBe(201);
    expect(again.body.balance_cents).toBe(1500);

    await page.goto(`${s.web}/people`);
    const list = page.getByRole('table', { name: 'Mitglieder und ihr Stand' });
    await expect.poll(async () => (await list.getByRole('row').filter({ hasText: 'Anna Schmidt' }).getByRole('cell').allTextContents()).map(plain)[1]).toBe(`schuldet 15,00 €, seit ${shown(START)}`);
    const owed = page.getByRole('region', { name: 'Offene Forderungen des Vereins' });
    expect(plain(await owed.locator('.money').textContent())).toBe('15,00 €');
    await owed.getByText('1 Mitglied ist mit Beiträgen im Rückstand').waitFor();
    await noEnglish();
  });

  it('der Kontoauszug eines Mitglieds und die Zahlungserinnerung, allein gedruckt; die Konten-Seite zeigt keine Mitglieder', async () => {
    await page.getByRole('link', { name: 'Anna Schmidt' }).click();
    await page.getByRole('heading', { name: 'Kontoauszug: Anna Schmidt', level: 1 }).waitFor();
    const table = page.getByRole('table', { name: 'Kontoauszug von Anna Schmidt' });
    await expect.poll(() => table.getByRole('row').count()).toBe(6);
    expect(await table.getByRole('columnheader').allTextContents()).toEqual(['Datum', 'Beschreibung', 'Betrag', 'Saldo']);
    expect(plain(await table.getByRole('row').filter({ hasText: 'Endsaldo' }).textContent())).toContain('15,00 €');
    await noEnglish();

    await page.evaluate(() => {
      window.print = () => document.body.setAttribute('data-printed', 'ja');
    });
    await page.getByRole('button', { name: 'Zahlungserinnerung drucken' }).click();
    await expect.poll(() => page.locator('body').getAttribute('data-printed')).toBe('ja');
    await noEnglish();
    const reminder = page.getByRole('region', { name: 'Freundliche Zahlungserinnerung' });
    await page.emulateMedia({ media: 'print' });
    try {
      expect(await page.getByRole('navigation').isVisible()).toBe(false);
      expect(await table.isVisible()).toBe(false);
      const text = plain(await reminder.innerText());
      expect(text).toContain('Hallo Anna Schmidt,');
      expect(text).toContain('Ihre Beiträge von 15,00 € noch offen');
      for (const back of [2, 1, 0]) expect(text).toContain(`Mitgliedsbeitrag ${monthStart(back).slice(0, 7)} (5,00 €)`);
      expect(text).toContain(`Datum: ${shown(TODAY)}`);
      // No creditor details in this book: no IBAN line, the member is asked to pay.
      expect(text).toContain('Bitte zahlen Sie 15,00 €, sobald es Ihnen möglich ist.');
      expect(text).not.toContain('IBAN');
    } finally {
      await page.emulateMedia({ media: 'screen' });
    }

    await page.goto(`${s.web}/accounts`);
    await page.getByRole('heading', { name: 'Konten', level: 1 }).waitFor();
    await page.locator('main').getByText('Girokonto', { exact: true }).first().waitFor();
    for (const name of ['Anna Schmidt', 'Bernd Müller', 'Clara Weiß']) expect(await page.locator('main').getByText(name).count()).toBe(0);
  });

  it('bei 390 px scrollt keine der Seiten seitwärts, und keine zeigt Englisch', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      const anna = (await people()).find((p) => p.name === 'Anna Schmidt')!;
      for (const [path, heading] of [['/people', 'Mitglieder'], [`/people/statement?id=${anna.id}`, 'Kontoauszug: Anna Schmidt'], ['/dues', 'Beitragsarten']] as const) {
        await page.goto(`${s.web}${path}`);
        await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
        await page.locator('main table').first().waitFor();
        expect(await noSideways(), path).toBe(true);
        await noEnglish();
      }
      expect(s.faults).toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1100, height: 900 });
    }
  });
});
