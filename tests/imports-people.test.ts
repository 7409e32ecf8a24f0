import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/database';
import { nameKey, wholeWords } from '../src/book/imports/people-match';
import { describeEachDatabase } from './support/harness';
import { json } from './support/http';

// D27 "Payments in" (D16, issue 40 item 4): preview and import match each statement line to at
// most one person — (1) the counterparty's IBAN, else (2) the person's member number or mandate id
// as a whole word of the line's text, else (3) the counterparty's name read as banks write it — and
// book it against the person's account before any rule; `counter_accounts` (the treasurer's
// choice) beats the match. Two people fitting at one step: that step decides nothing, the next is
// asked. The statements are invented, written as German banks write them.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const CLUB_IBAN = 'DE91100000000123456789';
const ANNA_IBAN = 'DE89370400440532013000';
const BERND_IBAN = 'DE02120300000000202051';
const VOGEL_IBAN = 'DE02500105170137075030';
const STRANGER_IBAN = 'DE02100500000054540402';
const OTHER_STRANGER_IBAN = 'DE88100900001234567892';

/** An IBAN as printed on paper and in many bank exports: groups of four. */
const spaced = (iban: string) => iban.replace(/(.{4})/g, '$1 ').trim();

interface Party {
  name?: string;
  iban?: string;
}
interface Entry {
  ref: string;
  cents: number;
  on: string;
  /** The other party: the debtor of money in, the creditor of money out. */
  other: Party;
  text: string;
}

const amount = (cents: number) => (Math.abs(cents) / 100).toFixed(2);
/** A party as camt.053 writes it: `Nm` up to 001.07, `Pty/Nm` from 001.08. */
const party = (role: 'Dbtr' | 'Cdtr', p: Party, version: string) => {
  const name = p.name === undefined ? '' : version >= '08' ? `<${role}><Pty><Nm>${p.name}</Nm></Pty></${role}>` : `<${role}><Nm>${p.name}</Nm></${role}>`;
  const account = p.iban === undefined ? '' : `<${role}Acct><Id><IBAN>${p.iban}</IBAN></Id></${role}Acct>`;
  return name + account;
};

