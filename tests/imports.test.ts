import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import { rowsOf } from '../src/db/database';
import { describeEachDatabase } from './support/harness';
import { expectAuthenticationRequired, json } from './support/http';

// D16: bank statements in, over HTTP: preview writes nothing; an import books every new line as a
// two-entry transaction against its rule's account (or the unmatched one), with its change record
// (D15) and its bank reference; duplicates by reference or by date, amount and normalised
// description; any line at fault and nothing is written. The parsers have their own tests
// (tests/import-parsers.test.ts).

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const fixture = (name: string) => readFileSync(new URL(`./fixtures/imports/${name}`, import.meta.url), 'utf8');

const CSV_OPTIONS = { date_column: 'Date', description_column: 'Description', amount_column: 'Amount', date_format: 'YYYY-MM-DD', decimal: '.' } as const;
const csvFile = (...rows: string[]) => ['Date,Description,Amount', ...rows].join('\n') + '\n';

describeEachDatabase('bank statements in (D16)', (h) => {
  let token: string;
  const email = 'treasurer@imports.example';
  const ids: Record<string, number> = {};
  const api = (method: string, path: string, body?: unknown) => h.call(token, method, path, body);
  const count = async (table: 'transactions' | 'changes' | 'import_references') =>
    Number(rowsOf<{ n: string }>(await h.db.execute(sql`select count(*) as n from ${sql.identifier(table)}`))[0]!.n);
  const request = (content: string, account = 'Bank', extra: Record<string, unknown> = {}) => ({
    account_id: ids[account],
    format: 'csv',
    content,
    unmatched_account_id: ids['Suspense'],
    csv: CSV_OPTIONS,
    ...extra,
  });

  beforeAll(async () => {
    ({ token } = await h.userWithToken(email));
    for (const [name, kind] of [['Bank', 'asset'], ['Savings', 'asset'], ['Card', 'liability'], ['Suspense', 'expense'], ['Venue hire', 'expense'], ['Dues', 'income']] as const) {
      ids[name] = (await json(await api('POST', '/accounts', { name, kind }))).id;
    }
  });

  it('import rules: created, listed lowest id first, deleted; bad ones refused', async () => {
    const res = await api('POST', '/import-rules', { pattern: '  Sports Hall ', account_id: ids['Venue hire'] });
    expect(res.status).toBe(201);
    const rule = await json(res);
    expect(rule).toEqual({ id: expect.any(Number), pattern: 'Sports Hall', account_id: ids['Venue hire'] });
    const second = await json(await api('POST', '/import-rules', { pattern: 'membership', account_id: ids['Dues'] }));
    expect((await json(await api('GET', '/import-rules'))).map((r: Json) => r.id)).toEqual([rule.id, second.id]);

    for (const [body, message] of [
      [{ pattern: ' ', account_id: ids['Dues'] }, 'pattern is required'],
      [{ pattern: 'x', account_id: 999999 }, 'no such account'],
      [{ pattern: 'x', account_id: ids['Dues'], extra: 1 }, 'unknown field extra'],
      [{ pattern: 'x'.repeat(101), account_id: ids['Dues'] }, 'pattern has at most 100 characters'],
    ] as const) {
      const refused = await api('POST', '/import-rules', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect((await json(refused)).error).toEqual(message);
    }
    const temporary = await json(await api('POST', '/import-rules', { pattern: 'gone', account_id: ids['Dues'] }));
    expect((await api('DELETE', `/import-rules/${temporary.id}`)).status).toBe(204);
    const again = await api('DELETE', `/import-rules/${temporary.id}`);
    expect(again.status).toBe(404);
    expect(await json(again)).toEqual({ error: 'no such import rule' });
    expect((await json(await api('GET', '/import-rules'))).length).toBe(2);
  });

  it('preview shows every line with its counter account and rule, and writes nothing', async () => {
    const before = [await count('transactions'), await count('changes')];
    const rules = await json(await api('GET', '/import-rules'));
    const res = await api('POST', '/imports/preview', request(csvFile('2026-03-02,SPORTS HALL rent March,-120.00', '2026-03-03,Membership fee Sam,30.00', '2026-03-04,Coffee,-2.50')));
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      lines: [
        { line: 2, occurred_on: '2026-03-02', description: 'SPORTS HALL rent March', amount_cents: -12000, counter_account_id: ids['Venue hire'], rule_id: rules[0].id, person_id: null, person_match: null, duplicate_of: null, match_of: null, reconciled_period: false },
        { line: 3, occurred_on: '2026-03-03', description: 'Membership fee Sam', amount_cents: 3000, counter_account_id: ids['Dues'], rule_id: rules[1].id, person_id: null, person_match: null, duplicate_of: null, match_of: null, reconciled_period: false },
        { line: 4, occurred_on: '2026-03-04', description: 'Coffee', amount_cents: -250, counter_account_id: ids['Suspense'], rule_id: null, person_id: null, person_match: null, duplicate_of: null, match_of: null, reconciled_period: false },
      ],
      errors: [],
      date_format: 'YYYY-MM-DD',
      statement: { opening: null, closing: null },
      book_closing_cents: null,
      agrees: null,
    });
    expect([await count('transactions'), await count('changes')]).toEqual(before);
  });

  it('import books each line as two entries with its change record; the same file again adds nothing', async () => {
    const file = csvFile('2026-04-02,Sports Hall rent April,-120.00', '2026-04-03,Membership fee Alex,30.00');
    const res = await api('POST', '/imports', request(file));
    expect(res.status).toBe(201);
    const result = await json(res);
    expect(result).toEqual({ created: [expect.any(Number), expect.any(Number)], duplicates: [], errors: [] });
    const [rent, fee] = result.created;
    const rentShape = await json(await api('GET', `/transactions/${rent}`));
    expect(rentShape).toEqual({
      id: rent,
      occurred_on: '2026-04-02',
      description: 'Sports Hall rent April',
      created_by_email: email,
      entries: [
        { account_id: ids['Bank'], account_name: 'Bank', amount_cents: -12000 },
        { account_id: ids['Venue hire'], account_name: 'Venue hire', amount_cents: 12000 },
      ],
    });
    // D15: the record's `after` is the read shape, and says who and through what.
    const records = (await json(await api('GET', '/changes?subject=transaction&limit=2'))).changes;
    expect(records.map((r: Json) => r.subject_id)).toEqual([fee, rent]);
    expect(records[1]).toMatchObject({ actor_email: email, via: 'token', client_id: 'ledger-cli', action: 'create', before: null, after: rentShape });
    expect(records[0].after).toEqual(await json(await api('GET', `/transactions/${fee}`)));

    const again = await api('POST', '/imports', request(file));
    expect(again.status).toBe(201);
    expect(await json(again)).toEqual({ created: [], duplicates: [2, 3], errors: [] });
    const preview = await json(await api('POST', '/imports/preview', request(file)));
    expect(preview.lines.map((l: Json) => l.duplicate_of)).toEqual([rent, fee]);
  });

  it('n identical lines are n transactions the first time and n duplicates the second; a hand-typed twin counts', async () => {
    const line = '2026-05-01, Bus   ticket ,-3.20';
    const twice = csvFile(line, line);
    expect((await json(await api('POST', '/imports', request(twice)))).created).toHaveLength(2);
    expect(await json(await api('POST', '/imports', request(twice)))).toEqual({ created: [], duplicates: [2, 3], errors: [] });
    const thrice = await json(await api('POST', '/imports', request(csvFile(line, line, line))));
    expect(thrice.created).toHaveLength(1);
    expect(thrice.duplicates).toEqual([2, 3]);

    // Typed by hand before the statement came: same date, amount and description up to case and spaces.
    const typed = await json(await api('POST', '/transactions', {
      occurred_on: '2026-05-02', description: 'bakery', entries: [{ account_id: ids['Bank'], amount_cents: -480 }, { account_id: ids['Suspense'], amount_cents: 480 }],
    }));
    const preview = await json(await api('POST', '/imports/preview', request(csvFile('2026-05-02,BAKERY,-4.80', '2026-05-02,Bakery,-4.80'))));
    expect(preview.lines.map((l: Json) => l.duplicate_of)).toEqual([typed.id, null]);
    // The same line on another account is not a duplicate.
    const savings = await json(await api('POST', '/imports/preview', request(csvFile('2026-05-02,BAKERY,-4.80'), 'Savings')));
    expect(savings.lines[0].duplicate_of).toBeNull();
  });

  it('any line at fault: 400 naming it, and nothing written', async () => {
    const before = [await count('transactions'), await count('changes'), await count('import_references')];
    const res = await api('POST', '/imports', request(csvFile('2026-06-01,Fine,-1.00', '2026-06-31,Bad date,-1.00', '2026-06-02,Bad amount,1.2.3')));
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error).toBe('the statement was not imported: 2 lines cannot be booked');
    expect(body.errors.map((e: Json) => e.line)).toEqual([3, 4]);
    for (const e of body.errors) expect(e.error).toMatch(new RegExp(`^line ${e.line}: `));
    expect([await count('transactions'), await count('changes'), await count('import_references')]).toEqual(before);
    // The preview shows the good line and the errors.
    const preview = await json(await api('POST', '/imports/preview', request(csvFile('2026-06-01,Fine,-1.00', '2026-06-31,Bad date,-1.00'))));
    expect(preview.lines.map((l: Json) => l.line)).toEqual([2]);
    expect(preview.errors.map((e: Json) => e.line)).toEqual([3]);
  });

  it('refuses bad requests with a sentence and a 400, never a 500', async () => {
    const cases: [unknown, string | RegExp][] = [
      [{ ...request(csvFile('2026-06-01,A,1.00')), csv: undefined }, /^csv is required/],
      [request('<OFX>', 'Bank', { format: 'ofx' }), 'csv is only for format csv'],
      [request(csvFile('2026-06-01,A,1.00'), 'Bank', { unmatched_account_id: ids['Bank'] }), "unmatched_account_id must differ from the statement's account"],
      [request(csvFile('2026-06-01,A,1.00'), 'Bank', { account_id: 1999999 }), 'account_id: no such account'],
      [request(csvFile('2026-06-01,A,1.00'), 'Bank', { format: 'qif' }), 'format must be csv, ofx or camt053'],
      [request(csvFile('2026-06-01,A,1.00'), 'Bank', { surprise: true }), /surprise/],
      [request('Datum;Text\n1;2\n'), /./],
    ];
    for (const [body, message] of cases) {
      for (const path of ['/imports/preview', '/imports']) {
        const res = await api('POST', path, body);
        expect(res.status, `${path} ${JSON.stringify(body).slice(0, 200)}`).toBe(400);
        expect((await json(res)).error).toMatch(message);
      }
    }
    // Hostile and broken files: a sentence, nothing written, no entity expanded (the message is ours).
    const before = [await count('transactions'), await count('changes')];
    for (const [file, format] of [
      ['xml-billion-laughs.xml', 'camt053'],
      ['xml-external-entity.xml', 'camt053'],
      ['xml-external-entity.xml', 'ofx'],
      ['camt053-truncated.xml', 'camt053'],
      ['ofx-actually-html.ofx', 'ofx'],
    ] as const) {
      const body = { ...request(fixture(file)), format, csv: undefined };
      for (const path of ['/imports/preview', '/imports']) {
        const res = await api('POST', path, body);
        expect(res.status, `${path} ${file}`).toBe(400);
        const answer = await json(res);
        expect(answer.error, file).toMatch(/^[a-z]/);
        expect(JSON.stringify(answer)).not.toMatch(/root:|lol{3}|Error:|at \w+ \(/);
      }
    }
    const utf16 = await api('POST', '/imports', request(readFileSync(new URL('./fixtures/imports/csv-utf16le.csv', import.meta.url), 'latin1')));
    expect(utf16.status).toBe(400);
    expect([await count('transactions'), await count('changes')]).toEqual(before);

    await expectAuthenticationRequired(await h.request('/imports', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
    await expectAuthenticationRequired(await h.request('/import-rules'));
  });

  it('OFX: a line seen before by its bank reference is a duplicate, even after its transaction was deleted', async () => {
    const ofx = { ...request(fixture('ofx-1-sgml.ofx'), 'Card'), format: 'ofx', csv: undefined };
    const first = await json(await api('POST', '/imports', ofx));
    expect(first.created.length).toBeGreaterThanOrEqual(3);
    expect(first.duplicates).toEqual([]);
    expect((await api('DELETE', `/transactions/${first.created[0]}`)).status).toBe(204);
    const second = await json(await api('POST', '/imports', ofx));
    expect(second.created).toEqual([]);
    expect(second.duplicates).toEqual(first.created.map((_: number, i: number) => i + 1));
    const preview = await json(await api('POST', '/imports/preview', ofx));
    expect(preview.lines.map((l: Json) => l.duplicate_of)).toEqual(first.created);
  });

  it('camt.053: each Ntry booked with money in positive on the statement account', async () => {
    const camt = { ...request(fixture('camt053-001-08.xml'), 'Savings'), format: 'camt053', csv: undefined };
    const preview = await json(await api('POST', '/imports/preview', camt));
    expect(preview.lines.length).toBeGreaterThan(0);
    expect(preview.errors).toEqual([]);
    expect(preview.lines.some((l: Json) => l.amount_cents > 0) && preview.lines.some((l: Json) => l.amount_cents < 0)).toBe(true);
    const res = await api('POST', '/imports', camt);
    const body = await json(res);
    expect(res.status).toBe(201);
    expect(body.created).toHaveLength(preview.lines.length);
    const shape = await json(await api('GET', `/transactions/${body.created[0]}`));
    expect(shape.entries[0]).toEqual({ account_id: ids['Savings'], account_name: 'Savings', amount_cents: preview.lines[0].amount_cents });
    expect(shape.entries[1].amount_cents).toBe(-preview.lines[0].amount_cents);
  });

  it('the same file sent twice at once is imported once (imports of an account run one after the other)', async () => {
    const file = request(csvFile('2026-07-01,Race one,-1.00', '2026-07-02,Race two,-2.00'), 'Savings');
    const results = await Promise.all([api('POST', '/imports', file), api('POST', '/imports', file)]);
    const bodies = await Promise.all(results.map((r) => json(r)));
    expect(results.map((r) => r.status)).toEqual([201, 201]);
    expect(bodies.map((b) => b.created.length).sort()).toEqual([0, 2]);
  });

  it('issue 37 item 5 (D16 statement balances, csv.balance_column): a Sparkasse-style CSV newest first (a preamble, ";", 1.234,56, "Saldo") opens before its oldest line and closes on its newest, in natural sign for a bank and a card; it agrees and reconciles', async () => {
    for (const [name, kind] of [['Sparkasse Giro', 'asset'], ['Visa card', 'liability'], ['Opening balances', 'equity']] as const) {
      ids[name] = (await json(await api('POST', '/accounts', { name, kind }))).id;
    }
    const opening = async (account: string, on: string, cents: number) =>
      expect((await api('POST', '/transactions', { occurred_on: on, description: 'Opening balance', entries: [{ account_id: ids[account], amount_cents: cents }, { account_id: ids['Opening balances'], amount_cents: -cents }] })).status).toBe(201);
    const giro = [
      '"Umsätze Girokonto";"Zeitraum: 01.10.2026 - 31.10.2026"',
      '"Kontonummer";"DE02 1203 0000 0000 2020 51"',
      '',
      '"Buchungstag";"Valutadatum";"Buchungstext";"Verwendungszweck";"Beguenstigter/Zahlungspflichtiger";"Betrag";"Saldo"',
      // Newest first; two lines on the newest day and two on the oldest, each in the file's (reversed) order.
      '"31.10.2026";"31.10.2026";"ENTGELTABSCHLUSS";"Kontoführung Oktober";"";"-7,50";"1.227,06"',
      '"31.10.2026";"31.10.2026";"GUTSCHRIFT";"Mitgliedsbeitrag 2026";"Anna Schmidt";"60,00";"1.234,56"',
      '"15.10.2026";"14.10.2026";"LASTSCHRIFT";"Hallenmiete Oktober";"Stadt Beispiel";"-500,00";"1.174,56"',
      '"01.10.2026";"01.10.2026";"KARTENZAHLUNG";"Trikots";"Sportshop";"-25,44";"1.674,56"',
      '"01.10.2026";"01.10.2026";"GUTSCHRIFT";"Spende";"Ben Beispiel";"100,00";"1.700,00"',
    ].join('\r\n');
    const csv = { date_column: 'Buchungstag', description_column: ['Beguenstigter/Zahlungspflichtiger', 'Verwendungszweck'], amount_column: 'Betrag', balance_column: 'Saldo', decimal: ',', skip_rows: 3 };
    await opening('Sparkasse Giro', '2026-09-30', 160000);
    const body = request(giro, 'Sparkasse Giro', { csv });
    const preview = await json(await api('POST', '/imports/preview', body));
    expect(preview.errors).toEqual([]);
    expect(preview).toMatchObject({
      date_format: 'DD.MM.YYYY',
      statement: { opening: { on: '2026-10-01', amount_cents: 160000 }, closing: { on: '2026-10-31', amount_cents: 122706 } },
      book_closing_cents: 122706,
      agrees: true,
    });
    expect((await api('POST', '/imports', body)).status).toBe(201);
    const reconciled = await api('POST', `/accounts/${ids['Sparkasse Giro']}/reconciliations`, { statement_date: '2026-10-31', statement_balance_cents: 122706 });
    expect(reconciled.status, JSON.stringify(await reconciled.clone().json())).toBe(201);

    // A card's statement: the bank states the debt negative; the answer says it as owed (D6).
    const card = ['"Datum";"Beschreibung";"Betrag";"Saldo"', '"28.11.2026";"Zahlung, danke";"200,00";"-509,59"', '"20.11.2026";"Hotel Beispiel";"-450,00";"-709,59"', '"05.11.2026";"Tankstelle";"-59,59";"-259,59"'].join('\n');
    await opening('Visa card', '2026-11-01', -20000);
    const cardBody = request(card, 'Visa card', { csv: { date_column: 'Datum', description_column: 'Beschreibung', amount_column: 'Betrag', balance_column: 'Saldo', decimal: ',' } });
    expect(await json(await api('POST', '/imports/preview', cardBody))).toMatchObject({
      errors: [],
      statement: { opening: { on: '2026-11-05', amount_cents: 20000 }, closing: { on: '2026-11-28', amount_cents: 50959 } },
      book_closing_cents: 50959,
      agrees: true,
    });
  });

  it('5,000 lines are imported in one go, each with its record', async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => `2025-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')},Line ${i},${i % 2 ? '' : '-'}${(i % 900) + 1}.${String(i % 100).padStart(2, '0')}`);
    const before = await count('changes');
    const started = performance.now();
    const res = await api('POST', '/imports', request(csvFile(...rows), 'Card'));
    const seconds = (performance.now() - started) / 1000;
    expect(res.status).toBe(201);
    expect((await json(res)).created).toHaveLength(5000);
    expect(await count('changes')).toBe(before + 5000);
    console.info(`[${h.backend}] 5,000-line import: ${seconds.toFixed(2)} s`);
  });
});
