import { deflateSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays as addDaysInRange } from '../src/book/occurrences';
import { englishOnScreen } from './support/i18n-walk';
import { message, missingBrowserPrerequisite, openWebSession, STRICT_BROWSER, type WebSession } from './support/web-session';

// Issue 38 (D29) in chromium, a browser in de-DE: the Schedules page (the list, the form made new
// and opened for a schedule that posts and one that reminds, its preview with German plurals:
// "1 Termin …", "3 Termine … Alle 3 werden …", "Mehr als 1.000 …", "Alle 2 Monate"), its questions
// and notices; a transaction's receipts (a PNG and a PDF added, the full-size dialog, an empty file
// and a file of another kind refused in German, one removed, the list's paperclip "2 Belege" /
// "1 Beleg", sizes with a German decimal comma). On each, no English sentence of the schedules,
// receipts, common or nav catalogue is on the screen.

const EMAIL = 'kassenwart@example.com';
const PASSWORD = 'ein Passwort der Kasse';
const SECTIONS = ['schedules', 'receipts', 'common', 'nav'];

const missing = missingBrowserPrerequisite();
if (missing && !STRICT_BROWSER) console.warn(`web-german-schedules.test.ts skipped: ${missing}`);

/** Today where the browser is (Europe/Berlin), as the web app counts it. */
const TODAY = new Date().toLocaleDateString('en-CA', { timeZone: 'Europe/Berlin' });
const addDays = (date: string, days: number) => addDaysInRange(date, days)!;
/** A date as the web app shows it in German ("3. März 2026"). */
const shown = (isoDate: string) => new Date(`${isoDate}T00:00:00Z`).toLocaleDateString('de-DE', { timeZone: 'UTC', dateStyle: 'long' });
/** A date with its weekday, as the German schedule preview shows it ("Fr., 31. Januar 2027"). */
const dayShown = (isoDate: string) =>
  new Date(`${isoDate}T00:00:00Z`).toLocaleDateString('de-DE', { timeZone: 'UTC', weekday: 'short', year: 'numeric', month: 'long', day: 'numeric' });
const de = (key: string) => message('de', key);

/** CRC-32 of PNG chunks (ISO 3309). */
function crc32(bytes: Buffer): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

/** A real PNG of `width` × `height` pixels. */
function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) rows.set([(x * 255) / width, (y * 255) / height, 128], y * (width * 3 + 1) + 1 + x * 3);
  }
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

const TILL = png(300, 200);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

