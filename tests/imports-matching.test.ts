import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import { rowsOf } from '../src/db/database';
import { describeEachDatabase } from './support/harness';
import { json } from './support/http';

// D16's last four bullets over HTTP: dates a person cannot be sure of (csv.date_format auto, 400
// with candidates), entries typed by hand before the statement came (match_of, matches → linked,
// the next import finds them as duplicates), statement balances beside the book's (natural sign,
// agrees), description columns joined; and D20's closed period as an import meets it (line errors,
// nothing written). The parsers alone: tests/import-parsers.test.ts.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const fixture = (name: string) => readFileSync(new URL(`./fixtures/imports/${name}`, import.meta.url), 'utf8');
const US = { date_column: 'Posting Date', description_column: 'Description', amount_column: 'Amount', decimal: '.' } as const;
const PLAIN = { date_column: 'Date', description_column: 'Description', amount_column: 'Amount', decimal: '.' } as const;
const BALANCED = { ...PLAIN, balance_column: 'Balance' } as const;
const csvFile = (...rows: string[]) => ['Date,Description,Amount', ...rows].join('\n') + '\n';

describeEachDatabase('bank and book agree: imports (D16, D20)', (h) => {
  let token: string;
  const ids: Record<string, number> = {};
  const api = (method: string, path: string, body?: unknown) => h.call(token, method, path, body);
  const count = async (table: 'transactions' | 'changes' | 'import_references' | 'import_lines') =>
    Number(rowsOf<{ n: string }>(await h.db.execute(sql`select count(*) as n from ${sql.identifier(table)}`))[0]!.n);
  const counts = async () => Promise.all((['transactions', 'changes', 'import_references', 'import_lines'] as const).map(count));
  const request = (account: string, format: string, content: string, extra: Record<string, unknown> = {}) => ({
    account_id: ids[account],
    format,
    content,
    unmatched_account_id: ids['Suspense'],
    ...extra,
  });
  const preview = async (body: unknown) => {
    const res = await api('POST', '/imports/preview', body);
    expect(res.status).toBe(200);
    return json(res);
  };
  /** A transaction typed by hand: `amount` into `account` from (or, negative, out to) `other`. */
  const hand = async (account: string, occurred_on: string, description: string, amount: number, other = 'Dues') => {
    const res = await api('POST', '/transactions', {
      occurred_on,
      description,
      entries: [{ account_id: ids[account], amount_cents: amount }, { account_id: ids[other], amount_cents: -amount }],
    });
    expect(res.status, await res.clone().text()).toBe(201);
    return (await json(res)).id as number;
  };

  beforeAll(async () => {
    ({ token } = await h.userWithToken('treasurer@matching.example'));
    for (const [name, kind] of [
      ['Suspense', 'expense'], ['Dues', 'income'], ['Opening', 'equity'],
      ['Dates', 'asset'], ['Hand', 'asset'], ['Card', 'liability'], ['Linked', 'asset'], ['Wrong', 'asset'],
      ['Camt', 'asset'], ['Overdrawn', 'asset'], ['Ofx1', 'asset'], ['OfxCard', 'liability'], ['Newest', 'asset'], ['Oldest', 'asset'],
      ['German', 'asset'], ['Closed', 'asset'], ['Reconciled', 'asset'],
    ] as const) {
      ids[name] = (await json(await api('POST', '/accounts', { name, kind }))).id;
    }
  });

  it('D16 auto dates: the one format that reads every date is used, and the preview says which', async () => {
    const body = request('Dates', 'csv', csvFile('02.03.2026,Bakery,-6.85', '31.03.2026,Fee,-5.00'), { csv: PLAIN });
    const answer = await preview(body);
    expect(answer.date_format).toBe('DD.MM.YYYY');
    expect(answer.lines.map((l: Json) => l.occurred_on)).toEqual(['2026-03-02', '2026-03-31']);
    expect((await preview({ ...body, csv: { ...PLAIN, date_format: 'auto' } })).date_format).toBe('DD.MM.YYYY');
    expect((await preview({ ...body, csv: { ...PLAIN, date_format: 'DD.MM.YYYY' } })).date_format).toBe('DD.MM.YYYY');
    expect((await preview(request('Ofx1', 'ofx', fixture('ofx-1-sgml.ofx')))).date_format).toBeNull();
  });

  it('D16 auto dates: a US file whose days are all 12 or less is refused with candidates, nothing written; the chosen reading is what is saved', async () => {
    const before = await counts();
    for (const path of ['/imports/preview', '/imports']) {
      const res = await api('POST', path, request('Dates', 'csv', fixture('csv-us-ambiguous.csv'), { csv: US }));
      expect(res.status, path).toBe(400);
      expect(await json(res)).toEqual({ error: 'the dates fit several formats: choose one', candidates: ['DD/MM/YYYY', 'MM/DD/YYYY'] });
    }
    expect(await counts()).toEqual(before);
    const res = await api('POST', '/imports', request('Dates', 'csv', fixture('csv-us-ambiguous.csv'), { csv: { ...US, date_format: 'MM/DD/YYYY' } }));
    expect(res.status).toBe(201);
    const saved = await Promise.all((await json(res)).created.map(async (id: number) => (await json(await api('GET', `/transactions/${id}`))).occurred_on));
    expect(saved).toEqual(['2026-11-05', '2026-03-04', '2026-12-01']);
  });

  it('D16 auto dates: formats that agree on every date take the first listed; none: the line errors of the format reading most', async () => {
    const agree = await preview(request('Dates', 'csv', csvFile('05/05/2026,A,1.00', '12/12/2026,B,1.00'), { csv: PLAIN }));
    expect(agree.date_format).toBe('DD/MM/YYYY');
    const none = await preview(request('Dates', 'csv', csvFile('31/03/2026,A,1.00', '2026-03-30,B,1.00', '30/03/2026,C,1.00'), { csv: PLAIN }));
    expect(none.date_format).toBe('DD/MM/YYYY');
    expect(none.errors).toEqual([{ line: 3, error: 'line 3: "2026-03-30" is not a date in the format DD/MM/YYYY' }]);
    const refused = await api('POST', '/imports', request('Dates', 'csv', csvFile('31/03/2026,A,1.00', '2026-03-30,B,1.00', '30/03/2026,C,1.00'), { csv: PLAIN }));
    expect(refused.status).toBe(400);
    expect((await json(refused)).errors).toEqual([{ line: 3, error: 'line 3: "2026-03-30" is not a date in the format DD/MM/YYYY' }]);
  });

  it('D16 match_of: the hand entry of the same signed amount nearest in date, then the lowest id; each taken once, in file order', async () => {
    const far = await hand('Hand', '2026-03-02', 'Dues Anna (typed early)', 6000);
    const near = await hand('Hand', '2026-03-04', 'Dues 2026 Anna Schmidt', 6000);
    const twinA = await hand('Hand', '2026-03-12', 'Hall rent', -12000);
    const twinB = await hand('Hand', '2026-03-08', 'Hall rent again', -12000);
    const wrongSign = await hand('Hand', '2026-03-05', 'Refund', -6000);
    const answer = await preview(request('Hand', 'csv', csvFile(
      '2026-03-05,ANNA SCHMIDT DUES,60.00',
      '2026-03-05,ANNA SCHMIDT DUES AGAIN,60.00',
      '2026-03-10,SPORTS HALL,-120.00',
      '2026-03-10,SPORTS HALL 2,-120.00',
      '2026-03-10,Nothing typed,-7.00',
    ), { csv: PLAIN }));
    expect(answer.lines.map((l: Json) => [l.line, l.match_of])).toEqual([[2, near], [3, far], [4, twinB < twinA ? twinB : twinA], [5, twinB < twinA ? twinA : twinB], [6, null]]);
    expect(answer.lines.map((l: Json) => l.match_of)).not.toContain(wrongSign);
  });

  it('D16 match_of: never beyond match_days (0-10, default 3), never a transaction an import created, never a reconciled one', async () => {
    const fourDays = await hand('Reconciled', '2026-05-01', 'Typed four days early', 2500);
    const line = csvFile('2026-05-05,BANK LINE,25.00');
    expect((await preview(request('Reconciled', 'csv', line, { csv: PLAIN }))).lines[0].match_of).toBeNull();
    expect((await preview(request('Reconciled', 'csv', line, { csv: PLAIN, match_days: 4 }))).lines[0].match_of).toBe(fourDays);
    expect((await preview(request('Reconciled', 'csv', csvFile('2026-05-01,SAME DAY,25.00'), { csv: PLAIN, match_days: 0 }))).lines[0].match_of).toBe(fourDays);
    for (const [days, status] of [[11, 400], [-1, 400], [1.5, 400], ['3', 400], [10, 200]] as const) {
      const res = await api('POST', '/imports/preview', request('Reconciled', 'csv', line, { csv: PLAIN, match_days: days }));
      expect(res.status, String(days)).toBe(status);
      if (status === 400) expect(await json(res)).toEqual({ error: 'match_days must be a whole number from 0 to 10' });
    }

    // Reconciled (D20): fixed, so never offered.
    const res = await api('POST', `/accounts/${ids['Reconciled']}/reconciliations`, { statement_date: '2026-05-01', statement_balance_cents: 2500, transaction_ids: [fourDays] });
    expect(res.status, await res.clone().text()).toBe(201);
    expect((await preview(request('Reconciled', 'csv', line, { csv: PLAIN, match_days: 4 }))).lines[0].match_of).toBeNull();

    // Created by an import: never a hand entry, on this account or another.
    const imported = await json(await api('POST', '/imports', request('Hand', 'csv', csvFile('2026-06-01,IMPORTED,9.99'), { csv: PLAIN })));
    expect(imported.created).toHaveLength(1);
    expect((await preview(request('Hand', 'csv', csvFile('2026-06-02,SOMETHING ELSE,9.99'), { csv: PLAIN }))).lines[0].match_of).toBeNull();
  });

  it('D16 match_of on a card (a liability): the same signed amount on the account, money out negative', async () => {
    const lunch = await hand('Card', '2026-04-02', 'Team lunch', -4250, 'Suspense');
    const payment = await hand('Card', '2026-04-20', 'Card payment', 10000, 'Opening');
    const answer = await preview(request('Card', 'csv', csvFile('2026-04-03,RESTAURANT,-42.50', '2026-04-21,PAYMENT THANK YOU,100.00', '2026-04-21,REFUND,42.50'), { csv: PLAIN }));
    expect(answer.lines.map((l: Json) => l.match_of)).toEqual([lunch, payment, null]);
  });

  it('D16 matches: those lines link (answer linked), the rest are created; no change record for a link; the next import finds every line a duplicate', async () => {
    const dues = await hand('Linked', '2026-03-03', 'Dues 2026 Anna Schmidt', 6000);
    const rent = await hand('Linked', '2026-03-09', 'Hall rent March', -12000, 'Suspense');
    const camt = request('Linked', 'camt053', fixture('camt053-001-08-balances.xml'));
    const csv = request('Linked', 'csv', csvFile('2026-03-10,SPORTS HALL MARCH,-120.00', '2026-03-11,Coffee,-2.50'), { csv: PLAIN });
    expect((await preview(camt)).lines.map((l: Json) => l.match_of)).toEqual([null, dues, null]);
    expect((await preview(csv)).lines.map((l: Json) => l.match_of)).toEqual([rent, null]);

    const before = await counts();
    const res = await api('POST', '/imports', { ...camt, matches: [{ line: 2, transaction_id: dues }] });
    expect(res.status).toBe(201);
    const result = await json(res);
    expect(result).toEqual({ created: [expect.any(Number), expect.any(Number)], duplicates: [], errors: [], linked: [dues] });
    // Two created: two change records; the link changed nothing of the hand entry.
    const after = await counts();
    // transactions, changes, import_references, import_lines
    expect(after.map((n, i) => n - before[i]!)).toEqual([2, 2, 3, 3]);
    expect((await json(await api('GET', `/transactions/${dues}`))).description).toBe('Dues 2026 Anna Schmidt');

    const csvResult = await json(await api('POST', '/imports', { ...csv, matches: [{ line: 2, transaction_id: rent }] }));
    expect(csvResult).toEqual({ created: [expect.any(Number)], duplicates: [], errors: [], linked: [rent] });

    // The same statements again: all duplicates, by reference (camt) and by the linked line's own date, amount and description (CSV).
    expect(await json(await api('POST', '/imports', camt))).toEqual({ created: [], duplicates: [1, 2, 3], errors: [] });
    expect(await json(await api('POST', '/imports', csv))).toEqual({ created: [], duplicates: [2, 3], errors: [] });
    const again = await preview(csv);
    expect(again.lines.map((l: Json) => [l.duplicate_of, l.match_of])).toEqual([[rent, null], [csvResult.created[0], null]]);
    // Linked, the hand entries are no longer typed by hand.
    expect((await preview(request('Linked', 'csv', csvFile('2026-03-04,ANOTHER 60,60.00'), { csv: PLAIN }))).lines[0].match_of).toBeNull();
    // Without matches the import behaves as before: a match_of line is created.
    const typed = await hand('Linked', '2026-07-01', 'Typed', 700);
    const plain = await json(await api('POST', '/imports', request('Linked', 'csv', csvFile('2026-07-01,BANK 7,7.00'), { csv: PLAIN })));
    expect(plain).toEqual({ created: [expect.any(Number)], duplicates: [], errors: [] });
    expect(plain.created[0]).not.toBe(typed);
  });

  it('D16 matches: a pair that is not a match_of of the same preview is a 400 line error and nothing is written', async () => {
    const typed = await hand('Wrong', '2026-03-04', 'Dues Anna', 6000);
    const other = await hand('Wrong', '2026-03-05', 'Other', 1234);
    const body = request('Wrong', 'csv', csvFile('2026-03-05,DUES,60.00', '2026-03-06,COFFEE,-2.50'), { csv: PLAIN });
    const before = await counts();
    for (const [matches, errors] of [
      [[{ line: 2, transaction_id: other }], [{ line: 2, error: `line 2: transaction ${other} is not a match of this line (its match is transaction ${typed})` }]],
      [[{ line: 3, transaction_id: typed }], [{ line: 3, error: `line 3: transaction ${typed} is not a match of this line (it matches no transaction typed by hand)` }]],
      [[{ line: 9, transaction_id: typed }], [{ line: 9, error: 'line 9: there is no line 9 to link in the statement' }]],
      [[{ line: 2, transaction_id: typed }, { line: 2, transaction_id: typed }], [{ line: 2, error: 'line 2: matches names this line twice' }]],
    ] as const) {
      const res = await api('POST', '/imports', { ...body, matches });
      expect(res.status, JSON.stringify(matches)).toBe(400);
      expect(await json(res)).toEqual({ error: 'the statement was not imported: a line cannot be booked', errors });
    }
    for (const matches of [[{ line: 0, transaction_id: typed }], [{ line: 2 }], 'all', [{ line: 2, transaction_id: typed, extra: 1 }]]) {
      const res = await api('POST', '/imports', { ...body, matches });
      expect(res.status, JSON.stringify(matches)).toBe(400);
      expect((await json(res)).error).toMatch(/^(entry 1: )?matches must be a list of \{line, transaction_id\}$/);
    }
    const refused = await api('POST', '/imports/preview', { ...body, matches: [] });
    expect(refused.status).toBe(400);
    expect(await json(refused)).toEqual({ error: 'unknown field matches' });
    expect(await counts()).toEqual(before);
  });

  it('D16 statement balances: camt OPBD and CLBD in natural sign beside the book after this import; agrees true, then false', async () => {
    await hand('Camt', '2026-02-28', 'Opening balance', 250000, 'Opening');
    const dues = await hand('Camt', '2026-03-03', 'Dues 2026 Anna Schmidt', 6000);
    const body = request('Camt', 'camt053', fixture('camt053-001-08-balances.xml'));
    const answer = await preview(body);
    expect(answer.lines.map((l: Json) => l.match_of)).toEqual([null, dues, null]);
    // 2,500.00 + 60.00 typed by hand (the match counted once) − 6.85 − 5.00 = 2,548.15.
    expect(answer).toMatchObject({
      date_format: null,
      statement: { opening: { on: '2026-02-28', amount_cents: 250000 }, closing: { on: '2026-03-31', amount_cents: 254815 } },
      book_closing_cents: 254815,
      agrees: true,
    });
    await hand('Camt', '2026-03-20', 'Cash paid in, not on this statement', 1000);
    expect(await preview(body)).toMatchObject({ book_closing_cents: 255815, agrees: false });
    // A later entry is past the closing date: not counted.
    await hand('Camt', '2026-04-01', 'April', 99999);
    expect((await preview(body)).book_closing_cents).toBe(255815);
  });

  it('D16 statement balances: several camt Stmt, the opening of the first and the closing of the last, negative when overdrawn', async () => {
    await hand('Overdrawn', '2026-03-31', 'Opening balance', 10000, 'Opening');
    expect(await preview(request('Overdrawn', 'camt053', fixture('camt053-001-08-overdrawn.xml')))).toMatchObject({
      statement: { opening: { on: '2026-03-31', amount_cents: 10000 }, closing: { on: '2026-04-30', amount_cents: -7000 } },
      book_closing_cents: -7000,
      agrees: true,
    });
  });

  it('D16 statement balances: OFX LEDGERBAL closes; on a card (a liability) the debt is answered positive, in natural sign', async () => {
    expect(await preview(request('OfxCard', 'ofx', fixture('ofx-2-xml.ofx')))).toMatchObject({
      statement: { opening: null, closing: { on: '2026-02-28', amount_cents: 7940 } },
      book_closing_cents: 7940,
      agrees: true,
    });
    // OFX 1.02 SGML: 1,003.14 stated, the book after this import −1,001.86 without its opening balance.
    expect(await preview(request('Ofx1', 'ofx', fixture('ofx-1-sgml.ofx')))).toMatchObject({
      statement: { opening: null, closing: { on: '2026-03-31', amount_cents: 100314 } },
      book_closing_cents: -100186,
      agrees: false,
    });
    await hand('Ofx1', '2026-03-01', 'Opening balance', 200500, 'Opening');
    expect(await preview(request('Ofx1', 'ofx', fixture('ofx-1-sgml.ofx')))).toMatchObject({ book_closing_cents: 100314, agrees: true });
    // Imported, the duplicates are in the book already and not counted twice.
    expect((await api('POST', '/imports', request('Ofx1', 'ofx', fixture('ofx-1-sgml.ofx')))).status).toBe(201);
    expect(await preview(request('Ofx1', 'ofx', fixture('ofx-1-sgml.ofx')))).toMatchObject({ book_closing_cents: 100314, agrees: true });
  });

  it('D16 statement balances: a CSV balance column newest first or oldest first; without one, null and agrees null', async () => {
    const expected = {
      statement: { opening: { on: '2026-03-02', amount_cents: 200000 }, closing: { on: '2026-03-31', amount_cents: 205815 } },
      book_closing_cents: 205815,
      agrees: true,
    };
    for (const [account, file] of [['Newest', 'csv-balance-newest-first.csv'], ['Oldest', 'csv-balance-oldest-first.csv']] as const) {
      await hand(account, '2026-03-01', 'Opening balance', 200000, 'Opening');
      expect(await preview(request(account, 'csv', fixture(file), { csv: BALANCED })), file).toMatchObject(expected);
    }
    expect(await preview(request('Oldest', 'csv', fixture('csv-balance-oldest-first.csv'), { csv: PLAIN }))).toMatchObject({
      statement: { opening: null, closing: null },
      book_closing_cents: null,
      agrees: null,
    });
  });

  it('D16 German CSV: payee and purpose joined with " ", a preamble, ";" and 1.234,56, the Kontostand closing', async () => {
    const options = {
      date_column: 'Buchungstag',
      description_column: ['Auftraggeber/Empfänger', 'Verwendungszweck'],
      amount_column: 'Betrag (EUR)',
      balance_column: 'Kontostand (EUR)',
      decimal: ',',
      skip_rows: 4,
    };
    const answer = await preview(request('German', 'csv', fixture('csv-german-payee-purpose.csv'), { csv: options }));
    expect(answer.lines.map((l: Json) => l.description)).toEqual(['Kontoführung März', 'Anna Schmidt Mitgliedsbeitrag 2026', 'Bäckerei Korn Kartenzahlung Vereinsfeier']);
    expect(answer).toMatchObject({
      date_format: 'DD.MM.YYYY',
      statement: { opening: { on: '2026-03-02', amount_cents: 350000 }, closing: { on: '2026-03-31', amount_cents: 254815 } },
      book_closing_cents: 254815 - 350000,
      agrees: false,
    });
  });

  it('D20 closed period: each line dated on or before closed_through is a line error, in the preview too; nothing written; duplicates are not refused', async () => {
    const first = await json(await api('POST', '/imports', request('Closed', 'csv', csvFile('2025-12-30,Old one,-1.00'), { csv: PLAIN })));
    expect(first.created).toHaveLength(1);
    const closing = await api('PUT', '/settings', { closed_through: '2025-12-31' });
    expect(closing.status, await closing.clone().text()).toBe(200);
    try {
      const body = request('Closed', 'csv', csvFile('2025-12-30,Old one,-1.00', '2025-12-31,New Year\'s Eve,-2.00', '2025-11-02,November,-3.00', '2026-01-01,New Year,-4.00'), { csv: PLAIN });
      const errors = [
        { line: 3, error: 'line 3: the books are closed through 2025-12-31' },
        { line: 4, error: 'line 4: the books are closed through 2025-12-31' },
      ];
      const before = await counts();
      const res = await api('POST', '/imports', body);
      expect(res.status).toBe(400);
      expect(await json(res)).toEqual({ error: 'the statement was not imported: 2 lines cannot be booked', errors });
      expect(await counts()).toEqual(before);
      const answer = await preview(body);
      expect(answer.errors).toEqual(errors);
      expect(answer.lines.map((l: Json) => [l.line, l.duplicate_of])).toEqual([[2, first.created[0]], [5, null]]);
    } finally {
      expect((await api('PUT', '/settings', { closed_through: null })).status).toBe(200);
    }
  });
});
