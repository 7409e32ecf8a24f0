import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { message, missingBrowserPrerequisite, openWebSession, STRICT_BROWSER, type SessionLanguage, type WebSession } from './support/web-session';

// D27 "Payments in" (D16, issue 40 item 4) on the web Import page, D29 in English and German: the
// preview says whom a line was recognised as and by what ("Anna Schmidt — recognised by IBAN"),
// the treasurer changes a line's account with the account picker (the preview is asked again with
// `counter_accounts`, so the server decides), and the import books the money where the treasurer
// chose — seen through GET /people/{id} balances. At 390 px nothing scrolls sideways. The
// statement is a camt.053 file (the web app's CSV mapping has no IBAN column).

const EMAIL = 'kassenwart@example.com';
const PASSWORD = 'a treasurer password';
const CLUB_IBAN = 'DE91100000000123456789';
const ANNA_IBAN = 'DE89370400440532013000';
const STRANGER_IBAN = 'DE02100500000054540402';

const missing = missingBrowserPrerequisite();
if (missing && !STRICT_BROWSER) console.warn(`web-import-people.test.ts skipped: ${missing}`);

interface Entry {
  ref: string;
  cents: number;
  name: string;
  iban?: string;
  text: string;
}
/** A small camt.053.001.02 statement of money in to the club's account, as a Sparkasse writes it. */
const camt053 = (entries: Entry[]) => `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>STMT-2026-03</MsgId><CreDtTm>2026-04-01T06:00:00+02:00</CreDtTm></GrpHdr>
    <Stmt>
      <Id>2026-03-31-001</Id>
      <CreDtTm>2026-04-01T06:00:00+02:00</CreDtTm>
      <Acct><Id><IBAN>${CLUB_IBAN}</IBAN></Id><Ccy>EUR</Ccy></Acct>${entries
        .map(
          (e) => `
      <Ntry>
        <Amt Ccy="EUR">${(e.cents / 100).toFixed(2)}</Amt>
        <CdtDbtInd>CRDT</CdtDbtInd>
        <Sts>BOOK</Sts>
        <BookgDt><Dt>2026-03-02</Dt></BookgDt>
        <ValDt><Dt>2026-03-02</Dt></ValDt>
        <AcctSvcrRef>${e.ref}</AcctSvcrRef>
        <NtryDtls><TxDtls>
          <AmtDtls><TxAmt><Amt Ccy="EUR">${(e.cents / 100).toFixed(2)}</Amt></TxAmt></AmtDtls>
          <RltdPties><Dbtr><Nm>${e.name}</Nm></Dbtr>${e.iban ? `<DbtrAcct><Id><IBAN>${e.iban}</IBAN></Id></DbtrAcct>` : ''}</RltdPties>
          <RmtInf><Ustrd>${e.text}</Ustrd></RmtInf>
        </TxDtls></NtryDtls>
      </Ntry>`,
        )
        .join('')}
    </Stmt>
  </BkToCstmrStmt>
</Document>
`;

const STATEMENT = camt053([
  // 1: Anna's own IBAN (her name is written otherwise: the IBAN decides).
  { ref: 'P-01', cents: 3000, name: 'A. SCHMIDT', iban: ANNA_IBAN, text: 'Beitrag Maerz Anna' },
  // 2: Bernd's member number in the text.
  { ref: 'P-02', cents: 2500, name: 'Fremd, Frieda', iban: STRANGER_IBAN, text: 'Beitrag M-0007 Bernd' },
  // 3: no one: the account for lines no rule matches.
  { ref: 'P-03', cents: 1000, name: 'Baeckerei Korn', text: 'Spende Baeckerei' },
]);

/** What each language shows: the D27 words (written out, not read from the catalogue) and the import button. */
const WORDS: Record<SessionLanguage, { byIban: string; byNumber: string; recognised: string; change: string; picker: string; importButton: RegExp; locale: string }> = {
  en: {
    byIban: 'Anna Schmidt — recognised by IBAN',
    byNumber: 'Bernd Müller — recognised by member number or mandate',
    recognised: 'recognised',
    change: 'Change the account of line 1',
    picker: 'Book line 1 against',
    importButton: /^Import 3 transactions$/,
    locale: 'en-US',
  },
  de: {
    byIban: 'Anna Schmidt — erkannt an der IBAN',
    byNumber: 'Bernd Müller — erkannt an Mitgliedsnummer oder Mandat',
    recognised: 'erkannt',
    change: 'Gegenkonto von Zeile 1 ändern',
    picker: 'Zeile 1 buchen gegen',
    importButton: /^3 Buchungen importieren$/,
    locale: 'de-DE',
  },
};

