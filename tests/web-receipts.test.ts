import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingBrowserPrerequisite, openWebSession, STRICT_BROWSER, type WebSession } from './support/web-session';

// D22 in the web app (issue 28 items 1 and 2), in chromium at 390 px against `ledger serve` on the
// embedded database: "Add receipt" on an opened transaction through the file chooser as the
// camera would fill it (accept and capture checked), the thumbnail drawn in the browser, the image
// full size, a PDF downloaded, a refused file explained in plain words, a receipt removed after
// asking (checked through the API); receipts chosen on the record form sent once it is saved, with
// a progress bar; the paperclip in the list; the auditors' ZIP and change log from the annual
// report and History; Settings' storage line. Issue 36 item 4: a deleted transaction's receipts in
// History beside its Undo, removed there, and Settings' part held by deleted transactions.

const ARTIFACTS = path.resolve('test-artifacts/web-receipts');
const DOCS = path.resolve('docs/screenshots');
const EMAIL = 'treasurer@example.com';
const PASSWORD = 'a treasurer password';
const YEAR = new Date().getFullYear();

const missing = missingBrowserPrerequisite();
if (missing && !STRICT_BROWSER) console.warn(`web-receipts.test.ts skipped: ${missing}`);

/** CRC-32 of PNG chunks (ISO 3309). */
function crc32(bytes: Buffer): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

/** A real PNG of `width` × `height` pixels (an RGB gradient, like a photo of a till slip would not be). */
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

