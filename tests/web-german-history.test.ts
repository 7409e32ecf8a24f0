import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANGE_SENTENCES, describeChange, type ChangeRecord, type ChangeSentences } from '../src/book/change-words';
import { englishOnScreen } from './support/i18n-walk';
import { message, missingBrowserPrerequisite, openWebSession, STRICT_BROWSER, type WebSession } from './support/web-session';

// Issue 38 (D29) for the History page: its sentences come from the catalogue (history.sentence.*,
// whole sentences with the German verb last: "Sam hat den Betrag von „Mittagessen“ am 3. März
// 2026 um 14:05 … von 30,00 € auf 35,00 € geändert."), while the change log's CSV keeps
// change-words.ts' English. In chromium, a browser in de-DE: a transaction recorded, its amount
// changed, deleted and restored with History's Undo, a receipt added, an account renamed, a
// reminder skipped, an opening balance, the books closed; History tells each in German, with times of day in German,
// its filters, empty states and download hint in German, and no English sentence of the history,
// common or nav catalogue on the screen.

const EMAIL = 'kassenwart@verlauf.example';
const PASSWORD = 'ein Passwort der Kasse';
const SECTIONS = ['history', 'common', 'nav'];
const de = (key: string) => message('de', key);
/** The smallest PNG header the receipts accept by its magic numbers. */
const PNG_HEX = '89504e470d0a1a0a0000000d4948445200000001000000010806000000';
/** A date as the web app shows it in German ("3. März 2026"). */
const shown = (isoDate: string) => new Date(`${isoDate}T00:00:00Z`).toLocaleDateString('de-DE', { timeZone: 'UTC', dateStyle: 'long' });

const missing = missingBrowserPrerequisite();
if (missing && !STRICT_BROWSER) console.warn(`web-german-history.test.ts skipped: ${missing}`);

describe('issue 38 (D29): a change record in the catalogue\'s German, the CSV\'s English untouched', () => {
  const catalogue = (language: 'en' | 'de') =>
    (JSON.parse(readFileSync(`src/web/locales/${language}.json`, 'utf8')) as { history: { sentence: ChangeSentences } }).history.sentence;
  const euros = (cents: number) => new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(cents / 100);
  const line = (id: number, name: string, cents: number) => ({ account_id: id, account_name: name, amount_cents: cents });
  const lunch = (cents: number) => ({ occurred_on: '2026-03-03', description: 'Mittagessen', entries: [line(1, 'Girokonto', -cents), line(2, 'Essen', cents)] });
  const change: ChangeRecord = {
    at: '2026-03-03T13:05:00Z', actor_email: 'sam@verein.example', via: 'session', client_id: null, subject: 'transaction', subject_id: 1,
    action: 'update', schedule_id: null, before: lunch(3000), after: lunch(3500),
  };

  it('issue 38 (D29): another person\'s change of an amount reads as the issue\'s example ("… hat den Betrag von „Mittagessen“ am 3. März 2026 um 14:05 … von 30,00 € auf 35,00 € geändert.")', () => {
    const time = () => message('de', 'history.when').replace('{{day}}', '3. März 2026').replace('{{time}}', '14:05');
    const words = { money: euros, date: shown, time, sentences: catalogue('de'), reader: EMAIL };
    expect(describeChange(change, words)).toBe(`sam@verein.example hat den Betrag von „Mittagessen“ am 3. März 2026 um 14:05 in der Web-App von ${euros(3000)} auf ${euros(3500)} geändert.`);
    expect(euros(3000)).toBe('30,00\u00a0€');
  });

  it('issue 38 (D29): the catalogue\'s English sentences are change-words.ts\' own, so that History in English reads as the CSV does', () => {
    expect(catalogue('en')).toEqual(CHANGE_SENTENCES);
    const money = (cents: number) => `€${(cents / 100).toFixed(2)}`;
    expect(describeChange(change, { money, date: (d) => d })).toBe('sam@verein.example changed the amount from €30.00 to €35.00 of “Mittagessen” (€35.00) from the web app.');
  });
});