describe.skipIf(missing !== null && !STRICT_BROWSER)('issue 38 (D29): schedules and receipts in German, in chromium (de-DE)', () => {
  let s: WebSession;
  let page: Page;
  const ids: Record<string, number> = {};
  let lunch = 0;
  /** Answers the next window.confirm (accepting it or not) and resolves to its question. */
  const answerNext = (accept: boolean) =>
    new Promise<string>((resolve) =>
      page.once('dialog', (dialog) => {
        resolve(dialog.message());
        void (accept ? dialog.accept() : dialog.dismiss());
      }),
    );
  const noEnglish = async () => expect(await englishOnScreen(page, SECTIONS)).toEqual([]);
  const openSchedules = async () => {
    await page.goto(`${s.web}/schedules`);
    await page.getByRole('heading', { name: 'Wiederkehrende Buchungen', level: 1 }).waitFor();
  };

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    s = await openWebSession({ prefix: 'ledger-web-german-schedules-', email: EMAIL, password: PASSWORD, locale: 'de-DE' });
    page = s.page;
    expect(s.language).toBe('de');
    for (const [name, kind] of [['Girokonto', 'asset'], ['Eröffnung', 'equity'], ['Miete', 'expense'], ['Taschengeld', 'expense']] as const) {
      ids[name] = (await s.post('/accounts', { name, kind })).body.id;
    }
    const made = await s.post('/transactions', {
      occurred_on: addDays(TODAY, -3),
      description: 'Mittagessen',
      entries: [{ account_id: ids.Taschengeld, amount_cents: 1_250 }, { account_id: ids.Girokonto, amount_cents: -1_250 }],
    });
    expect(made.status).toBe(201);
    lunch = made.body.id;
    const hall = await s.post('/schedules', {
      description: 'Hallenmiete',
      entries: [{ account_id: ids.Miete, amount_cents: 12_000 }, { account_id: ids.Girokonto, amount_cents: -12_000 }],
      start_on: addDays(TODAY, 10),
      every: 'month',
      interval: 2,
      mode: 'post',
    });
    expect(hall.status).toBe(201);
    // A reminder of every week, its first three dates today or past: none handled yet.
    const pocket = await s.post('/schedules', {
      description: 'Taschengeld',
      entries: [{ account_id: ids.Taschengeld, amount_cents: 500 }, { account_id: ids.Girokonto, amount_cents: -500 }],
      start_on: addDays(TODAY, -14),
      every: 'week',
      mode: 'remind',
    });
    expect(pocket.status).toBe(201);
  }, 180_000);

  afterAll(async () => {
    await s?.close();
  });

  it('the Schedules page and its list speak German: title, how often with a plural ("Alle 2 Monate"), posts or reminds', async () => {
    await openSchedules();
    expect(await page.title()).toBe('Wiederkehrende Buchungen — Ledger');
    await page.getByText('Was regelmäßig wiederkommt: Miete, Mitgliedsbeiträge, ein Abonnement.', { exact: false }).waitFor();
    const table = page.getByRole('table', { name: 'Alle wiederkehrenden Buchungen' });
    expect((await table.getByRole('columnheader').allTextContents()).slice(0, 4)).toEqual(['Nächster Termin', 'Beschreibung', 'Wie oft', 'Angelegt von']);
    const hall = table.getByRole('row').filter({ hasText: 'Hallenmiete' });
    expect((await hall.getByRole('cell').allTextContents())[2]).toBe(`Alle 2 Monate ab ${shown(addDays(TODAY, 10))}; bucht automatisch`);
    const pocket = table.getByRole('row').filter({ hasText: 'Taschengeld' });
    expect((await pocket.getByRole('cell').allTextContents())[2]).toBe(`Jede Woche ab ${shown(addDays(TODAY, -14))}; erinnert Sie`);
    await page.getByRole('button', { name: 'Wiederkehrende Buchung Hallenmiete ändern' }).waitFor();
    await noEnglish();
  });

  it('the new form in German: units in the singular and plural, the preview with "1 Termin" and "3 Termine … Alle 3", reminders waiting, "Mehr als 1.000"', async () => {
    await openSchedules();
    await page.getByRole('button', { name: 'Wiederkehrende Buchung einrichten' }).click();
    const form = page.getByRole('form', { name: 'Neue wiederkehrende Buchung' });
    const unit = form.getByLabel('Wochen, Monate oder Jahre');
    expect(await unit.locator('option').allTextContents()).toEqual(['Woche', 'Monat', 'Jahr']);
    await form.getByLabel('Alle', { exact: true }).fill('2');
    await expect.poll(() => unit.locator('option').allTextContents()).toEqual(['Wochen', 'Monate', 'Jahre']);
    await form.getByLabel('Alle', { exact: true }).fill('1');
    await unit.selectOption('week');
    const preview = form.locator('.schedule-preview');

    // Today: one date due, in the singular.
    await form.getByLabel('Erster Termin').fill(TODAY);
    await preview.getByText(`1 Termin ist heute oder liegt schon zurück (${shown(TODAY)}): Er wird beim Speichern sofort gebucht.`).waitFor();
    await expect.poll(() => preview.textContent()).toContain(`Nächste Termine: ${dayShown(addDays(TODAY, 7))}, dann ${shown(addDays(TODAY, 14))}, ${shown(addDays(TODAY, 21))}, ${shown(addDays(TODAY, 28))} …`);

    // Two weeks ago: three, in the plural, listed with "und".
    const start = addDays(TODAY, -14);
    await form.getByLabel('Erster Termin').fill(start);
    const three = `(${shown(start)}, ${shown(addDays(start, 7))} und ${shown(TODAY)})`;
    await preview.getByText(`3 Termine sind heute oder liegen schon zurück ${three}: Alle 3 werden beim Speichern sofort gebucht.`).waitFor();
    await noEnglish();
    await form.getByLabel('Mich erinnern (auf der Startseite buchen oder überspringen)').check();
    await preview.getByText(`3 Termine sind heute oder liegen schon zurück ${three}: sie stehen auf der Startseite zum Buchen oder Überspringen bereit.`).waitFor();

    // D21's bound in German figures.
    const ancient = addDays(TODAY, -7 * 1000);
    await form.getByLabel('Erster Termin').fill(ancient);
    await preview.getByText(`Mehr als 1.000 Termine ab dem ${shown(ancient)} sind heute oder liegen schon zurück: sie stehen auf der Startseite zum Buchen oder Überspringen bereit.`).waitFor();
    await form.getByLabel('Automatisch buchen').check();
    await preview
      .getByText(`Mehr als 1.000 Termine ab dem ${shown(ancient)} sind heute oder liegen schon zurück: Eine wiederkehrende Buchung, die automatisch bucht, kann höchstens 1.000 auf einmal buchen.`, { exact: false })
      .waitFor();
    // Nothing to post, nothing to name: asked for a description first, in German.
    await form.getByRole('button', { name: 'Wiederkehrende Buchung anlegen' }).waitFor();
    await noEnglish();
    await form.getByRole('button', { name: 'Abbrechen' }).click();
    await form.waitFor({ state: 'detached' });
  });

  it('a reminder opened and made to post asks in German with a plural, and says so when declined; a schedule saved and deleted say so in German', async () => {
    await openSchedules();
    await page.getByRole('button', { name: 'Wiederkehrende Buchung Taschengeld ändern' }).click();
    const form = page.getByRole('form', { name: 'Wiederkehrende Buchung Taschengeld ändern' });
    await page.getByRole('heading', { name: '„Taschengeld“ ändern' }).waitFor();
    expect(await form.getByLabel('Mich erinnern (auf der Startseite buchen oder überspringen)').isChecked()).toBe(true);
    const start = addDays(TODAY, -14);
    await form.getByLabel('Automatisch buchen').check();
    await form.locator('.schedule-preview').getByText('Alle 3 werden beim Speichern sofort gebucht.', { exact: false }).waitFor();
    const asked = answerNext(false);
    await form.getByRole('button', { name: 'Änderungen speichern' }).click();
    expect(await asked).toBe(`3 Termine, vom ${shown(start)} bis zum ${shown(TODAY)}, sind heute oder liegen schon zurück: Alle 3 werden sofort gebucht. Wiederkehrende Buchung speichern?`);
    await form.getByRole('alert').filter({ hasText: 'Nicht gespeichert, es wurde nichts gebucht. Ändern Sie den ersten Termin oder wählen Sie „Mich erinnern“.' }).waitFor();
    await noEnglish();
    await form.getByRole('button', { name: 'Abbrechen' }).click();

    // The two-monthly one, saved as it is: its notice in German.
    await page.getByRole('button', { name: 'Wiederkehrende Buchung Hallenmiete ändern' }).click();
    const hall = page.getByRole('form', { name: 'Wiederkehrende Buchung Hallenmiete ändern' });
    expect(await hall.getByLabel('Alle', { exact: true }).inputValue()).toBe('2');
    expect(await hall.getByLabel('Wochen, Monate oder Jahre').locator('option:checked').textContent()).toBe('Monate');
    await hall.getByRole('button', { name: 'Änderungen speichern' }).click();
    await page.getByRole('status').filter({ hasText: `Die wiederkehrende Buchung „Hallenmiete“ ist gespeichert: alle 2 Monate, nächster Termin am ${shown(addDays(TODAY, 10))}.` }).waitFor();
    await noEnglish();

    const deleting = answerNext(true);
    await page.getByRole('button', { name: 'Wiederkehrende Buchung Taschengeld löschen' }).click();
    expect(await deleting).toBe('Die wiederkehrende Buchung „Taschengeld“ löschen? Was sie bereits gebucht hat, bleibt in den Büchern.');
    await page.getByRole('status').filter({ hasText: 'Die wiederkehrende Buchung „Taschengeld“ ist gelöscht.' }).waitFor();
    await noEnglish();
  });

  it('a transaction’s receipts in German: a PNG and a PDF added, the full-size dialog, an empty file and an SVG refused, one removed; "2 Belege" and "1 Beleg"', async () => {
    const transactions = de('transactions.title');
    await page.goto(`${s.web}/transactions`);
    await page.getByRole('heading', { name: transactions, level: 1 }).waitFor();
    await page.getByRole('button', { name: de('transactions.list.editLabel').replace('{{description}}', 'Mittagessen'), exact: true }).click();
    const receipts = page.getByRole('region', { name: 'Belege zu „Mittagessen“' });
    await receipts.getByText('Noch kein Beleg: Fügen Sie ein Foto des Kassenbons oder der Rechnung hinzu.').waitFor();
    await receipts.getByRole('button', { name: 'Beleg hinzufügen', exact: true }).waitFor();
    await noEnglish();

    const input = receipts.locator('input[type=file]');
    await input.setInputFiles({ name: 'kassenbon.png', mimeType: 'image/png', buffer: TILL });
    await expect.poll(() => receipts.getByRole('status').textContent()).toBe('„kassenbon.png“ hinzugefügt.');
    // The size with a German decimal comma, in units of 1,024.
    const kb = `${new Intl.NumberFormat('de-DE', { maximumFractionDigits: 1 }).format(TILL.length / 1024)} KB`;
    expect(kb).toMatch(/,\d KB$/);
    await receipts.getByText(kb, { exact: true }).waitFor();

    const tile = receipts.getByRole('button', { name: 'kassenbon.png in voller Größe zeigen' });
    await tile.locator('img').waitFor();
    await tile.click();
    const dialog = page.getByRole('dialog', { name: 'kassenbon.png' });
    await dialog.getByRole('img', { name: 'Der Beleg kassenbon.png' }).waitFor();
    await dialog.getByRole('button', { name: 'Herunterladen' }).waitFor();
    await noEnglish();
    await dialog.getByRole('button', { name: 'Schließen' }).click();
    await dialog.waitFor({ state: 'hidden' });

    await input.setInputFiles({ name: 'rechnung.pdf', mimeType: 'application/pdf', buffer: PDF });
    const pdf = receipts.getByRole('button', { name: 'rechnung.pdf öffnen (PDF, wird heruntergeladen)' });
    await pdf.waitFor();
    expect(await pdf.textContent()).toBe('PDF');
    await receipts.getByText(`${PDF.length} Bytes`, { exact: true }).waitFor();

    // Refused before anything is sent: an empty file, and a file of another kind.
    await input.setInputFiles([
      { name: 'leer.pdf', mimeType: 'application/pdf', buffer: Buffer.alloc(0) },
      { name: 'zeichnung.svg', mimeType: 'image/svg+xml', buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') },
    ]);
    await expect.poll(() => receipts.getByRole('alert').allTextContents()).toEqual([
      '„leer.pdf“ wurde nicht hinzugefügt: Die Datei ist leer (0 Bytes). Scannen oder speichern Sie sie erneut und fügen Sie sie dann hinzu.',
      '„zeichnung.svg“ wurde nicht hinzugefügt: Ein Beleg kann nur Fotos (JPEG, PNG, WebP, GIF, HEIC) und PDF-Dateien sein.',
    ]);
    expect(((await s.call('GET', `/transactions/${lunch}/attachments`)).body as { name: string }[]).map((a) => a.name)).toEqual(['kassenbon.png', 'rechnung.pdf']);
    await noEnglish();

    // The list's paperclip counts them in German, in the plural.
    const list = page.getByRole('table', { name: de('transactions.listHeading') });
    await expect.poll(() => list.getByRole('button', { name: '2 Belege', exact: true }).count()).toBe(1);

    const asked = answerNext(true);
    await receipts.getByRole('button', { name: 'Beleg kassenbon.png entfernen' }).click();
    expect(await asked).toBe('Den Beleg „kassenbon.png“ von „Mittagessen“ entfernen?');
    await expect.poll(() => receipts.getByRole('status').textContent()).toBe('„kassenbon.png“ entfernt.');
    await expect.poll(() => list.getByRole('button', { name: '1 Beleg', exact: true }).count()).toBe(1);
    await noEnglish();
    expect(s.faults).toEqual([]);
    expect(s.violations).toEqual([]);
  });
});
