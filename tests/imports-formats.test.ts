import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import { restoreBackup, writeBackup } from '../src/admin/backup';
import { rowsOf, type Db } from '../src/db/database';
import { openTestDatabase } from './support/databases';
import { describeEachDatabase } from './support/harness';
import { json } from './support/http';

// Issue 37 item 2, D16's last bullet ("Another format, the same line"): a bank export switched
// from camt.053 to OFX never books a line twice. A line whose reference is new on the account is
// still a duplicate of a transaction an import of another format (or of a format not recorded)
// created or linked, with the same date, amount and normalised description, each transaction
// matching at most one line; the same format with a new reference is two lines, as the bank says.
// A line dated on or before the account's last reconciliation's statement_date carries
// `reconciled_period: true` in the preview. The files are invented (tests/fixtures/imports/README.md).

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const fixture = (name: string) => readFileSync(new URL(`./fixtures/imports/${name}`, import.meta.url), 'utf8');
const OCTOBER_CAMT = fixture('camt053-october.xml');
const OCTOBER_NOVEMBER_OFX = fixture('ofx-october-november.ofx');
const PLAIN = { date_column: 'Date', description_column: 'Description', amount_column: 'Amount', decimal: '.', date_format: 'YYYY-MM-DD' } as const;
const csvFile = (...rows: string[]) => ['Date,Description,Amount', ...rows].join('\n') + '\n';

/** A camt.053.001.08 statement of `entries` (each: reference, date, cents into the account, the entry's text). */
const camt = (...entries: [string, string, number, string][]) => `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><Stmt><Acct><Id><IBAN>DE00000000000000000098</IBAN></Id></Acct>
${entries.map(([ref, on, cents, text]) => `<Ntry><Amt Ccy="EUR">${(Math.abs(cents) / 100).toFixed(2)}</Amt><CdtDbtInd>${cents < 0 ? 'DBIT' : 'CRDT'}</CdtDbtInd><BookgDt><Dt>${on}</Dt></BookgDt><AcctSvcrRef>${ref}</AcctSvcrRef><AddtlNtryInf>${text}</AddtlNtryInf></Ntry>`).join('\n')}
</Stmt></BkToCstmrStmt></Document>
`;
/** An OFX 1.02 statement of `transactions` (each: FITID, YYYYMMDD, amount as written, NAME). */
const ofx = (...transactions: [string, string, string, string][]) =>
  'OFXHEADER:100\nDATA:OFXSGML\nVERSION:102\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><BANKACCTFROM><ACCTID>0000000098</BANKACCTFROM><BANKTRANLIST>\n' +
  transactions.map(([fitid, on, amount, name]) => `<STMTTRN><DTPOSTED>${on}<TRNAMT>${amount}<FITID>${fitid}<NAME>${name}</STMTTRN>\n`).join('') +
  '</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n';

