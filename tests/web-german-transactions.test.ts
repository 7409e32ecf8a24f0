import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { englishOnScreen } from './support/i18n-walk';
import { missingBrowserPrerequisite, openWebSession, STRICT_BROWSER, type WebSession } from './support/web-session';

// Issue 38 (D29, D12): the Transactions page in German for a German browser — the record form in
// each mode, a saved notice, the far-date question, the edit form, the list with its search hint
// and "Searching…", delete and undo, the printed list's title and totals with German plurals
// ("1 Buchung", "3 Buchungen") — and no English sentence of the catalogue on screen.

const EMAIL = 'kassenwart@deutsch-buchungen.example';
const PASSWORD = 'ein Passwort des Kassenwarts';

const missing = missingBrowserPrerequisite();
if (missing && !STRICT_BROWSER) console.warn(`web-german-transactions.test.ts skipped: ${missing}`);

const YEAR = new Date().getFullYear();
/** The sections whose English sentences must not show on a German Transactions page. */
const SECTIONS = ['transactions', 'common', 'nav', 'vocabulary'];

const answerNext = (page: Page, accept: boolean) =>
  new Promise<string>((resolve) =>
    page.once('dialog', (dialog) => {
      resolve(dialog.message());
      void (accept ? dialog.accept() : dialog.dismiss());
    }),
  );

