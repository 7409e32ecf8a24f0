import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { englishOnScreen } from './support/i18n-walk';
import { missingBrowserPrerequisite, openWebSession, STRICT_BROWSER, type WebSession } from './support/web-session';

// Issue 38 (D29, D16, D20): the Import page in German for a German browser — the statement form,
// a German bank's CSV (a preamble, ";", 1.234,56) and its mapping, the preview with German plurals
// ("4 neue Zeilen" / "1 neue Zeile"), a rule added in place, a duplicate's note, a line at fault,
// the question about dates that fit two formats, the import's result, and a camt.053 statement's
// balance check ("Laut Bank … ✓ stimmt überein") with a hand entry linked, imported and
// reconciled — with no English sentence of the catalogue on screen at any step.
// `UPDATE_SCREENSHOTS=1` writes docs/screenshots/import-preview-de.png.

const ARTIFACTS = path.resolve('test-artifacts/web');
const DOCS = path.resolve('docs/screenshots');
const EMAIL = 'kassenwart@deutsch-import.example';
const PASSWORD = 'ein Passwort des Kassenwarts';
const FIXTURES = path.resolve('tests/fixtures/imports');
/** The sections whose English sentences must not show on a German Import page. */
const SECTIONS = ['import', 'common', 'nav'];

const missing = missingBrowserPrerequisite();
if (missing && !STRICT_BROWSER) console.warn(`web-german-import.test.ts skipped: ${missing}`);

/** A German bank's export, as tests/web-import.test.ts has it: a preamble, ";", DD.MM.YYYY, 1.234,56. */
const germanCsv = (...rows: string[]) =>
  [
    'Kontoinhaber;Sportverein Beispiel e.V.',
    'IBAN;DE02120300000000202051',
    '',
    'Buchungstag;Verwendungszweck;Betrag',
    '02.03.2026;Hallenmiete März;-120,00',
    '03.03.2026;Mitgliedsbeitrag Sam;30,00',
    '05.03.2026;"Trikots; Bestellung";-1.250,50',
    '09.03.2026;HALLENMIETE Kaution;-50,00',
    ...rows,
  ].join('\r\n') + '\r\n';