/** A camt.053 statement of the club's account as a Sparkasse or Volksbank writes it. */
function camt053(entries: Entry[], version = '02'): string {
  const club = { name: 'TSV Musterstadt e.V.', iban: CLUB_IBAN };
  const ntry = entries.map((e) => {
    const direction = e.cents > 0 ? 'CRDT' : 'DBIT';
    const parties = e.cents > 0 ? party('Dbtr', e.other, version) + party('Cdtr', club, version) : party('Dbtr', club, version) + party('Cdtr', e.other, version);
    return `
      <Ntry>
        <Amt Ccy="EUR">${amount(e.cents)}</Amt>
        <CdtDbtInd>${direction}</CdtDbtInd>
        <Sts>BOOK</Sts>
        <BookgDt><Dt>${e.on}</Dt></BookgDt>
        <ValDt><Dt>${e.on}</Dt></ValDt>
        <AcctSvcrRef>${e.ref}</AcctSvcrRef>
        <BkTxCd><Prtry><Cd>NTRF+166+9310</Cd><Issr>DK</Issr></Prtry></BkTxCd>
        <NtryDtls>
          <TxDtls>
            <Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs>
            <AmtDtls><TxAmt><Amt Ccy="EUR">${amount(e.cents)}</Amt></TxAmt></AmtDtls>
            <RltdPties>${parties}</RltdPties>
            <RmtInf><Ustrd>${e.text}</Ustrd></RmtInf>
          </TxDtls>
        </NtryDtls>
      </Ntry>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.${version}">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>STMT-2026-03</MsgId><CreDtTm>2026-04-01T06:00:00+02:00</CreDtTm></GrpHdr>
    <Stmt>
      <Id>2026-03-31-001</Id>
      <CreDtTm>2026-04-01T06:00:00+02:00</CreDtTm>
      <Acct><Id><IBAN>${CLUB_IBAN}</IBAN></Id><Ccy>EUR</Ccy><Ownr><Nm>TSV Musterstadt e.V.</Nm></Ownr></Acct>${ntry.join('')}
    </Stmt>
  </BkToCstmrStmt>
</Document>
`;
}

/** The March statement: every step of D27's order, each where an earlier step would pick someone else. */
const MARCH: Entry[] = [
  // 1: the member's own IBAN, written with spaces.
  { ref: 'S-01', cents: 3000, on: '2026-03-02', other: { name: 'SCHMIDT, ANNA', iban: spaced(ANNA_IBAN) }, text: 'Mitgliedsbeitrag M-0042 Maerz' },
  // 2: Anna's IBAN beats Jörg's member number and Jörg's name.
  { ref: 'S-02', cents: 3000, on: '2026-03-02', other: { name: 'WEISS, JOERG', iban: ANNA_IBAN }, text: 'Mitgliedsbeitrag M-0077' },
  // 3: an IBAN no one has; Anna's member number beats Bernd's name.
  { ref: 'S-03', cents: 2500, on: '2026-03-03', other: { name: 'MUELLER, BERND', iban: STRANGER_IBAN }, text: 'Beitrag M-0042 Maerz' },
  // 4: only the name: "SCHMIDT, ANNA" is Anna Schmidt.
  { ref: 'S-04', cents: 2500, on: '2026-03-03', other: { name: 'SCHMIDT, ANNA', iban: OTHER_STRANGER_IBAN }, text: 'Beitrag Maerz' },
  // 5: "M-00421" is Bernd's number, not Anna's M-0042 with a digit more.
  { ref: 'S-05', cents: 1200, on: '2026-03-04', other: { name: 'Max Mustermann' }, text: 'Beitrag M-00421' },
  // 6: Lena and Paul's parents pay from one account: the IBAN fits both, the number tells Paul.
  { ref: 'S-06', cents: 1200, on: '2026-03-05', other: { name: 'Vogel, Markus', iban: VOGEL_IBAN }, text: 'Beitrag Paul M-0101' },
  // 7: the same account and no number: no one (and the rule "Beitrag" books it).
  { ref: 'S-07', cents: 2400, on: '2026-03-05', other: { name: 'Vogel, Markus', iban: VOGEL_IBAN }, text: 'Beitrag Kinder' },
  // 8: money out to a member: the creditor's IBAN is Bernd's (the debtor is the club itself).
  { ref: 'S-08', cents: -500, on: '2026-03-06', other: { name: 'Bernd Müller', iban: spaced(BERND_IBAN) }, text: 'Erstattung Auslagen' },
  // 9: no one, no rule: the unmatched account.
  { ref: 'S-09', cents: -8000, on: '2026-03-10', other: { name: 'Stadtwerke Musterstadt GmbH', iban: OTHER_STRANGER_IBAN }, text: 'Abschlag Strom' },
  // 10: Bernd's mandate id in the text.
  { ref: 'S-10', cents: 3000, on: '2026-03-12', other: { name: 'Fremd, Frieda' }, text: 'SEPA-Basislastschrift MNDT-2024-0007 Beitrag' },
];

/** A Sparkasse-style CSV export: a preamble, `;`, German amounts, the other party's name and IBAN in columns of their own. */
const GERMAN_CSV = [
  'Umsatzanzeige;Sparkasse Musterstadt',
  `Konto;${spaced(CLUB_IBAN)}`,
  'Zeitraum;01.04.2026 - 30.04.2026',
  '',
  'Buchungstag;Auftraggeber/Empfänger;IBAN;Verwendungszweck;Betrag (EUR)',
  `01.04.2026;MÜLLER, CLARA;${spaced(STRANGER_IBAN)};Mitgliedsbeitrag April;30,00`,
  '02.04.2026;WEISS JOERG;;Spende Jugendabteilung;1.234,56',
  '03.04.2026;LEFEVRE, ZOE;;Beitrag April;30,00',
  `04.04.2026;Mueller, Bernd;${spaced(ANNA_IBAN)};Beitrag April;30,00`,
  '05.04.2026;Sporthalle Musterstadt GmbH;;Hallenmiete April;-450,00',
  '',
].join('\n');
const GERMAN_CSV_OPTIONS = {
  date_column: 'Buchungstag',
  description_column: ['Auftraggeber/Empfänger', 'Verwendungszweck'],
  amount_column: 'Betrag (EUR)',
  date_format: 'DD.MM.YYYY',
  decimal: ',',
  skip_rows: 4,
  iban_column: 'IBAN',
  name_column: 'Auftraggeber/Empfänger',
};

/** An OFX 1.x statement: NAME is the other party (OFX gives no IBAN). */
const OFX = `OFXHEADER:100
DATA:OFXSGML
VERSION:102

<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>EUR<BANKACCTFROM><BANKID>10000000<ACCTID>0123456789<ACCTTYPE>CHECKING</BANKACCTFROM>
<BANKTRANLIST>
<STMTTRN><TRNTYPE>CREDIT<DTPOSTED>20260501<TRNAMT>30.00<FITID>O-1<NAME>SCHMIDT, ANNA<MEMO>Beitrag Mai</STMTTRN>
<STMTTRN><TRNTYPE>CREDIT<DTPOSTED>20260502<TRNAMT>30.00<FITID>O-2<NAME>Lefevre Zoe<MEMO>Beitrag Mai M-0077</STMTTRN>
<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260503<TRNAMT>-12.50<FITID>O-3<NAME>Baeckerei Korn<MEMO>Kuchen Sommerfest</STMTTRN>
</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>
`;

describe('D27 payments in: whole words and names as compared', () => {
  it('a reference is a whole word: not inside a longer run of letters and digits, nor joined to one by - / . _ + ,', () => {
    const holds = (text: string, reference: string) => [...wholeWords(text, [reference.length])].includes(reference);
    expect(holds('beitrag m-0042 maerz', 'm-0042')).toBe(true);
    expect(holds('(m-0042), m-0042.', 'm-0042')).toBe(true);
    expect(holds('m-0042', 'm-0042')).toBe(true);
    expect(holds('beitrag m-00421', 'm-0042')).toBe(false);
    expect(holds('beitrag xm-0042', 'm-0042')).toBe(false);
    expect(holds('beitrag m-0042-b', 'm-0042')).toBe(false);
    expect(holds('beitrag b-m-0042', 'm-0042')).toBe(false);
    expect(holds('m-00421 und m-0042', 'm-0042')).toBe(true);
    expect(holds('betrag 42,50 eur', '42')).toBe(false);
    expect(holds('nr. 42: beitrag', '42')).toBe(true);
  });

  it('names: case, punctuation and word order ignored, ä ö ü as ae oe ue, ß as ss, other accents dropped', () => {
    expect(nameKey('SCHMIDT, ANNA')).toBe(nameKey('Anna Schmidt'));
    expect(nameKey('MUELLER')).toBe(nameKey('Müller'));
    expect(nameKey('Müller')).toBe(nameKey('Mueller'));
    expect(nameKey('WEISS, JOERG')).toBe(nameKey('Jörg Weiß'));
    expect(nameKey('LEFEVRE, ZOE')).toBe(nameKey('Zoë Lefèvre'));
    expect(nameKey('MÜLLER-LÜDENSCHEIDT, HANS')).toBe(nameKey('Hans Mueller-Luedenscheidt'));
    expect(nameKey('Anna Schmidt')).not.toBe(nameKey('Anna Schmitt'));
    expect(nameKey('Jorg Weiss')).not.toBe(nameKey('Jörg Weiß'));
  });
});

describeEachDatabase('D27 payments in: statement lines recognised as a person\'s', (h) => {
  let token: string;
  const ids: Record<string, number> = {};
  const who: Record<string, { id: number; account: number }> = {};
  const api = (method: string, path: string, body?: unknown) => h.call(token, method, path, body);
  const request = (format: string, content: string, extra: Record<string, unknown> = {}) => ({
    account_id: ids['Girokonto'],
    format,
    content,
    unmatched_account_id: ids['Suspense'],
    ...extra,
  });
  const preview = async (body: unknown) => {
    const res = await api('POST', '/imports/preview', body);
    expect(res.status, await res.clone().text()).toBe(200);
    return json(res);
  };
  /** Each line as [line, person's name or null, person_match, counter account's name]. */
  const recognised = (answer: Json) => {
    const personName = new Map(Object.entries(who).map(([name, p]) => [p.id, name]));
    const accountName = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
    return answer.lines.map((l: Json) => [l.line, l.person_id === null ? null : personName.get(l.person_id), l.person_match, accountName.get(l.counter_account_id)]);
  };
  const balance = async (account: number) =>
    Number(rowsOf<{ total: string | null }>(await h.db.execute(sql`select sum(amount_cents)::text as total from entries where account_id = ${account}`))[0]!.total ?? 0);

  /** A person (D27, POST /people): their own asset account comes with them, named as they are. */
  const person = async (name: string, fields: { iban?: string; member_no?: string; mandate?: string } = {}) => {
    const res = await api('POST', '/people', {
      name,
      ...(fields.iban && { iban: fields.iban }),
      ...(fields.member_no && { member_no: fields.member_no }),
      ...(fields.mandate && { mandate: { id: fields.mandate, signed_on: '2024-01-15' } }),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const created = await json(res);
    who[name] = { id: created.id, account: created.account_id };
    ids[name] = created.account_id;
  };

  beforeAll(async () => {
    ({ token } = await h.userWithToken('kassenwart@people-import.example'));
    for (const [name, kind] of [['Girokonto', 'asset'], ['Suspense', 'expense'], ['Mitgliedsbeiträge', 'income'], ['Spenden', 'income']] as const) {
      ids[name] = (await json(await api('POST', '/accounts', { name, kind }))).id;
    }
    await person('Anna Schmidt', { iban: ANNA_IBAN, member_no: 'M-0042' });
    await person('Bernd Müller', { iban: BERND_IBAN, member_no: 'M-00421', mandate: 'MNDT-2024-0007' });
    await person('Jörg Weiß', { member_no: 'M-0077' });
    await person('Zoë Lefèvre');
    await person('Clara Mueller');
    await person('Lena Vogel', { iban: VOGEL_IBAN, member_no: 'M-0100' });
    await person('Paul Vogel', { iban: VOGEL_IBAN, member_no: 'M-0101' });
    expect((await api('POST', '/import-rules', { pattern: 'Beitrag', account_id: ids['Mitgliedsbeiträge'] })).status).toBe(201);
  });

  it('camt.053: IBAN beats reference beats name, a family IBAN goes on to the number, money out by the creditor, rules only for no one', async () => {
    const answer = await preview(request('camt053', camt053(MARCH)));
    expect(answer.errors).toEqual([]);
    expect(recognised(answer)).toEqual([
      [1, 'Anna Schmidt', 'iban', 'Anna Schmidt'],
      [2, 'Anna Schmidt', 'iban', 'Anna Schmidt'],
      [3, 'Anna Schmidt', 'reference', 'Anna Schmidt'],
      [4, 'Anna Schmidt', 'name', 'Anna Schmidt'],
      [5, 'Bernd Müller', 'reference', 'Bernd Müller'],
      [6, 'Paul Vogel', 'reference', 'Paul Vogel'],
      [7, null, null, 'Mitgliedsbeiträge'],
      [8, 'Bernd Müller', 'iban', 'Bernd Müller'],
      [9, null, null, 'Suspense'],
      [10, 'Bernd Müller', 'reference', 'Bernd Müller'],
    ]);
    // D27 "before any rule": the rule "Beitrag" fits lines 1 to 7 but books only line 7.
    expect(answer.lines.map((l: Json) => l.rule_id !== null)).toEqual([false, false, false, false, false, false, true, false, false, false]);
  });

  it('camt.053.001.08 (Pty/Nm): the same recognition', async () => {
    const answer = await preview(request('camt053', camt053(MARCH.slice(0, 4), '08')));
    expect(recognised(answer).map((l: Json) => l[2])).toEqual(['iban', 'iban', 'reference', 'name']);
  });

  it('CSV with a preamble, ";" and 1.234,56: iban_column and name_column; umlauts, ß, accents and word order', async () => {
    const answer = await preview(request('csv', GERMAN_CSV, { csv: GERMAN_CSV_OPTIONS }));
    expect(answer.errors).toEqual([]);
    expect(answer.lines.map((l: Json) => l.amount_cents)).toEqual([3000, 123456, 3000, 3000, -45000]);
    expect(recognised(answer)).toEqual([
      [6, 'Clara Mueller', 'name', 'Clara Mueller'],
      [7, 'Jörg Weiß', 'name', 'Jörg Weiß'],
      [8, 'Zoë Lefèvre', 'name', 'Zoë Lefèvre'],
      [9, 'Anna Schmidt', 'iban', 'Anna Schmidt'],
      [10, null, null, 'Suspense'],
    ]);
    // Without the two columns the same file recognises no one: the names come from name_column.
    const plain = await preview(request('csv', GERMAN_CSV, { csv: { ...GERMAN_CSV_OPTIONS, iban_column: undefined, name_column: undefined } }));
    expect(recognised(plain).map((l: Json) => l[1])).toEqual([null, null, null, null, null]);
  });

  it('CSV: an iban_column or name_column the file does not have is a 400 naming it', async () => {
    for (const [csv, error] of [
      [{ ...GERMAN_CSV_OPTIONS, iban_column: 'Kontonummer' }, /^line 5: the header has no column "Kontonummer"; its columns are "Buchungstag", /],
      [{ ...GERMAN_CSV_OPTIONS, name_column: 9 }, /^line 5: the header has 5 columns \(0 to 4\); csv\.name_column is 9$/],
      [{ ...GERMAN_CSV_OPTIONS, iban_column: -1 }, /^csv\.iban_column must be a column name or a 0-based index$/],
      [{ ...GERMAN_CSV_OPTIONS, name_column: ' ' }, /^csv\.name_column must be a column name or a 0-based index$/],
    ] as const) {
      const res = await api('POST', '/imports/preview', request('csv', GERMAN_CSV, { csv }));
      expect(res.status, JSON.stringify(csv)).toBe(400);
      expect((await json(res)).error).toMatch(error);
    }
  });

  it('OFX: NAME is the counterparty; a member number in MEMO beats the name', async () => {
    const answer = await preview(request('ofx', OFX));
    expect(recognised(answer)).toEqual([
      [1, 'Anna Schmidt', 'name', 'Anna Schmidt'],
      [2, 'Jörg Weiß', 'reference', 'Jörg Weiß'],
      [3, null, null, 'Suspense'],
    ]);
  });

  it("counter_accounts beats the person matched; bad pairs are the line's errors", async () => {
    const chosen = await preview(request('camt053', camt053(MARCH), {
      counter_accounts: [{ line: 1, account_id: ids['Spenden'] }, { line: 6, account_id: ids['Lena Vogel'] }, { line: 9, account_id: ids['Anna Schmidt'] }],
    }));
    expect(recognised(chosen).filter((l: Json) => [1, 6, 9].includes(l[0]))).toEqual([
      [1, null, null, 'Spenden'],
      [6, null, null, 'Lena Vogel'],
      [9, null, null, 'Anna Schmidt'],
    ]);
    expect(recognised(chosen).find((l: Json) => l[0] === 2)).toEqual([2, 'Anna Schmidt', 'iban', 'Anna Schmidt']);

    const bad = await preview(request('camt053', camt053(MARCH), {
      counter_accounts: [
        { line: 2, account_id: 999999 },
        { line: 3, account_id: ids['Girokonto'] },
        { line: 4, account_id: ids['Spenden'] },
        { line: 4, account_id: ids['Spenden'] },
        { line: 11, account_id: ids['Spenden'] },
      ],
    }));
    expect(bad.errors).toEqual([
      { line: 2, error: 'line 2: counter_accounts: no such account 999999' },
      { line: 3, error: "line 3: counter_accounts books it against the statement's own account" },
      { line: 4, error: 'line 4: counter_accounts names this line twice' },
      { line: 11, error: 'line 11: counter_accounts names no line 11 of the statement' },
    ]);
    expect(bad.lines.map((l: Json) => l.line)).toEqual([1, 5, 6, 7, 8, 9, 10]);
    for (const counter_accounts of [[{ line: 0, account_id: 1 }], [{ line: 1 }], { line: 1, account_id: 1 }]) {
      const res = await api('POST', '/imports/preview', request('camt053', camt053(MARCH), { counter_accounts }));
      expect(res.status, JSON.stringify(counter_accounts)).toBe(400);
      expect((await json(res)).error).toMatch(/^(entry 1: )?counter_accounts must be a list of \{line, account_id\}$/);
    }
  });

  it('the import books each payment to its person (their balance goes down) and the chosen account where one was chosen', async () => {
    const due = await api('POST', '/transactions', {
      occurred_on: '2026-03-01',
      description: 'Mitgliedsbeitrag 2026-03',
      entries: [{ account_id: ids['Anna Schmidt'], amount_cents: 3000 }, { account_id: ids['Mitgliedsbeiträge'], amount_cents: -3000 }],
    });
    expect(due.status).toBe(201);
    const before = { anna: await balance(ids['Anna Schmidt']!), bernd: await balance(ids['Bernd Müller']!), paul: await balance(ids['Paul Vogel']!), lena: await balance(ids['Lena Vogel']!) };
    expect(before).toEqual({ anna: 3000, bernd: 0, paul: 0, lena: 0 });

    const res = await api('POST', '/imports', request('camt053', camt053(MARCH), { counter_accounts: [{ line: 6, account_id: ids['Lena Vogel'] }] }));
    expect(res.status, await res.clone().text()).toBe(201);
    const { created } = await json(res);
    expect(created).toHaveLength(10);

    // Anna paid 30 + 30 + 25 + 25 against the 30 she owed; Bernd paid 12 and 30 and was refunded 5.
    expect(await balance(ids['Anna Schmidt']!)).toBe(3000 - 11000);
    expect(await balance(ids['Bernd Müller']!)).toBe(-1200 + 500 - 3000);
    // Line 6 was Paul's by his number, but the treasurer chose Lena.
    expect(await balance(ids['Paul Vogel']!)).toBe(0);
    expect(await balance(ids['Lena Vogel']!)).toBe(-1200);

    const first = await json(await api('GET', `/transactions/${created[0]}`));
    expect(first.entries.map((e: Json) => [e.account_name, e.amount_cents])).toEqual([['Girokonto', 3000], ['Anna Schmidt', -3000]]);
  });

  it('a returned direct debit (money out naming the mandate, the club as creditor) is matched to its person, who owes again (D27)', async () => {
    const before = await balance(ids['Bernd Müller']!);
    // As banks write a return: the original parties kept, so the creditor is the club itself.
    const returned = camt053([{ ref: 'R-01', cents: -3000, on: '2026-03-20', other: { name: 'TSV Musterstadt e.V.', iban: CLUB_IBAN }, text: 'RUECKLASTSCHRIFT MNDT-2024-0007 MD06 Beitrag' }]);
    const answer = await preview(request('camt053', returned));
    expect(recognised(answer)).toEqual([[1, 'Bernd Müller', 'reference', 'Bernd Müller']]);
    expect((await api('POST', '/imports', request('camt053', returned))).status).toBe(201);
    expect(await balance(ids['Bernd Müller']!)).toBe(before + 3000);
  });
});

describeEachDatabase('D27 payments in: a book without people answers as before', (h) => {
  let token: string;
  const ids: Record<string, number> = {};
  const api = (method: string, path: string, body?: unknown) => h.call(token, method, path, body);

  beforeAll(async () => {
    ({ token } = await h.userWithToken('treasurer@no-people.example'));
    for (const [name, kind] of [['Girokonto', 'asset'], ['Suspense', 'expense'], ['Mitgliedsbeiträge', 'income']] as const) {
      ids[name] = (await json(await api('POST', '/accounts', { name, kind }))).id;
    }
  });

  it('every line says person_id and person_match null, and rules and unmatched_account_id book them', async () => {
    const rule = await json(await api('POST', '/import-rules', { pattern: 'Beitrag', account_id: ids['Mitgliedsbeiträge'] }));
    const res = await api('POST', '/imports/preview', {
      account_id: ids['Girokonto'],
      format: 'camt053',
      content: camt053(MARCH.slice(0, 3).concat(MARCH[8]!)),
      unmatched_account_id: ids['Suspense'],
    });
    expect(res.status).toBe(200);
    const line = (n: number, occurred_on: string, description: string, amount_cents: number, counter: string, rule_id: number | null) => ({
      line: n, occurred_on, description, amount_cents, counter_account_id: ids[counter], rule_id, person_id: null, person_match: null, duplicate_of: null, match_of: null, reconciled_period: false,
    });
    expect(await json(res)).toEqual({
      lines: [
        line(1, '2026-03-02', 'SCHMIDT, ANNA — Mitgliedsbeitrag M-0042 Maerz', 3000, 'Mitgliedsbeiträge', rule.id),
        line(2, '2026-03-02', 'WEISS, JOERG — Mitgliedsbeitrag M-0077', 3000, 'Mitgliedsbeiträge', rule.id),
        line(3, '2026-03-03', 'MUELLER, BERND — Beitrag M-0042 Maerz', 2500, 'Mitgliedsbeiträge', rule.id),
        line(4, '2026-03-10', 'Stadtwerke Musterstadt GmbH — Abschlag Strom', -8000, 'Suspense', null),
      ],
      errors: [],
      date_format: null,
      statement: { opening: null, closing: null },
      book_closing_cents: null,
      agrees: null,
    });
  });
});