describe.skipIf(missing !== null && !STRICT_BROWSER)('the Transactions page in German (issue 38, D29, D12)', () => {
  let s: WebSession;
  let page: Page;
  const ids: Record<string, number> = {};
  const form = () => page.locator('form.record').first();
  const list = () => page.getByRole('table', { name: 'Erfasste Buchungen' });
  /** An account choice of the record form by its label (its name goes on with the chosen option). */
  const account = (label: string) => form().getByRole('combobox', { name: new RegExp(`^${label.replace(/[()]/g, '\\$&')}(?! \\()`) });

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    s = await openWebSession({ prefix: 'ledger-web-german-transactions-', email: EMAIL, password: PASSWORD, locale: 'de-DE' });
    page = s.page;
    expect((await s.call('PUT', '/settings', { book_style: 'club' })).status).toBe(200);
    // The book style is read when the app loads: the Transactions page, loaded afresh, is the club's.
    await page.goto(`${s.web}/transactions`);
    await page.getByRole('heading', { level: 1, name: 'Buchungen' }).waitFor();
    for (const [name, kind] of [['Girokonto', 'asset'], ['Kasse', 'asset'], ['Saalmiete', 'expense'], ['Mitgliedsbeiträge', 'income']] as const) {
      const res = await s.call('POST', '/accounts', { name, kind });
      expect(res.status).toBe(201);
      ids[name] = res.body.id;
    }
    const book = async (description: string, cents: number, on: string, from: string, to: string) => {
      const res = await s.call('POST', '/transactions', { occurred_on: on, description, entries: [{ account_id: ids[to]!, amount_cents: cents }, { account_id: ids[from]!, amount_cents: -cents }] });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    };
    await book('Saalmiete Januar', 12000, `${YEAR}-01-11`, 'Girokonto', 'Saalmiete');
    await book('Beitrag Anna', 3000, `${YEAR}-01-12`, 'Mitgliedsbeiträge', 'Kasse');
  }, 120_000);
  afterAll(() => s?.close());

  it('the page, its list and the record form in each mode are German, with no English sentence on screen', async () => {
    await page.reload();
    await expect.poll(() => list().locator('tbody tr').count()).toBe(2);
    expect(await page.title()).toBe('Buchungen — Ledger');
    expect(await page.getByRole('heading', { level: 2, name: 'Buchung erfassen' }).count()).toBe(1);
    expect(await list().locator('thead th').allTextContents()).toEqual(expect.arrayContaining(['Datum', 'Beschreibung', 'Vorgang', 'Erfasst von']));
    expect(await list().locator('tbody').textContent()).toContain('von Girokonto an Saalmiete');
    await page.getByText('Wörter, der Name eines Kontos oder ein Betrag; Groß- und Kleinschreibung und Akzente spielen keine Rolle.').waitFor();
    expect(await page.getByRole('button', { name: 'Liste drucken' }).count()).toBe(1);
    expect(await page.getByRole('searchbox', { name: 'Suchen' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Saalmiete Januar bearbeiten' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Saalmiete Januar löschen' }).count()).toBe(1);
    expect(await form().locator('legend').first().textContent()).toBe('Was ist geschehen?');

    const labels = { in: ['Auf', 'Von (woher das Geld kommt)'], out: ['Bezahlt von', 'Ausgegeben für'], move: ['Von', 'Nach'] } as const;
    for (const [mode, [first, second]] of Object.entries(labels)) {
      await form().locator(`input[type=radio][value=${mode}]`).check();
      await account(first).waitFor();
      await account(second).waitFor();
      expect(await form().getByLabel('Betrag', { exact: true }).getAttribute('placeholder')).toBe('12,50');
      expect(await form().getByRole('option', { name: 'Bitte wählen…' }).count()).toBe(2);
      expect(await englishOnScreen(page, SECTIONS), mode).toEqual([]);
    }
    await form().locator('input[type=radio][value=split]').check();
    await form().getByText('Aufteilen (für Fortgeschrittene)').waitFor();
    await form().getByText('Buchungszeilen (positiv geht auf ein Konto, negativ kommt von einem Konto; zusammen müssen sie null ergeben)').waitFor();
    await account('Konto 2').waitFor();
    await form().getByRole('button', { name: 'Zeile hinzufügen' }).click();
    await form().getByRole('button', { name: 'Zeile 3 entfernen' }).click();
    await form().getByLabel('Betrag 1', { exact: true }).fill('-12,50');
    expect(await form().locator('output.split-balance').textContent()).toMatch(/^Summe der Buchungszeilen: \S12,50\s€\. Bis zum Ausgleich fehlen: 12,50\s€\.$/);
    expect(await englishOnScreen(page, SECTIONS)).toEqual([]);
    await form().getByLabel('Betrag 1', { exact: true }).fill('');
  });

  it('a far date is asked about in German, and a saved payment is confirmed in German', async () => {
    await form().locator('input[type=radio][value=out]').check();
    await form().getByLabel('Datum', { exact: true }).fill('2062-01-01');
    await form().getByLabel('Beschreibung', { exact: true }).fill('Bäckerei Müller');
    await form().getByLabel('Betrag', { exact: true }).fill('12,50');
    await account('Bezahlt von').selectOption({ label: 'Kasse' });
    await account('Ausgegeben für').selectOption({ label: 'Saalmiete' });
    await form().getByText('Im Buch:').waitFor();
    const asked = answerNext(page, false);
    await form().getByRole('button', { name: 'Speichern' }).click();
    expect(await asked).toBe('Das Datum 1. Januar 2062 liegt mehr als ein Jahr vom heutigen Tag entfernt. Trotzdem speichern?');
    await form().getByText('Nicht gespeichert: Bitte prüfen Sie das Datum (1. Januar 2062).').waitFor();

    await form().getByLabel('Datum', { exact: true }).fill(`${YEAR}-01-13`);
    await form().getByRole('button', { name: 'Speichern' }).click();
    const notice = form().locator('.notice');
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(/^„Bäckerei Müller“ vom 13\. Januar \d{4} gespeichert: .+ 12,50\s€, von Kasse an Saalmiete\. In der Liste ansehen$/);
    await expect.poll(() => list().locator('tbody tr').count()).toBe(3);
    expect(await englishOnScreen(page, SECTIONS)).toEqual([]);
  });

  it('the edit form is German', async () => {
    await page.getByRole('button', { name: 'Bäckerei Müller bearbeiten' }).click();
    const edit = page.getByRole('form', { name: 'Buchung bearbeiten' });
    await edit.waitFor();
    expect(await edit.getByRole('heading', { level: 3 }).textContent()).toBe('„Bäckerei Müller“ bearbeiten');
    for (const name of ['Änderungen speichern', 'Abbrechen', 'Wiederholen…']) expect(await edit.getByRole('button', { name }).count(), name).toBe(1);
    expect(await edit.getByRole('link', { name: 'Verlauf dieser Buchung' }).count()).toBe(1);
    expect(await englishOnScreen(page, SECTIONS)).toEqual([]);
    await edit.getByRole('button', { name: 'Abbrechen' }).click();
    await edit.waitFor({ state: 'detached' });
  });

  it('"Searching…" and the list narrowed by a search are German', async () => {
    const held = async (route: Route) => {
      if (new URL(route.request().url()).searchParams.get('q') !== 'Müller') return route.fallback();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.continue();
    };
    await page.route((url) => url.pathname === '/transactions', held);
    try {
      await page.getByRole('searchbox', { name: 'Suchen' }).fill('Müller');
      await page.getByText('Suche nach „Müller“ läuft…').waitFor();
      await expect.poll(() => list().locator('tbody tr').count(), { timeout: 10_000 }).toBe(1);
      await page.getByText('Suche nach „Müller“ läuft…').waitFor({ state: 'detached' });
    } finally {
      await page.unrouteAll({ behavior: 'ignoreErrors' });
    }
    await page.getByRole('searchbox', { name: 'Suchen' }).fill('nichts dergleichen');
    await page.getByText('Keine Buchungen gefunden.').waitFor();
    expect(await englishOnScreen(page, SECTIONS)).toEqual([]);
    await page.getByRole('searchbox', { name: 'Suchen' }).fill('');
    await expect.poll(() => list().locator('tbody tr').count()).toBe(3);
  });

  it('delete asks and confirms in German, and Undo is "Rückgängig"', async () => {
    const asked = answerNext(page, true);
    await page.getByRole('button', { name: 'Beitrag Anna löschen' }).click();
    expect(await asked).toMatch(/^„Beitrag Anna“ vom 12\. Januar \d{4} löschen\?$/);
    await page.getByText('„Beitrag Anna“ gelöscht.').waitFor();
    expect(await englishOnScreen(page, SECTIONS)).toEqual([]);
    await page.getByRole('button', { name: 'Rückgängig' }).click();
    await expect.poll(() => list().locator('tbody tr').count()).toBe(3);
  });

  it('the list of one account is named in German and links back to every transaction', async () => {
    await page.goto(`${s.web}/transactions?account_id=${ids.Girokonto}`);
    const onGiro = page.getByRole('table', { name: 'Buchungen auf Girokonto' });
    await expect.poll(() => onGiro.locator('tbody tr td:nth-child(2)').allTextContents()).toEqual(['Saalmiete Januar']);
    await page.getByText('Nur die Buchungen auf Girokonto.').waitFor();
    expect(await englishOnScreen(page, SECTIONS)).toEqual([]);
    await page.getByRole('link', { name: 'Alle Buchungen zeigen' }).click();
    await expect.poll(() => list().locator('tbody tr').count()).toBe(3);
  });

  it('the printed list: title and totals in German, "3 Buchungen" and "1 Buchung"', async () => {
    await page.evaluate(() => {
      window.print = () => document.body.setAttribute('data-printed', String(Date.now()));
    });
    const printed = page.getByRole('region', { name: 'Gedruckte Liste' });
    const printAndRead = async () => {
      await page.evaluate(() => document.body.removeAttribute('data-printed'));
      await page.getByRole('button', { name: 'Liste drucken' }).click();
      await expect.poll(() => page.locator('body').getAttribute('data-printed')).not.toBeNull();
      await page.emulateMedia({ media: 'print' });
      try {
        return {
          title: (await printed.locator('.print-title').textContent())!,
          head: await printed.locator('thead th').allTextContents(),
          totals: await printed.locator('tr.total').allTextContents(),
          english: await englishOnScreen(page, SECTIONS),
        };
      } finally {
        await page.emulateMedia({ media: 'screen' });
      }
    };
    const all = await printAndRead();
    expect(all.title).toBe('Kassenbuch des Vereins — Buchungen des gesamten Zeitraums');
    expect(all.head).toEqual(['Datum', 'Beschreibung', 'Vorgang', 'Betrag']);
    expect(all.totals[0]).toMatch(/^3 Buchungen: .+30,00\s€$/);
    expect(all.english).toEqual([]);

    await page.getByRole('searchbox', { name: 'Suchen' }).fill('Müller');
    await expect.poll(() => list().locator('tbody tr').count()).toBe(1);
    await page.getByLabel('Von', { exact: true }).fill(`${YEAR}-01-01`);
    await page.getByLabel('Bis', { exact: true }).fill(`${YEAR}-01-31`);
    await expect.poll(() => page.getByRole('button', { name: 'Liste drucken' }).isEnabled()).toBe(true);
    const one = await printAndRead();
    expect(one.title).toBe(`Kassenbuch des Vereins — Buchungen vom 1. Januar ${YEAR} bis 31. Januar ${YEAR}, passend zu „Müller“`);
    expect(one.totals[0]).toMatch(/^1 Buchung: .+0,00\s€$/);
    expect(one.english).toEqual([]);
  });
});