describe.skipIf(missing !== null && !STRICT_BROWSER)('receipts in chromium at 390 px (D22, issue 28 items 1 and 2)', () => {
  let s: WebSession;
  let page: Page;
  const ids: Record<string, number> = {};
  const tx: Record<string, number> = {};

  const receiptsOf = async (description: string): Promise<{ id: number; name: string; content_type: string; size: number }[]> =>
    (await s.call('GET', `/transactions/${tx[description]}/attachments`)).body;
  const region = (description: string) => page.getByRole('region', { name: `Receipts of “${description}”` });
  const row = (description: string) => page.getByRole('table', { name: 'Recorded transactions' }).getByRole('row').filter({ hasText: description });
  const noSideways = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  /** Answers the next window.confirm (accepting it or not) and resolves to its question. */
  const answerNext = (accept: boolean) =>
    new Promise<string>((resolve) =>
      page.once('dialog', (dialog) => {
        resolve(dialog.message());
        void (accept ? dialog.accept() : dialog.dismiss());
      }),
    );
  /** Downloads the file behind a button; its suggested name and bytes. */
  const downloadFrom = async (button: string) => {
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button, exact: true }).click()]);
    const saved = path.join(ARTIFACTS, file.suggestedFilename());
    await file.saveAs(saved);
    return { name: file.suggestedFilename(), bytes: readFileSync(saved) };
  };
  const openTransactions = async () => {
    await page.goto(`${s.web}/transactions`);
    await page.getByRole('heading', { name: 'Transactions', level: 1 }).waitFor();
  };

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    mkdirSync(ARTIFACTS, { recursive: true });
    s = await openWebSession({ prefix: 'ledger-web-receipts-', email: EMAIL, password: PASSWORD });
    page = s.page;
    for (const [name, kind] of [['Bank', 'asset'], ['Opening', 'equity'], ['Food', 'expense']] as const) {
      ids[name] = (await s.post('/accounts', { name, kind })).body.id;
    }
    for (const [on, description, from, to, cents] of [
      [`${YEAR}-01-01`, 'Opening the book', 'Opening', 'Bank', 100_000],
      [`${YEAR}-01-02`, 'Lunch', 'Bank', 'Food', 1_250],
    ] as const) {
      const entries = [{ account_id: ids[to], amount_cents: cents }, { account_id: ids[from], amount_cents: -cents }];
      const made = await s.post('/transactions', { occurred_on: on, description, entries });
      expect(made.status).toBe(201);
      tx[description] = made.body.id;
    }
    await page.setViewportSize({ width: 390, height: 844 });
  }, 120_000);

  afterAll(async () => {
    await s?.close();
    if (process.env.UPDATE_SCREENSHOTS) copyFileSync(path.join(ARTIFACTS, 'receipts.png'), path.join(DOCS, 'receipts.png'));
  });

  it('item 1: an opened transaction takes a receipt from the file chooser as the camera fills it; the thumbnail appears and opens full size', async () => {
    await openTransactions();
    await page.getByRole('button', { name: 'Edit Lunch' }).click();
    const receipts = region('Lunch');
    await receipts.getByText(/^No receipt yet/).waitFor();
    // The camera on a phone: any photo or a PDF, from the back camera.
    const input = receipts.locator('input[type=file]');
    expect(await input.getAttribute('accept')).toBe('image/*,application/pdf');
    expect(await input.getAttribute('capture')).toBe('environment');

    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), receipts.getByRole('button', { name: 'Add receipt', exact: true }).click()]);
    expect(chooser.isMultiple()).toBe(true);
    await chooser.setFiles({ name: 'till.png', mimeType: 'image/png', buffer: TILL });
    await expect.poll(() => receipts.getByRole('status').textContent()).toBe('Added “till.png”.');

    // Kept by the API as it was sent.
    const [kept] = await receiptsOf('Lunch');
    expect(kept).toMatchObject({ name: 'till.png', content_type: 'image/png', size: TILL.length });

    // The thumbnail: drawn from the image itself in the browser, a data: JPEG at most 160 px a side.
    const tile = receipts.getByRole('button', { name: 'Show till.png full size' });
    const thumbnail = tile.locator('img');
    await thumbnail.waitFor();
    const drawn = await thumbnail.evaluate((img: HTMLImageElement) => ({ src: img.src.slice(0, 23), width: img.naturalWidth, height: img.naturalHeight }));
    expect(drawn).toEqual({ src: 'data:image/jpeg;base64,', width: 160, height: 107 });
    expect(await noSideways()).toBe(true);
    await receipts.evaluate((section) => section.scrollIntoView({ block: 'center' }));
    await page.screenshot({ path: path.join(ARTIFACTS, 'receipts.png') });

    // Tapped: the image full size, in a dialog that closes again.
    await tile.click();
    const dialog = page.getByRole('dialog', { name: 'till.png' });
    const full = dialog.getByRole('img', { name: 'The receipt till.png' });
    await full.waitFor();
    expect(await full.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight])).toEqual([300, 200]);
    expect(await noSideways()).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'receipt-full-size.png') });
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('item 1: a PDF shows its type and opens through a download; a file that is no photo or PDF is explained in plain words (415), nothing kept', async () => {
    const receipts = region('Lunch');
    await receipts.locator('input[type=file]').setInputFiles({ name: 'invoice.pdf', mimeType: 'application/pdf', buffer: PDF });
    const tile = receipts.getByRole('button', { name: 'Open invoice.pdf (PDF, downloads)' });
    await tile.waitFor();
    expect(await tile.textContent()).toBe('PDF');
    const [file] = await Promise.all([page.waitForEvent('download'), tile.click()]);
    expect(file.suggestedFilename()).toBe('invoice.pdf');
    const saved = path.join(ARTIFACTS, 'invoice.pdf');
    await file.saveAs(saved);
    expect(readFileSync(saved)).toEqual(PDF);

    // Words in a file named .png: the API judges the bytes (415), the page says why in words.
    await receipts.locator('input[type=file]').setInputFiles({ name: 'notes.png', mimeType: 'image/png', buffer: Buffer.from('Not a photo at all, just words.\n') });
    await expect.poll(() => receipts.getByRole('alert').textContent()).toBe(
      '“notes.png” was not added: it is not a photo or PDF the book can keep (only photos (JPEG, PNG, WebP, GIF, HEIC) and PDF files).',
    );
    // Refused before sending: a file of another kind, and one over 10 MB.
    await receipts.locator('input[type=file]').setInputFiles([
      { name: 'drawing.svg', mimeType: 'image/svg+xml', buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') },
      { name: 'huge.jpg', mimeType: 'image/jpeg', buffer: Buffer.alloc(10 * 1024 * 1024 + 1) },
      // 10 MiB crosses to the browser as base64 over CDP: on a loaded 2-core machine that alone took
      // over the default 10 s (it timed out here, not the page).
    ], { timeout: 60_000 });
    await expect.poll(() => receipts.getByRole('alert').allTextContents()).toEqual([
      '“drawing.svg” was not added: a receipt can be only photos (JPEG, PNG, WebP, GIF, HEIC) and PDF files.',
      '“huge.jpg” was not added: it is larger than 10 MB, the most a receipt can be. Take the photo again at a lower resolution, or scan the page smaller.',
    ]);
    expect((await receiptsOf('Lunch')).map((a) => a.name)).toEqual(['till.png', 'invoice.pdf']);
  });

  it('item 1: removing a receipt asks first; declined, it stays; accepted, the API no longer has it', async () => {
    const receipts = region('Lunch');
    const remove = receipts.getByRole('button', { name: 'Remove the receipt till.png' });
    let question = answerNext(false);
    await remove.click();
    expect(await question).toBe('Remove the receipt “till.png” from “Lunch”?');
    expect((await receiptsOf('Lunch')).map((a) => a.name)).toEqual(['till.png', 'invoice.pdf']);

    question = answerNext(true);
    await remove.click();
    await question;
    await expect.poll(() => receipts.getByRole('status').textContent()).toBe('Removed “till.png”.');
    expect((await receiptsOf('Lunch')).map((a) => a.name)).toEqual(['invoice.pdf']);
    expect(await receipts.getByRole('button', { name: /till\.png/ }).count()).toBe(0);
  });

  it('item 1: the list shows a paperclip named by how many receipts a transaction has; it opens the transaction', async () => {
    await openTransactions();
    await row('Lunch').getByRole('button', { name: '1 receipt', exact: true }).waitFor();
    expect(await row('Opening the book').getByRole('button', { name: /receipt/ }).count()).toBe(0);
    await row('Lunch').getByRole('button', { name: '1 receipt', exact: true }).click();
    await region('Lunch').getByRole('button', { name: 'Open invoice.pdf (PDF, downloads)' }).waitFor();
    expect(await noSideways()).toBe(true);
  });

  it('item 1: receipts chosen on the record form are sent once the transaction is saved, with a progress bar; one refused is explained, with a way back to it', async () => {
    await openTransactions();
    const form = page.locator('form.record').first();
    await form.getByLabel('Date').fill(`${YEAR}-01-03`);
    await form.getByLabel('Description').fill('Market');
    await form.getByRole('radio', { name: 'Money out' }).check();
    await form.getByLabel('Amount').fill('45.50');
    await form.getByLabel('Paid from').selectOption({ label: 'Bank' });
    await form.getByLabel('Spent on').selectOption({ label: 'Food' });
    const input = form.locator('input[type=file]');
    expect(await input.getAttribute('accept')).toBe('image/*,application/pdf');
    expect(await input.getAttribute('capture')).toBe('environment');
    // A large photo (3 MB, a PNG by its magic numbers) and a file the API will refuse.
    const photo = Buffer.concat([TILL, Buffer.alloc(3 * 1024 * 1024, 7)]);
    await input.setInputFiles([
      { name: 'market.png', mimeType: 'image/png', buffer: photo },
      { name: 'scribble.png', mimeType: 'image/png', buffer: Buffer.from('words, not a picture') },
    ]);
    await form.getByRole('group', { name: 'Receipts' }).getByText('market.png').waitFor();
    expect(await noSideways()).toBe(true);

    // Every state of the progress bar while the files go (a local server is faster than any eye).
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { progressSeen: string[] }).progressSeen = seen;
      new MutationObserver(() => {
        const bar = document.querySelector('form.record progress');
        if (bar) seen.push(`${bar.closest('label')!.firstChild!.textContent} ${(bar as HTMLProgressElement).value}`);
      }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    });
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => form.getByRole('status').filter({ hasText: 'Saved' }).textContent(), { timeout: 15_000 }).toMatch(/^Saved “Market” of Jan 3, \d{4}: .* With 1 receipt\. See it in the history$/);
    expect(await form.getByRole('alert').textContent()).toMatch(/^“scribble\.png” was not added: it is not a photo or PDF the book can keep/);
    const seen = await page.evaluate(() => (window as unknown as { progressSeen: string[] }).progressSeen);
    expect(seen[0]).toMatch(/^Sending “market\.png” \(3\.1 MB\) \d+$/);
    expect(seen).toContain('Sending “market.png” (3.1 MB) 100');
    const { body: listed } = await s.call('GET', `/transactions?q=Market&limit=10`);
    tx.Market = listed[0].id;
    expect(listed[0].attachments).toBe(1);
    expect(await receiptsOf('Market')).toMatchObject([{ name: 'market.png', content_type: 'image/png', size: photo.length }]);

    // The way back to add the refused one again: the saved transaction, opened.
    await form.getByRole('link', { name: 'Open it to add a receipt again' }).click();
    await region('Market').getByRole('button', { name: 'Show market.png full size' }).waitFor();
    await row('Market').getByRole('button', { name: '1 receipt', exact: true }).waitFor();
  });

  it('item 2: the annual report downloads the receipts of its year for the auditors (ZIP) and the change log (CSV); History the same log', async () => {
    await page.goto(`${s.web}/reports/annual`);
    await page.getByRole('heading', { name: `Annual report ${YEAR}`, level: 1 }).waitFor();
    const auditors = page.getByRole('region', { name: 'For the auditors' });
    await auditors.getByRole('button', { name: 'Receipts for the auditors (ZIP)' }).waitFor();
    expect(await noSideways()).toBe(true);

    const zip = await downloadFrom('Receipts for the auditors (ZIP)');
    expect(zip.name).toBe('receipts.zip');
    expect(zip.bytes.subarray(0, 2).toString('latin1')).toBe('PK');
    // The archive names each receipt by date, transaction and name (stored, so the names are readable).
    expect(zip.bytes.includes(Buffer.from(`${YEAR}-01-02_${tx.Lunch}_invoice.pdf`))).toBe(true);
    expect(zip.bytes.includes(Buffer.from(`${YEAR}-01-03_${tx.Market}_market.png`))).toBe(true);

    const log = await downloadFrom('Change log (CSV)');
    expect(log.name).toBe('changes.csv');
    const text = log.bytes.toString('utf8');
    expect(text.split('\r\n')[0]).toBe('id,at,actor_email,via,client_id,subject,subject_id,action,summary');
    // Issue 37 item 6: the transaction by its description and date, not its id.
    expect(text).toContain(`treasurer@example.com added the receipt “till.png” to “Lunch” of Jan 2, ${YEAR} from the web app.`);
    expect(text).toContain(`treasurer@example.com removed the receipt “till.png” of “Lunch” of Jan 2, ${YEAR} from the web app.`);

    await s.go('History', 'History');
    await page.getByText(`You added the receipt “market.png” to “Market” of Jan 3, ${YEAR}`).waitFor();
    const history = await downloadFrom('Change log (CSV)');
    expect(history.name).toBe('changes.csv');
    expect(history.bytes.toString('utf8')).toContain(`added the receipt “market.png” to “Market” of Jan 3, ${YEAR}`);
    expect(await noSideways()).toBe(true);
  });

  it('Settings shows the receipts storage: used, the limit and how many files', async () => {
    const { body: usage } = await s.call('GET', '/attachments/usage');
    expect(usage).toMatchObject({ count: 2, limit_bytes: 1024 * 1024 * 1024 });
    await s.go('Settings', 'Settings');
    const storage = page.getByRole('region', { name: 'Storage' });
    const used = Math.round((usage.used_bytes / 1024 / 1024) * 10) / 10;
    await expect.poll(() => storage.getByText(/^Receipts:/).textContent()).toBe(`Receipts: ${used} MB of 1 GB used (2 files).`);
    expect(await noSideways()).toBe(true);
    expect(s.faults).toEqual([]);
  });

  it('issue 36 item 4: a deleted transaction\'s receipts are shown in History beside its Undo and removable there; Settings says what deleted transactions hold', async () => {
    const entries = [{ account_id: ids.Food, amount_cents: 700 }, { account_id: ids.Bank, amount_cents: -700 }];
    const made = await s.post('/transactions', { occurred_on: `${YEAR}-01-04`, description: 'Shredder', entries });
    tx.Shredder = made.body.id;
    const sent = await page.evaluate(
      async ({ url, bytes }) => (await fetch(url, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/pdf' }, body: new Uint8Array(bytes) })).status,
      { url: `${s.api}/transactions/${tx.Shredder}/attachments?name=shred.pdf`, bytes: [...PDF] },
    );
    expect(sent).toBe(201);
    expect((await s.call('DELETE', `/transactions/${tx.Shredder}`)).status).toBe(204);

    await s.go('History', 'History');
    await page.getByText(`Kept with it for Undo: 1 receipt (${PDF.length} bytes).`).waitFor();
    expect(await noSideways()).toBe(true);
    await s.go('Settings', 'Settings');
    const storage = page.getByRole('region', { name: 'Storage' });
    await expect.poll(() => storage.getByText(/^Receipts:/).textContent()).toMatch(
      new RegExp(`Of these, ${PDF.length} bytes \\(1 file\\) belong to deleted transactions, kept so that Undo in History brings them back; they can be removed there\\.$`),
    );

    await s.go('History', 'History');
    const asked = answerNext(true);
    await page.getByRole('button', { name: 'Remove the receipt shred.pdf' }).click();
    expect(await asked).toBe('Remove the receipt “shred.pdf” kept from the deleted “Shredder”? Undo will no longer bring it back.');
    await page.getByRole('status').filter({ hasText: 'Removed “shred.pdf”.' }).waitFor();
    expect(await receiptsOf('Shredder')).toEqual([]);
    expect((await s.call('GET', '/attachments/usage')).body).toMatchObject({ deleted_bytes: 0, deleted_count: 0 });
    expect(s.faults).toEqual([]);
  });

  // Issue 37 item 12: a scanner's name, 190 characters without a space: the page must not scroll sideways at 390 px.
  const LONG_NAME = `${'Rechnung_Sommerfest_Vereinsheim_Getränke_und_Speisen_'.repeat(4).slice(0, 186)}.pdf`;
  /** How far the page scrolls sideways at 390 px (0: not at all), as the brief measures it. */
  const sideways = () => page.evaluate(() => Math.max(0, document.documentElement.scrollWidth - 390));

  it('issue 37 item 12 (D22): at 390 px a long receipt name wraps on the record form, the edit form (the list, the notice) and History (and its kept receipts); the full name is shown', async () => {
    const entries = [{ account_id: ids.Food, amount_cents: 3_990 }, { account_id: ids.Bank, amount_cents: -3_990 }];
    tx.Festival = (await s.post('/transactions', { occurred_on: `${YEAR}-01-05`, description: 'Festival', entries })).body.id;
    await openTransactions();
    // Chosen on the record form, waiting for the transaction to be saved.
    const form = page.locator('form.record').first();
    await form.locator('input[type=file]').setInputFiles({ name: LONG_NAME, mimeType: 'application/pdf', buffer: PDF });
    const chosen = form.getByRole('group', { name: 'Receipts' });
    await chosen.getByText(LONG_NAME).waitFor();
    const recordForm = await sideways();
    await chosen.getByRole('button', { name: `Take off ${LONG_NAME}` }).click();
    await page.getByRole('button', { name: 'Edit Festival' }).click();
    const receipts = region('Festival');
    await receipts.getByText(/^No receipt yet/).waitFor();
    await receipts.locator('input[type=file]').setInputFiles({ name: LONG_NAME, mimeType: 'application/pdf', buffer: PDF });
    await expect.poll(() => receipts.getByRole('status').textContent()).toBe(`Added “${LONG_NAME}”.`);
    await receipts.getByRole('button', { name: `Open ${LONG_NAME} (PDF, downloads)` }).waitFor();
    expect((await receiptsOf('Festival')).map((a) => a.name)).toEqual([LONG_NAME]);
    // The whole name is on the page (wrapped, not cut), and nothing scrolls sideways.
    expect(await receipts.locator('.receipt-list .receipt-name').first().textContent()).toContain(LONG_NAME);
    const scrolled = { recordForm, editForm: await sideways(), history: -1, keptForUndo: -1 };
    await page.screenshot({ path: path.join(ARTIFACTS, 'long-name-edit.png'), fullPage: true });

    await s.go('History', 'History');
    const told = page.locator('ol.history > li').filter({ hasText: LONG_NAME }).first();
    await told.waitFor();
    scrolled.history = await sideways();
    await page.screenshot({ path: path.join(ARTIFACTS, 'long-name-history.png'), fullPage: true });

    // Deleted: History lists the receipt it keeps for Undo, by its long name.
    expect((await s.call('DELETE', `/transactions/${tx.Festival}`)).status).toBe(204);
    await s.go('Transactions', 'Transactions');
    await s.go('History', 'History');
    await page.getByRole('button', { name: `Download ${LONG_NAME}` }).waitFor();
    scrolled.keptForUndo = await sideways();
    await page.screenshot({ path: path.join(ARTIFACTS, 'long-name-kept.png'), fullPage: true });
    expect((await s.call('POST', `/transactions/${tx.Festival}/restore`)).status).toBe(201);
    expect(scrolled, 'pixels the page scrolls sideways at 390 px').toEqual({ recordForm: 0, editForm: 0, history: 0, keptForUndo: 0 });
  });

  it('issue 37 item 13 (D22): a 0-byte PDF is refused as empty, not as "not a photo or PDF", on the opened transaction and on the record form; nothing sent', async () => {
    await openTransactions();
    await page.getByRole('button', { name: 'Edit Festival' }).click();
    const receipts = region('Festival');
    await receipts.getByRole('button', { name: `Open ${LONG_NAME} (PDF, downloads)` }).waitFor();
    await receipts.locator('input[type=file]').setInputFiles({ name: 'scan.pdf', mimeType: 'application/pdf', buffer: Buffer.alloc(0) });
    await expect.poll(() => receipts.getByRole('alert').allTextContents()).toEqual(['“scan.pdf” was not added: the file is empty (0 bytes). Scan or save it again, then add it.']);
    expect((await receiptsOf('Festival')).map((a) => a.name)).toEqual([LONG_NAME]);

    await openTransactions();
    const form = page.locator('form.record').first();
    await form.locator('input[type=file]').setInputFiles({ name: 'empty.pdf', mimeType: 'application/pdf', buffer: Buffer.alloc(0) });
    await expect.poll(() => form.getByRole('alert').allTextContents()).toContain('“empty.pdf” was not added: the file is empty (0 bytes). Scan or save it again, then add it.');
    expect(await form.getByRole('group', { name: 'Receipts' }).getByText('empty.pdf').count()).toBe(0);
    expect(s.faults).toEqual([]);
  });
});