describe.skipIf(missing !== null && !STRICT_BROWSER)('D27 payments in on the Import page (D16, D29)', () => {
describe.each(['en', 'de'] as const)('in %s', (language) => {
  const words = WORDS[language];
  const say = (key: string) => message(language, key);
  let session: WebSession;
  let page: Page;
  const person: Record<string, { id: number; account_id: number }> = {};
  const account: Record<string, number> = {};

  const field = (label: string) => page.getByLabel(new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  const previewTable = () => page.getByRole('table', { name: say('import.preview.table') });
  /** The preview row of a line whose description holds `text`. */
  const row = (text: string) => previewTable().getByRole('row').filter({ hasText: text });
  /** The "booked against" cell of that row (the sixth: line, date, description, in, out, account, note). */
  const bookedAgainst = (text: string) => row(text).getByRole('cell').nth(5).textContent();
  const balance = async (name: string) => (await session.call('GET', `/people/${person[name]!.id}`)).body.balance_cents as number;
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

  beforeAll(async () => {
    if (missing) throw new Error(`the browser test cannot run (CI=true or TEST_DATABASE_URL set, so no skipping): ${missing}`);
    session = await openWebSession({ prefix: `ledger-web-import-people-${language}-`, email: EMAIL, password: PASSWORD, locale: words.locale, language });
    page = session.page;
    page.context().setDefaultTimeout(20_000);
    expect((await session.call('PUT', '/settings', { book_style: 'club' })).status).toBe(200);
    for (const [name, kind] of [['Girokonto', 'asset'], ['Suspense', 'expense'], ['Spenden', 'income']] as const) {
      const made = await session.post('/accounts', { name, kind });
      expect(made.status).toBe(201);
      account[name] = made.body.id;
    }
    for (const [name, fields] of [
      ['Anna Schmidt', { iban: ANNA_IBAN, member_no: 'M-0042' }],
      ['Bernd Müller', { member_no: 'M-0007' }],
    ] as const) {
      const made = await session.post('/people', { name, ...fields });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      person[name] = made.body;
    }
  }, 180_000);

  afterAll(async () => {
    await session?.close();
  });

  it('says whom each line was recognised as, books line 1 where the treasurer chose, at 390 px', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await session.go(say('nav.import'), say('import.title'));
    await field(say('import.form.account')).selectOption({ label: 'Girokonto' });
    await field(say('import.form.counter')).selectOption({ label: 'Suspense' });
    await field(say('import.form.file')).setInputFiles({ name: 'maerz.xml', mimeType: 'application/xml', buffer: Buffer.from(STATEMENT, 'utf8') });
    await expect.poll(() => field(say('import.form.format')).inputValue()).toBe('camt053');
    const sent: unknown[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && /\/imports(\/preview)?$/.test(r.url())) sent.push(r.postDataJSON());
    });
    await page.getByRole('button', { name: say('import.form.preview'), exact: true }).click();
    await previewTable().waitFor();

    // D27: who, and by what; a line of no one says nothing of people.
    await expect.poll(() => bookedAgainst('Beitrag Maerz Anna')).toBe(`Anna Schmidt${words.byIban}`);
    expect(await bookedAgainst('Beitrag M-0007 Bernd')).toBe(`Bernd Müller${words.byNumber}`);
    expect(await bookedAgainst('Spende Baeckerei')).toBe('Suspense');
    expect(await bookedAgainst('Spende Baeckerei')).not.toContain(words.recognised);
    // Nothing changed: no counter_accounts asked for (D16's behaviour as before).
    expect(sent.map((b) => (b as Record<string, unknown>).counter_accounts)).toEqual([undefined]);
    expect(await overflow(), 'preview').toBeLessThanOrEqual(0);

    // The treasurer books Anna's line to Bernd instead: the preview is asked again, the server decides.
    await page.getByRole('button', { name: words.change }).click();
    await field(words.picker).waitFor();
    expect(await overflow(), 'the picker open').toBeLessThanOrEqual(0);
    await field(words.picker).selectOption({ label: 'Bernd Müller' });
    // The choice beats the match (D27): the server recognises no one on that line any more.
    await expect.poll(() => bookedAgainst('Beitrag Maerz Anna')).toBe('Bernd Müller');
    expect(await bookedAgainst('Beitrag M-0007 Bernd')).toBe(`Bernd Müller${words.byNumber}`);
    expect((sent.at(-1) as Record<string, unknown>).counter_accounts).toEqual([{ line: 1, account_id: person['Bernd Müller']!.account_id }]);

    await page.getByRole('button', { name: words.importButton }).click();
    await page.getByRole('status').filter({ hasText: say('import.result.seeThem') }).waitFor();
    expect((sent.at(-1) as Record<string, unknown>).counter_accounts).toEqual([{ line: 1, account_id: person['Bernd Müller']!.account_id }]);

    // D27 natural sign: below zero the book owes the person — Bernd paid 25.00 and was given Anna's 30.00.
    expect(await balance('Anna Schmidt')).toBe(0);
    expect(await balance('Bernd Müller')).toBe(-5500);
    expect(session.faults).toEqual([]);
  }, 240_000);
});
});