describe.skipIf(missing !== null && !STRICT_BROWSER)('issue 38 (D29): the History page in German, in chromium (de-DE)', () => {
  let s: WebSession;
  let page: Page;
  const ids: Record<string, number> = {};
  const history = () => page.locator('main ol.history > li');
  const said = (text: string | RegExp) => history().filter({ hasText: text }).first();
  /** The sentence of the first record that holds `text` (without the Undo and the receipts kept beside a delete). */
  const sentence = (text: string | RegExp) => said(text).locator(':scope > span').first().textContent();
  const noEnglish = async () => expect(await englishOnScreen(page, SECTIONS)).toEqual([]);
  const openHistory = async () => {
    await page.goto(s.web);
    await s.go(de('nav.history'), de('history.title'));
  };

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    s = await openWebSession({ prefix: 'ledger-web-german-history-', email: EMAIL, password: PASSWORD, locale: 'de-DE' });
    page = s.page;
  }, 120_000);
  afterAll(() => s?.close());

  it('issue 38 (D29): a book with no change yet says so in German, its days and download in German', async () => {
    await openHistory();
    await page.getByText(de('history.empty')).waitFor();
    await page.getByText(de('history.days.hint')).waitFor();
    await page.getByText(de('history.download.hint')).waitFor();
    await page.getByRole('button', { name: de('history.download.file') }).waitFor();
    await noEnglish();
  });

  it('issue 38 (D29): History tells each step in German — recorded, amount changed, deleted and restored with Undo, a receipt, an account renamed, a reminder skipped, the books closed', async () => {
    for (const [name, kind] of [['Bank', 'asset'], ['Essen', 'expense'], ['Miete', 'expense']] as const) {
      const res = await s.post('/accounts', { name, kind });
      expect(res.status).toBe(201);
      ids[name] = res.body.id;
    }
    const entries = (cents: number) => [{ account_id: ids.Essen, amount_cents: cents }, { account_id: ids.Bank, amount_cents: -cents }];
    const made = await s.post('/transactions', { occurred_on: '2026-03-03', description: 'Mittagessen', entries: entries(3000) });
    expect(made.status).toBe(201);
    const id = made.body.id as number;
    expect((await s.call('PUT', `/transactions/${id}`, { occurred_on: '2026-03-03', description: 'Mittagessen', entries: entries(3500) })).status).toBe(200);
    const uploaded = await page.evaluate(
      async ({ url, hex }) => {
        const bytes = new Uint8Array(hex.match(/../g)!.map((b) => parseInt(b, 16)));
        return (await fetch(url, { method: 'POST', credentials: 'include', headers: { 'content-type': 'image/png' }, body: bytes })).status;
      },
      { url: `${s.api}/transactions/${id}/attachments?name=kassenbon.png`, hex: PNG_HEX },
    );
    expect(uploaded).toBe(201);
    expect((await s.call('PUT', `/accounts/${ids.Bank}`, { name: 'Girokonto' })).status).toBe(200);
    // An opening balance is told as such (issue 37 item 7), in the vocabulary's German.
    const equity = await s.post('/accounts', { name: 'Anfangsbestände', kind: 'equity' });
    expect(equity.status).toBe(201);
    const opening = [{ account_id: ids.Bank, amount_cents: 254_815 }, { account_id: equity.body.id, amount_cents: -254_815 }];
    expect((await s.post('/transactions', { occurred_on: '2026-01-01', description: 'Anfangsbestand', entries: opening })).status).toBe(201);
    const hall = await s.post('/schedules', {
      description: 'Hallenmiete', start_on: '2026-03-01', every: 'month', mode: 'remind',
      entries: [{ account_id: ids.Miete, amount_cents: 85_000 }, { account_id: ids.Bank, amount_cents: -85_000 }],
    });
    expect(hall.status).toBe(201);
    expect((await s.post(`/schedules/${hall.body.id}/occurrences/2026-03-01/skip`, undefined)).status).toBe(204);
    expect((await s.call('DELETE', `/transactions/${id}`)).status).toBeLessThan(300);

    await openHistory();
    await said('gelöscht.').waitFor();
    // The example, in the reader's own person ("Sie haben" for their own change, "… hat" for another's: above).
    expect(await sentence('den Betrag')).toMatch(/^Sie haben den Betrag von „Mittagessen“ am \d+\. \S+ um \d\d:\d\d in der Web-App von 30,00\s€ auf 35,00\s€ geändert\.$/);
    expect(await sentence(/^Sie haben „Mittagessen“.*erfasst\.$/)).toMatch(/^Sie haben „Mittagessen“ \(30,00\s€\) am .+ um \d\d:\d\d in der Web-App erfasst\.$/);
    expect(await sentence('den Beleg')).toMatch(
      new RegExp(`^Sie haben den Beleg „kassenbon\\.png“ zu „Mittagessen“ vom ${shown('2026-03-03')} am .+ um \\d\\d:\\d\\d in der Web-App hinzugefügt\\.$`),
    );
    expect(await sentence('beim Konto')).toMatch(/^Sie haben beim Konto „Girokonto“ am .+ in der Web-App den Namen von „Bank“ auf „Girokonto“ geändert\.$/);
    expect(await sentence('übersprungen')).toMatch(new RegExp(`^Sie haben „Hallenmiete“ vom ${shown('2026-03-01')} am .+ in der Web-App übersprungen\\.$`));
    expect(await sentence('die wiederkehrende Buchung')).toMatch(/^Sie haben die wiederkehrende Buchung „Hallenmiete“ \(850,00\s€, jeden Monat\) am .+ angelegt\.$/);
    expect(await sentence('gelöscht.')).toMatch(/^Sie haben „Mittagessen“ \(35,00\s€\) am .+ in der Web-App gelöscht\.$/);
    expect(await sentence('(Anfangsbestand:')).toMatch(/^Sie haben „Anfangsbestand“ \(Anfangsbestand: 2\.548,15\s€ auf Girokonto\) am .+ in der Web-App erfasst\.$/);
    expect(await history().count()).toBe(12); // 4 accounts, recorded, changed, receipt, renamed, opening balance, schedule, skipped, deleted
    await noEnglish();

    // Undo, in German; what it did is said until the next action.
    const undo = page.getByRole('button', { name: de('history.undoLabel') });
    await expect(undo.textContent()).resolves.toBe(de('history.undo'));
    await undo.click();
    await page.getByRole('status').filter({ hasText: '„Mittagessen“ wiederhergestellt.' }).waitFor();
    await said('wiederhergestellt.').waitFor();
    expect(await sentence(/wiederhergestellt\.$/)).toMatch(/^Sie haben „Mittagessen“ \(35,00\s€\) am .+ in der Web-App wiederhergestellt\.$/);
    await expect(page.getByRole('button', { name: de('history.undoLabel') }).count()).resolves.toBe(0);
    await noEnglish();
  });

  it('issue 38 (D29): closing the books, a day filter with nothing in it and the download hint of the days chosen, in German', async () => {
    expect((await s.call('PUT', '/settings', { closed_through: '2025-12-31' })).status).toBe(200);
    await openHistory();
    await said('abgeschlossen').waitFor();
    expect(await sentence('abgeschlossen')).toMatch(new RegExp(`^Sie haben am .+ in der Web-App die Bücher bis zum ${shown('2025-12-31')} abgeschlossen\\.$`));

    const days = page.getByRole('search', { name: de('history.days.label') });
    await days.getByLabel(de('history.days.from')).fill('2099-01-01');
    await page.getByText(de('history.emptyDays')).waitFor();
    await page.getByText(`Jede Änderung am Buch ab dem ${shown('2099-01-01')}, für die Kassenprüfung, als Datei:`).waitFor();
    await days.getByLabel(de('history.days.to')).fill('2099-01-31');
    await page.getByText(`Jede Änderung am Buch vom ${shown('2099-01-01')} bis ${shown('2099-01-31')}, für die Kassenprüfung, als Datei:`).waitFor();
    await noEnglish();
    expect(s.faults).toEqual([]);
  });
});