describeEachDatabase('another format, the same line (issue 37 item 2, D16)', (h) => {
  let token: string;
  const ids: Record<string, number> = {};
  const api = (method: string, path: string, body?: unknown) => h.call(token, method, path, body);
  const request = (account: string, format: string, content: string, extra: Record<string, unknown> = {}) => ({
    account_id: ids[account],
    format,
    content,
    unmatched_account_id: ids['Suspense'],
    ...(format === 'csv' ? { csv: PLAIN } : {}),
    ...extra,
  });
  const preview = async (body: unknown) => {
    const res = await api('POST', '/imports/preview', body);
    expect(res.status, await res.clone().text()).toBe(200);
    return json(res);
  };
  const importing = async (body: unknown) => {
    const res = await api('POST', '/imports', body);
    expect(res.status, await res.clone().text()).toBe(201);
    return json(res);
  };
  const transactionsOn = async (account: string) =>
    Number(rowsOf<{ n: string }>(await h.db.execute(sql`select count(distinct transaction_id) as n from entries where account_id = ${ids[account]}`))[0]!.n);
  const hand = async (account: string, occurred_on: string, description: string, amount: number, other = 'Opening') => {
    const res = await api('POST', '/transactions', {
      occurred_on,
      description,
      entries: [{ account_id: ids[account], amount_cents: amount }, { account_id: ids[other], amount_cents: -amount }],
    });
    expect(res.status, await res.clone().text()).toBe(201);
    return (await json(res)).id as number;
  };
  const reconcile = async (account: string, statement_date: string, statement_balance_cents: number) => {
    const res = await api('POST', `/accounts/${ids[account]}/reconciliations`, { statement_date, statement_balance_cents });
    expect(res.status, await res.clone().text()).toBe(201);
  };
  const standing = async (account: string, as_of: string) => json(await api('GET', `/accounts/${ids[account]}/reconciliation?as_of=${as_of}`));

  beforeAll(async () => {
    ({ token } = await h.userWithToken('treasurer@formats.example'));
    for (const [name, kind] of [
      ['Suspense', 'expense'], ['Opening', 'equity'],
      ['Club', 'asset'], ['Twice', 'asset'], ['Unrecorded', 'asset'], ['Oldest', 'asset'], ['Same', 'asset'], ['Linked', 'asset'], ['Periods', 'asset'],
    ] as const) {
      ids[name] = (await json(await api('POST', '/accounts', { name, kind }))).id;
    }
  });

  it('camt.053 for October, reconciled through 31 Oct, then an OFX of 25 Oct – 26 Nov: its October lines are duplicates of the camt ones (new references), no second transaction, the reconciled balance unchanged', async () => {
    await hand('Club', '2026-09-30', 'Opening balance', 100000);
    const october = await importing(request('Club', 'camt053', OCTOBER_CAMT));
    expect(october).toEqual({ created: [expect.any(Number), expect.any(Number), expect.any(Number), expect.any(Number)], duplicates: [], errors: [] });
    const [, , bakery, fee] = october.created;
    await reconcile('Club', '2026-10-31', 88730);
    const before = await transactionsOn('Club');

    const body = request('Club', 'ofx', OCTOBER_NOVEMBER_OFX);
    const answer = await preview(body);
    expect(answer.lines.map((l: Json) => [l.line, l.occurred_on, l.amount_cents, l.duplicate_of, l.reconciled_period])).toEqual([
      [1, '2026-10-27', -4520, bakery, true],
      [2, '2026-10-30', -750, fee, true],
      [3, '2026-11-05', 6000, null, false],
      [4, '2026-11-20', -12000, null, false],
    ]);
    // The bank's 827.30 on 26 Nov agrees with the book: the October lines are in it once.
    expect(answer).toMatchObject({ statement: { closing: { on: '2026-11-26', amount_cents: 82730 } }, book_closing_cents: 82730, agrees: true });

    const result = await importing(body);
    expect(result).toEqual({ created: [expect.any(Number), expect.any(Number)], duplicates: [1, 2], errors: [] });
    expect(await transactionsOn('Club')).toBe(before + 2);
    const after = await standing('Club', '2026-10-31');
    expect(after.reconciled_balance_cents).toBe(88730);
    expect(after.book_balance_cents).toBe(88730);
    expect(after.unreconciled).toEqual([]);

    // Both statements again: nothing new, by reference or by the other format's line.
    expect(await importing(body)).toEqual({ created: [], duplicates: [1, 2, 3, 4], errors: [] });
    expect(await importing(request('Club', 'camt053', OCTOBER_CAMT))).toEqual({ created: [], duplicates: [1, 2, 3, 4], errors: [] });
    expect(await transactionsOn('Club')).toBe(before + 2);
    // Each import recorded its format.
    const formats = rowsOf<{ format: string; n: string }>(
      await h.db.execute(sql`select format, count(*) as n from import_lines where account_id = ${ids['Club']} group by format order by format`),
    );
    expect(formats.map((r) => [r.format, Number(r.n)])).toEqual([['camt053', 4], ['ofx', 2]]);
  });

  it('each transaction matches at most one line: two identical fee lines in the OFX against one in the book are one duplicate and one new, and the new one, dated in the reconciled period, is imported as asked', async () => {
    const first = await importing(request('Twice', 'camt053', camt(['C-1', '2026-10-30', -750, 'Kontofuehrungsentgelt Oktober 2026'])));
    await reconcile('Twice', '2026-10-31', -750);
    const body = request('Twice', 'ofx', ofx(['O-1', '20261030', '-7.50', 'Kontofuehrungsentgelt Oktober 2026'], ['O-2', '20261030', '-7.50', 'Kontofuehrungsentgelt Oktober 2026']));
    const answer = await preview(body);
    expect(answer.lines.map((l: Json) => [l.line, l.duplicate_of, l.reconciled_period])).toEqual([[1, first.created[0], true], [2, null, true]]);
    const result = await importing(body);
    expect(result).toEqual({ created: [expect.any(Number)], duplicates: [1], errors: [] });
    expect(await transactionsOn('Twice')).toBe(2);
    // As asked: the book on 31 Oct now differs from the reconciled balance by the second fee.
    expect(await standing('Twice', '2026-10-31')).toMatchObject({ reconciled_balance_cents: -750, book_balance_cents: -1500 });
  });

  it('an import made before formats were recorded counts as another format: an import_lines row without one, and an import with only a bank reference (older still)', async () => {
    const old = await importing(request('Unrecorded', 'camt053', camt(['C-1', '2026-10-30', -750, 'Fee October'], ['C-2', '2026-10-31', -100, 'Interest'])));
    await h.db.execute(sql`update import_lines set format = null where account_id = ${ids['Unrecorded']}`);
    // The same format, camt.053, with new references: a format not recorded is another format.
    const answer = await preview(request('Unrecorded', 'camt053', camt(['N-1', '2026-10-30', -750, 'FEE OCTOBER'], ['N-2', '2026-10-31', -100, 'Interest'])));
    expect(answer.lines.map((l: Json) => l.duplicate_of)).toEqual(old.created);

    const older = await importing(request('Oldest', 'ofx', ofx(['O-1', '20261030', '-7.50', 'Fee October'])));
    await h.db.execute(sql`delete from import_lines where account_id = ${ids['Oldest']}`);
    expect((await preview(request('Oldest', 'ofx', ofx(['O-9', '20261030', '-7.50', 'Fee October'])))).lines[0].duplicate_of).toBe(older.created[0]);
  });

  it('the same format with a new reference is not a duplicate by content (the bank says two lines); another format is', async () => {
    const first = await importing(request('Same', 'camt053', camt(['C-1', '2026-10-30', -750, 'Fee October'])));
    const again = await importing(request('Same', 'camt053', camt(['C-2', '2026-10-30', -750, 'Fee October'])));
    expect(again).toEqual({ created: [expect.any(Number)], duplicates: [], errors: [] });
    const fromOfx = await importing(request('Same', 'ofx', ofx(['O-1', '20261101', '-2.00', 'Interest'])));
    expect((await preview(request('Same', 'ofx', ofx(['O-2', '20261101', '-2.00', 'Interest'])))).lines[0].duplicate_of).toBeNull();
    // CSV lines have no reference: compared by content with anything, as before.
    expect((await preview(request('Same', 'csv', csvFile('2026-10-30,Fee October,-7.50', '2026-10-30,Fee October,-7.50', '2026-11-01,Interest,-2.00')))).lines.map((l: Json) => l.duplicate_of)).toEqual([
      first.created[0],
      again.created[0],
      fromOfx.created[0],
    ]);
    // A camt line with a new reference and a line of the OFX import: a duplicate of it.
    expect((await preview(request('Same', 'camt053', camt(['C-3', '2026-11-01', -200, 'Interest'])))).lines[0].duplicate_of).toBe(fromOfx.created[0]);
  });

  it('a line linked to a hand entry by a camt import is a duplicate for an OFX line of the same date, amount and text though the hand entry reads otherwise', async () => {
    const typed = await hand('Linked', '2026-10-29', 'Hall rent, paid early', -12000, 'Suspense');
    const body = request('Linked', 'camt053', camt(['C-1', '2026-10-30', -12000, 'Sporthalle Nord Miete']));
    expect((await preview(body)).lines[0].match_of).toBe(typed);
    expect(await importing({ ...body, matches: [{ line: 1, transaction_id: typed }] })).toEqual({ created: [], duplicates: [], errors: [], linked: [typed] });
    const answer = await preview(request('Linked', 'ofx', ofx(['O-1', '20261030', '-120.00', 'SPORTHALLE NORD MIETE'])));
    expect(answer.lines.map((l: Json) => [l.duplicate_of, l.match_of])).toEqual([[typed, null]]);
  });

  it('a backup and its restore keep each import line\'s format (D14), so what was camt.053 stays camt.053', async () => {
    const lines = async (db: Db) =>
      rowsOf<{ transaction_id: number; format: string | null }>(await db.execute(sql`select transaction_id, format from import_lines order by id`)).map((r) => [Number(r.transaction_id), r.format]);
    const source = await lines(h.db);
    expect(source.map(([, format]) => format)).toContain('camt053');
    const dir = mkdtempSync(path.join(tmpdir(), 'ledger-import-formats-'));
    const target = await openTestDatabase(h.backend);
    try {
      await writeBackup(h.db, path.join(dir, 'book.ledger-backup'));
      await restoreBackup(target.db, path.join(dir, 'book.ledger-backup'));
      expect(await lines(target.db)).toEqual(source);
    } finally {
      await target.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reconciled_period: on or before the last reconciliation\'s statement_date true, after it false; without a reconciliation false', async () => {
    const body = request('Periods', 'csv', csvFile('2026-09-30,A,-1.00', '2026-10-31,B,-2.00', '2026-11-01,C,-3.00'));
    expect((await preview(body)).lines.map((l: Json) => l.reconciled_period)).toEqual([false, false, false]);
    await reconcile('Periods', '2026-09-30', 0);
    expect((await preview(body)).lines.map((l: Json) => l.reconciled_period)).toEqual([true, false, false]);
    await reconcile('Periods', '2026-10-31', 0);
    expect((await preview(body)).lines.map((l: Json) => l.reconciled_period)).toEqual([true, true, false]);
    // Imported as asked, and the import answers as before.
    expect(await importing(body)).toEqual({ created: [expect.any(Number), expect.any(Number), expect.any(Number)], duplicates: [], errors: [] });
  });
});