describe.skipIf(missing !== null && !STRICT_BROWSER)('the Import page in German (issue 38, D29, D16)', () => {
  let s: WebSession;
  let page: Page;
  const ids: Record<string, number> = {};

  const field = (label: string) => page.getByLabel(new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  const choose = (label: string, option: string) => field(label).selectOption({ label: option });
  const statementFile = (name: string, content: string) => ({ name, mimeType: 'text/csv', buffer: Buffer.from(content, 'utf8') });
  const readFile = async (file: string | { name: string; mimeType: string; buffer: Buffer }) => {
    await field('Auszugsdatei').setInputFiles(file);
    await page.getByText(`„${typeof file === 'string' ? path.basename(file) : file.name}“ scheint im Format`).waitFor();
  };
  /** The Import page opened afresh (by way of another page: a page is new each time it is opened). */
  const openImport = async () => {
    await s.go('Buchungen', 'Buchungen');
    await s.go('Import', 'Kontoauszug importieren');
  };
  const preview = () => page.getByRole('region', { name: 'Vorschau' });
  const summary = () => preview().getByRole('status').textContent();
  const previewTable = () => page.getByRole('table', { name: 'Zeilen des Auszugs' });
  const previewRow = (description: string) =>
    previewTable().getByRole('row').filter({ has: page.getByRole('cell', { name: description, exact: true }) }).getByRole('cell').allTextContents();
  const result = () => page.locator('.result[role="status"]');
  /** Money as the German page writes it, its spaces (no-break or not) as plain ones. */
  const plain = (text: string | null) => (text ?? '').replace(/\s/g, ' ');
  const noEnglish = async (step: string) => expect(await englishOnScreen(page, SECTIONS), step).toEqual([]);

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    mkdirSync(ARTIFACTS, { recursive: true });
    s = await openWebSession({ prefix: 'ledger-web-german-import-', email: EMAIL, password: PASSWORD, locale: 'de-DE' });
    page = s.page;
    expect((await s.call('PUT', '/settings', { book_style: 'club' })).status).toBe(200);
    // The app reads the book style when it starts: a club's words from here on (D12).
    await page.reload();
    await page.locator('main h1').waitFor();
    for (const [name, kind] of [
      ['Girokonto', 'asset'],
      ['Vereinskonto', 'asset'],
      ['Tagesgeld', 'asset'],
      ['Kreditkarte', 'liability'],
      ['Ungeordnet', 'expense'],
      ['Hallenmiete', 'expense'],
      ['Mitgliedsbeiträge', 'income'],
      ['Anfangsbestände', 'equity'],
    ] as const) {
      const res = await s.call('POST', '/accounts', { name, kind });
      expect(res.status).toBe(201);
      ids[name] = res.body.id;
    }
  }, 180_000);

  afterAll(async () => {
    await s?.close();
    if (process.env.UPDATE_SCREENSHOTS) copyFileSync(path.join(ARTIFACTS, 'import-preview-de.png'), path.join(DOCS, 'import-preview-de.png'));
  });

  it('issue 38 (D29, D16): a German bank CSV mapped, previewed with German plurals, a rule added, imported; again a duplicate is noted — all in German', async () => {
    await s.go('Import', 'Kontoauszug importieren');
    expect(await page.title()).toBe('Kontoauszug importieren — Ledger');
    await page.getByText('Die Zeilen eines Konto- oder Kreditkartenauszugs').waitFor();
    await page.getByRole('heading', { level: 2, name: 'Regeln' }).waitFor();
    await page.getByText('Noch keine Regeln.').waitFor();
    await noEnglish('the empty form');

    await choose('Konto des Auszugs', 'Girokonto');
    await choose('Gegenkonto für Zeilen ohne passende Regel', 'Ungeordnet');
    await readFile(statementFile('umsaetze-maerz.csv', germanCsv()));
    // The mapping is guessed from the file: its preamble skipped, its columns, ";" and the decimal comma.
    const mapping = page.getByRole('group', { name: 'Spalten der CSV-Datei' });
    await mapping.waitFor();
    await page.getByText('Diese Angaben werden in diesem Browser für Girokonto gespeichert und beim nächsten Mal vorausgefüllt.').waitFor();
    expect(await field('Zeilen vor der Kopfzeile überspringen').inputValue()).toBe('3');
    expect(await field('Spalte für das Datum').inputValue()).toBe('Buchungstag');
    expect(await field('Spalte für den Buchungstext').inputValue()).toBe('Verwendungszweck');
    expect(await field('Spalte für den Betrag').inputValue()).toBe('Betrag');
    expect(await field('Dezimaltrennzeichen').locator('option:checked').textContent()).toBe('Komma (1234,56)');
    expect(await field('Trennzeichen').locator('option:checked').textContent()).toBe('Erkennen (Semikolon ;)');
    expect(await field('Datumsformat').locator('option:checked').textContent()).toBe('Aus der Datei erkennen');
    const sample = page.getByRole('table', { name: 'Erste Zeilen der Datei' });
    expect(await sample.getByRole('row').nth(3).getByRole('cell').allTextContents()).toEqual(['05.03.2026', 'Trikots; Bestellung', '-1.250,50']);
    expect(await mapping.getByRole('radio', { name: 'Eine Spalte (Ausgaben negativ)' }).isChecked()).toBe(true);
    await noEnglish('the CSV mapping');

    await page.getByRole('button', { name: 'Vorschau', exact: true }).click();
    await expect.poll(summary).toBe('4 neue Zeilen, 0 bereits importiert und 0 Fehler');
    expect(await previewTable().locator('thead th').allTextContents()).toEqual(['Zeile', 'Datum', 'Buchungstext', 'Einnahme', 'Ausgabe', 'Gegenkonto', 'Hinweis']);
    expect((await previewRow('Hallenmiete März')).map(plain)).toEqual(['5', '2. März 2026', 'Hallenmiete März', '', '120,00 €', 'Ungeordnet', '']);
    expect((await previewRow('Trikots; Bestellung')).map(plain)).toEqual(['7', '5. März 2026', 'Trikots; Bestellung', '', '1.250,50 €', 'Ungeordnet', '']);

    // A rule added in place: the preview follows, its note in German.
    await field('Suchmuster').fill('Halle');
    await field('Buchen auf').selectOption({ label: 'Hallenmiete' });
    await page.getByRole('button', { name: 'Regel hinzufügen' }).click();
    await page.getByText('„Halle“ → Hallenmiete').waitFor();
    expect(await page.getByRole('button', { name: 'Regel Halle löschen' }).textContent()).toBe('Löschen');
    await expect.poll(async () => (await previewRow('HALLENMIETE Kaution'))[6]).toBe('Regel: Halle → Hallenmiete');
    expect(await page.getByRole('button', { name: '4 Buchungen importieren' }).isEnabled()).toBe(true);
    await noEnglish('the preview with a rule');
    await page.screenshot({ path: path.join(ARTIFACTS, 'import-preview-de.png'), fullPage: true });

    await page.getByRole('button', { name: '4 Buchungen importieren' }).click();
    await expect.poll(() => result().getByRole('paragraph').first().textContent()).toBe('4 Buchungen importiert.');
    expect(await result().getByRole('link').textContent()).toBe('Auf der Seite „Buchungen“ ansehen');
    await noEnglish('the result');

    // A week later, one line more: German singular for one new line, a duplicate's note.
    await openImport();
    await readFile(statementFile('umsaetze-maerz-2.csv', germanCsv('12.03.2026;Mitgliedsbeitrag Alex;30,00')));
    await page.getByRole('button', { name: 'Vorschau', exact: true }).click();
    await expect.poll(summary).toBe('1 neue Zeile, 4 bereits importiert und 0 Fehler');
    expect((await previewRow('Mitgliedsbeitrag Sam'))[6]).toBe('bereits importiert, ausgelassen');
    expect((await previewRow('HALLENMIETE Kaution'))[6]).toBe('Regel: Halle → Hallenmiete; bereits importiert, ausgelassen');
    await noEnglish('a preview with duplicates');
    await page.getByRole('button', { name: '1 Buchung importieren' }).click();
    await expect.poll(() => result().getByRole('paragraph').first().textContent()).toBe('1 Buchung importiert; 4 waren bereits vorhanden.');
    await noEnglish('the result with duplicates');
  });

  it('issue 38 (D29, D16): a line at fault is named as „Zeile N“, nothing can be imported; dates that fit two formats are asked about in German', async () => {
    await openImport();
    await choose('Konto des Auszugs', 'Tagesgeld');
    await choose('Gegenkonto für Zeilen ohne passende Regel', 'Ungeordnet');
    const bad = ['Buchungstag;Verwendungszweck;Betrag', '01.06.2026;Gut;-1,00', '31.06.2026;Falsches Datum;-1,00', '02.06.2026;Auch gut;-2,00'].join('\n');
    await readFile(statementFile('fehler.csv', bad));
    await page.getByRole('button', { name: 'Vorschau', exact: true }).click();
    await expect.poll(summary).toBe('2 neue Zeilen, 0 bereits importiert und 1 Fehler');
    expect(await preview().getByRole('alert').textContent()).toMatch(/^Zeile 3: /);
    expect(await page.getByRole('button', { name: '2 Buchungen importieren' }).isDisabled()).toBe(true);
    await page.getByText('Solange eine Zeile nicht gebucht werden kann, wird nichts importiert').waitFor();
    await noEnglish('a line at fault');

    // Dates whose days are all 12 or less, with "/": the file's dates read both ways, in German words.
    const slashes = ['Datum;Text;Betrag', '03/04/2026;Miete;-10,00', '11/05/2026;Beitrag;20,00'].join('\n');
    await readFile(statementFile('zweideutig.csv', slashes));
    await page.getByRole('button', { name: 'Vorschau', exact: true }).click();
    const choice = page.getByRole('group', { name: 'Wie sind die Datumsangaben der Datei gemeint?' });
    await choice.waitFor();
    expect(await choice.getByRole('listitem').allTextContents()).toEqual(['03/04/2026 → 3. April 2026 oder 4. März 2026?', '11/05/2026 → 11. Mai 2026 oder 5. November 2026?']);
    await noEnglish('the question about dates');
    await choice.getByRole('button', { name: /^Tag zuerst \(DD\/MM\/YYYY\): 3\. April 2026, 11\. Mai 2026$/ }).click();
    await expect.poll(summary).toBe('2 neue Zeilen, 0 bereits importiert und 0 Fehler');
    expect((await previewRow('Beitrag'))[1]).toBe('11. Mai 2026');
  });

  it('issue 38 (D29, D16, D20): a camt.053 statement with a hand entry linked: the balance check in German, „✓ stimmt überein“; import and reconcile', async () => {
    const book = async (occurred_on: string, description: string, cents: number, other: string) =>
      expect(
        (await s.post('/transactions', { occurred_on, description, entries: [{ account_id: ids['Vereinskonto']!, amount_cents: cents }, { account_id: ids[other]!, amount_cents: -cents }] }))
          .status,
      ).toBe(201);
    await book('2026-02-28', 'Anfangsbestand', 250000, 'Anfangsbestände');
    await book('2026-03-03', 'Beitrag 2026 Anna Schmidt', 6000, 'Mitgliedsbeiträge');

    await openImport();
    await choose('Konto des Auszugs', 'Vereinskonto');
    await choose('Gegenkonto für Zeilen ohne passende Regel', 'Ungeordnet');
    await readFile(path.join(FIXTURES, 'camt053-001-08-balances.xml'));
    expect(await field('Format').inputValue()).toBe('camt053');
    expect(await page.getByRole('group', { name: 'Spalten der CSV-Datei' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Vorschau', exact: true }).click();
    await expect.poll(summary).toBe('2 neue Zeilen, 0 bereits importiert, 1 bereits gebucht und 0 Fehler');
    const link = previewTable().getByRole('checkbox', { name: 'bereits gebucht: verknüpfen' });
    expect(await link.isChecked()).toBe(true);
    await expect.poll(async () => (await previewRow('Anna Schmidt — Mitgliedsbeitrag 2026'))[6]).toContain('von Hand erfasst: Beitrag 2026 Anna Schmidt, 3. März 2026');
    const check = page.locator('.balance-check');
    expect(plain(await check.textContent())).toMatch(/^Laut Bank am 31\. März 2026: 2\.548,15 €; laut Buchhaltung nach diesem Import: 2\.548,15 € ✓ stimmt überein \(Anfangssaldo des Auszugs am /);
    await noEnglish('the camt preview, agreeing');
    // Unticked, the line would be booked twice: the difference in German.
    await link.uncheck();
    expect(plain(await check.textContent())).toMatch(/laut Buchhaltung nach diesem Import: 2\.608,15 €: 60,00 € Differenz/);
    expect(await page.getByRole('button', { name: 'Importieren und abgleichen' }).count()).toBe(0);
    await noEnglish('the camt preview, apart');
    await link.check();
    expect(await page.getByRole('button', { name: '2 Buchungen importieren, 1 Zeile verknüpfen' }).isEnabled()).toBe(true);

    await page.getByRole('button', { name: 'Importieren und abgleichen' }).click();
    await expect.poll(() => result().textContent()).toContain('Vereinskonto ist bis zum 31. März 2026 abgeglichen.');
    expect(await result().getByRole('paragraph').first().textContent()).toBe('2 Buchungen importiert; 1 Zeile mit einer von Hand erfassten Buchung verknüpft.');
    await noEnglish('imported and reconciled');

    // Reconciled through Mar 31: a CSV line of March on the same account is warned of, above the lines and on its own.
    await openImport();
    await choose('Konto des Auszugs', 'Vereinskonto');
    await readFile(statementFile('nachtrag.csv', ['Buchungstag;Verwendungszweck;Betrag', '20.03.2026;Nachtrag Getränke;-15,00', '02.04.2026;Spende Bäckerei;40,00'].join('\n')));
    await page.getByRole('button', { name: 'Vorschau', exact: true }).click();
    await expect.poll(summary).toBe('2 neue Zeilen, 0 bereits importiert und 0 Fehler');
    await expect
      .poll(() => page.locator('.warning').textContent())
      .toBe('1 Zeile liegt in einem bereits abgeglichenen Zeitraum (bis 31. März 2026): Wird sie importiert, ändert sich ein abgeglichener Saldo.');
    expect((await previewRow('Nachtrag Getränke'))[6]).toBe('⚠ in einem bereits abgeglichenen Zeitraum');
    expect((await previewRow('Spende Bäckerei'))[6]).toBe('');
    await noEnglish('a line in a reconciled period');

    // The plain camt.053 fixture (no balances) on another account: its four lines, no balance check.
    await openImport();
    await choose('Konto des Auszugs', 'Tagesgeld');
    await readFile(path.join(FIXTURES, 'camt053-001-08.xml'));
    await page.getByRole('button', { name: 'Vorschau', exact: true }).click();
    await expect.poll(summary).toBe('4 neue Zeilen, 0 bereits importiert und 0 Fehler');
    expect((await previewRow('Alex Beispiel — Mitgliedsbeitrag April')).map(plain)).toEqual(['1', '1. April 2026', 'Alex Beispiel — Mitgliedsbeitrag April', '25,00 €', '', 'Ungeordnet', '']);
    expect(await page.locator('.balance-check').count()).toBe(0);
    await noEnglish('a camt preview without balances');
  });

  it('issue 38 (D29, D16, D6, D12): a card statement\'s balance is said as what the club owes, by the card company, in German', async () => {
    await openImport();
    await choose('Konto des Auszugs', 'Kreditkarte');
    await choose('Gegenkonto für Zeilen ohne passende Regel', 'Ungeordnet');
    await readFile(path.join(FIXTURES, 'ofx-2-xml.ofx'));
    expect(await field('Format').locator('option:checked').textContent()).toBe('OFX oder QFX');
    await page.getByRole('button', { name: 'Vorschau', exact: true }).click();
    await expect.poll(summary).toBe('3 neue Zeilen, 0 bereits importiert und 0 Fehler');
    expect(plain(await page.locator('.balance-check').textContent())).toBe(
      'Laut Kreditkartenunternehmen am 28. Februar 2026: der Verein schuldet 79,40 €; laut Buchhaltung nach diesem Import: der Verein schuldet 79,40 € ✓ stimmt überein',
    );
    await noEnglish('a card statement');
  });

  it('ran without server faults or Content-Security-Policy violations', () => {
    expect(s.faults).toEqual([]);
    expect(s.violations).toEqual([]);
  });
});
