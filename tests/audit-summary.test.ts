import { sql } from 'drizzle-orm';
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/database';
import { AuditQuerySchema, auditSummary, type AuditQuery, type AuditSummary } from '../src/book/audit-summary';
import { describeIssues } from '../src/text';
import { describeEachDatabase } from './support/harness';
import { json } from './support/http';

// Issue 42 (D28), part 1: the auditors' pack's summary.json, on both databases, with fixtures made
// through the HTTP API: every part equals what its route answers for the same dates, and the
// checklist's ids (missing receipts, late changes, unreconciled accounts) are checked by hand.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

const parse = (input: Record<string, string>) => {
  const r = v.safeParse(AuditQuerySchema, input);
  return r.success ? { ok: r.output } : { error: describeIssues(r.issues) };
};

describe('D28: the pack\'s query', () => {
  it('from and to required dates, to ≥ from; receipts_over money in cents (default 50.00); lang en or de (default en); each refusal names its field', () => {
    expect(parse({ from: '2025-01-01', to: '2025-12-31' })).toEqual({ ok: { from: '2025-01-01', to: '2025-12-31', receipts_over: 5000, lang: 'en' } });
    expect(parse({ from: '2025-01-01', to: '2025-01-01', receipts_over: '0.5', lang: 'de' }).ok).toMatchObject({ receipts_over: 50, lang: 'de' });
    expect(parse({ from: '2025-01-01', to: '2025-01-01', receipts_over: '120' }).ok?.receipts_over).toBe(12000);
    expect(parse({ from: '2025-01-01', to: '2025-01-01', receipts_over: '0.07' }).ok?.receipts_over).toBe(7);
    expect(parse({ to: '2025-12-31' }).error).toMatch(/^from/);
    expect(parse({ from: '2025-01-01' }).error).toMatch(/^to/);
    expect(parse({ from: '2025-02-30', to: '2025-12-31' }).error).toMatch(/^from must be a date/);
    expect(parse({ from: '2025-01-01', to: 'soon' }).error).toMatch(/^to must be a date/);
    expect(parse({ from: '2025-02-01', to: '2025-01-31' }).error).toBe('to must not be before from');
    expect(parse({ from: '0001-01-01', to: '2025-01-31' }).error).toMatch(/^from/);
    for (const bad of ['abc', '-1', '1.234', '1,50', '', '1e3', '.5']) {
      expect(parse({ from: '2025-01-01', to: '2025-01-31', receipts_over: bad }).error, bad).toMatch(/^receipts_over/);
    }
    expect(parse({ from: '2025-01-01', to: '2025-01-31', lang: 'fr' }).error).toMatch(/^lang/);
  });
});

describeEachDatabase('issue 42: the auditors\' summary.json (D28)', (h) => {
  let token: string;
  const ids: Record<string, number> = {};
  const tx: Record<string, number> = {};
  const late: number[] = [];
  const budgetIds: Record<string, number> = {};
  let personAccount: number;
  let withoutPeople: AuditSummary;
  let summary: AuditSummary;
  const period: AuditQuery = { from: '2025-01-01', to: '2025-12-31', receipts_over: 5000, lang: 'en' };

  const api = (method: string, path: string, body?: unknown) => h.call(token, method, path, body);
  const expectStatus = async (res: Response, status: number) => {
    expect(res.status, await res.clone().text()).toBe(status);
    return res.status === 204 ? undefined : json(res);
  };
  const get = async (path: string) => expectStatus(await api('GET', path), 200);
  const body = (occurred_on: string, lines: [string, number][], description = `audit ${occurred_on}`) => ({
    occurred_on,
    description,
    entries: lines.map(([account, amount_cents]) => ({ account_id: ids[account] ?? Number(account), amount_cents })),
  });
  const post = async (key: string, occurred_on: string, lines: [string, number][]) => {
    tx[key] = (await expectStatus(await api('POST', '/transactions', body(occurred_on, lines)), 201)).id;
  };
  /** The id of the newest change record of a transaction. */
  const lastChange = async () =>
    Number(rowsOf<{ id: string }>(await h.db.execute(sql`select max(id) as id from changes where subject = 'transaction'`))[0]!.id);
  /** Moves a change record's time back, as if it was written then ("written 10 days later"). */
  const writtenAt = (id: number, at: string) => h.db.execute(sql`update changes set at = ${at}::timestamptz where id = ${id}`);

  beforeAll(async () => {
    ({ token } = await h.userWithToken('treasurer@audit.example'));
    const kinds = [
      ['Bank', 'asset'], ['Cash', 'asset'], ['Till', 'asset'], ['Direct debits in transit', 'asset'], ['Card', 'liability'],
      ['Equity', 'equity'], ['Salary', 'income'], ['Supplies', 'expense'], ['Rent', 'expense'],
    ] as const;
    for (const [name, kind] of kinds) ids[name] = (await expectStatus(await api('POST', '/accounts', { name, kind }), 201)).id;

    await post('opening', '2024-12-15', [['Bank', 100_000], ['Equity', -100_000]]);
    await post('till', '2024-06-01', [['Till', 1_000], ['Equity', -1_000]]); // Till: no entries in the period
    await post('over', '2025-02-01', [['Supplies', 6_000], ['Bank', -6_000]]); // > 50.00, no receipt
    await post('receipted', '2025-02-02', [['Supplies', 7_000], ['Bank', -7_000]]); // > 50.00, a receipt
    await post('exactly', '2025-02-03', [['Supplies', 5_000], ['Cash', -5_000]]); // exactly 50.00: not above
    await post('split', '2025-03-01', [['Supplies', 3_000], ['Rent', 4_000], ['Bank', -7_000]]); // 30 + 40 > 50
    await post('salary', '2025-03-05', [['Salary', -200_000], ['Bank', 200_000]]); // no expense
    await post('card', '2025-04-01', [['Supplies', 9_000], ['Card', -9_000]]);
    await post('refund', '2025-06-01', [['Supplies', -8_000], ['Bank', 8_000]]); // an expense below zero
    await post('next', '2026-01-05', [['Supplies', 9_999], ['Bank', -9_999]]); // after the period
    await post('gone', '2025-07-01', [['Rent', 12_000], ['Bank', -12_000]]); // deleted below
    await post('intransit', '2025-05-02', [['Direct debits in transit', 2_500], ['Salary', -2_500]]);

    const receipt = await h.request(`/transactions/${tx.receipted}/attachments?name=till.png`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'image/png' }, body: new Uint8Array(PNG),
    });
    await expectStatus(receipt, 201);


    // Budgets: one before the period (left out), one inside, one across its end.
    const budget = async (key: string, from: string, to: string) =>
      (budgetIds[key] = (await expectStatus(await api('POST', '/budgets', { name: key, from, to, lines: [{ account_id: ids.Supplies, amount_cents: 5_000, per: 'month' }] }), 201)).id);
    await budget('2024', '2024-01', '2024-12');
    await budget('winter', '2025-12', '2026-02'); // made first, listed second (GET /budgets: by from)
    await budget('2025', '2025-01', '2025-12');

    // Changes: none of them late, and the late ones (ids kept in `late`).
    await expectStatus(await api('PUT', `/transactions/${tx.receipted}`, body('2025-02-02', [['Supplies', 7_000], ['Bank', -7_000]], 'fixed the text')), 200);
    await writtenAt(await lastChange(), '2025-02-05T10:00:00Z'); // 3 days after: not late
    await expectStatus(await api('PUT', `/transactions/${tx.split}`, body('2025-03-01', [['Supplies', 3_000], ['Rent', 4_000], ['Bank', -7_000]], 'split a')), 200);
    await writtenAt(await lastChange(), '2025-03-08T23:30:00Z'); // 7 days after (UTC day): not late, though it is the 9th in Berlin
    await expectStatus(await api('PUT', `/transactions/${tx.split}`, body('2025-03-01', [['Supplies', 3_000], ['Rent', 4_000], ['Bank', -7_000]], 'split b')), 200);
    late.push(await lastChange());
    await writtenAt(late[0]!, '2025-03-09T00:30:00Z'); // 8 days after: late
    // Moved into the period from 2026-01-05: the later date is 2026-01-05, so 5 days after it is not late.
    await expectStatus(await api('PUT', `/transactions/${tx.next}`, body('2025-12-20', [['Supplies', 9_999], ['Bank', -9_999]])), 200);
    await writtenAt(await lastChange(), '2026-01-10T12:00:00Z');
    // Written today (long after 2025): the delete and the restore are late; the update outside the period is not listed.
    await expectStatus(await api('DELETE', `/transactions/${tx.gone}`), 204);
    late.push(await lastChange());
    await expectStatus(await api('POST', `/transactions/${tx.gone}/restore`), 201);
    late.push(await lastChange());
    await expectStatus(await api('PUT', `/transactions/${tx.opening}`, body('2024-12-15', [['Bank', 100_000], ['Equity', -100_000]], 'opening')), 200);

    // Bank: reconciled before, inside and after the period (after the corrections: reconciled entries are locked); Cash never.
    await expectStatus(await api('POST', `/accounts/${ids.Bank}/reconciliations`, { statement_date: '2024-12-31', statement_balance_cents: 100_000 }), 201);
    await expectStatus(await api('POST', `/accounts/${ids.Bank}/reconciliations`, { statement_date: '2025-06-30', statement_balance_cents: 288_000 }), 201);
    await expectStatus(await api('POST', `/accounts/${ids.Bank}/reconciliations`, { statement_date: '2026-01-31', statement_balance_cents: 288_000 - 12_000 - 9_999 }), 201);

    withoutPeople = await auditSummary(h.db, period);

    // A member: their account has entries in the period and is left out of `accounts` and the checklist.
    const person = await expectStatus(await api('POST', '/people', { name: 'Mia Member' }), 201);
    personAccount = person.account_id;
    await post('dues', '2025-05-01', [[String(personAccount), 2_500], ['Salary', -2_500]]);
    await post('paid', '2025-05-03', [['Direct debits in transit', 2_500], [String(personAccount), -2_500]]);

    summary = await auditSummary(h.db, period);
  });

  it('D28: from, to; the balance sheets at the day before from and at to, and the income statement, exactly as their routes answer', async () => {
    expect(summary.from).toBe('2025-01-01');
    expect(summary.to).toBe('2025-12-31');
    expect(summary.balance_sheet_opening).toEqual(await get('/reports/balance-sheet?as_of=2024-12-31'));
    expect(summary.balance_sheet_closing).toEqual(await get('/reports/balance-sheet?as_of=2025-12-31'));
    expect(summary.income_statement).toEqual(await get('/reports/income-statement?from=2025-01-01&to=2025-12-31'));
    expect(summary.balance_sheet_opening.as_of).toBe('2024-12-31');
    // By hand: the opening entries of 2024, and the year's expenses.
    expect(summary.balance_sheet_opening.assets.lines.find((l) => l.id === ids.Bank)?.balance_cents).toBe(100_000);
    expect(summary.income_statement.expenses.total_cents).toBe(6_000 + 7_000 + 5_000 + 7_000 + 9_000 - 8_000 + 9_999 + 12_000);
  });

  it('D26: budgets overlapping the period, each as GET /reports/budget?as_of=<to> answers, in GET /budgets order', async () => {
    expect(summary.budgets.map((b) => b.budget_id)).toEqual([budgetIds['2025'], budgetIds.winter]);
    expect(summary.budgets).toEqual([
      await get(`/reports/budget?id=${budgetIds['2025']}&as_of=2025-12-31`),
      await get(`/reports/budget?id=${budgetIds.winter}&as_of=2025-12-31`),
    ]);
  });

  it('D28: accounts — every asset and liability account in GET /accounts order but members\' and "Direct debits in transit", with opening, closing and the reconciliations dated in the period', async () => {
    const all: Json[] = await get('/accounts');
    const expected = all
      .filter((a) => (a.kind === 'asset' || a.kind === 'liability') && a.id !== personAccount && a.id !== ids['Direct debits in transit'])
      .map((a) => a.id);
    expect(summary.accounts.map((a) => a.id)).toEqual(expected);
    expect(summary.accounts.map((a) => a.name)).toEqual(['Bank', 'Cash', 'Till', 'Card']);
    const bank = summary.accounts.find((a) => a.id === ids.Bank)!;
    const listed: Json[] = await get(`/accounts/${ids.Bank}/reconciliations`);
    expect(listed).toHaveLength(3);
    expect(bank.reconciliations).toEqual(listed.filter((r) => r.statement_date === '2025-06-30'));
    expect(bank).toMatchObject({ kind: 'asset', opening_cents: 100_000, closing_cents: 100_000 - 6_000 - 7_000 - 7_000 + 200_000 + 8_000 - 9_999 - 12_000 });
    const card = summary.accounts.find((a) => a.id === ids.Card)!;
    // Natural sign: a card's debt is positive.
    expect(card).toMatchObject({ kind: 'liability', opening_cents: 0, closing_cents: 9_000, reconciliations: [] });
    for (const a of summary.accounts) {
      const line = (sheet: Json) => [...sheet.assets.lines, ...sheet.liabilities.lines].find((l: Json) => l.id === a.id).balance_cents;
      expect(a.opening_cents, a.name).toBe(line(summary.balance_sheet_opening));
      expect(a.closing_cents, a.name).toBe(line(summary.balance_sheet_closing));
    }
  });

  it('D27: people — GET /reports/people?as_of=<to>, and null in a book without people', async () => {
    expect(withoutPeople.people).toBeNull();
    expect(summary.people).not.toBeNull();
    expect(summary.people).toEqual(await get('/reports/people?as_of=2025-12-31'));
  });

  it('D28: the checklist — missing receipts above receipts_over, late changes, unreconciled asset accounts; ids ascending', async () => {
    expect(summary.checklist.missing_receipts).toEqual([tx.over, tx.split, tx.card, tx.next, tx.gone].sort((a, b) => a! - b!));
    expect(summary.checklist.changed_after).toEqual(late);
    // Cash has entries in the period and no reconciliation; Till none in it; the member's account and the in-transit one are left out.
    expect(summary.checklist.unreconciled_accounts).toEqual([ids.Cash]);
    expect(withoutPeople.checklist).toEqual(summary.checklist);

    const lower = await auditSummary(h.db, { ...period, receipts_over: 4_999 });
    expect(lower.checklist.missing_receipts).toEqual([tx.over, tx.exactly, tx.split, tx.card, tx.next, tx.gone].sort((a, b) => a! - b!));
    // A period that starts after the late update of March only lists the changes dated in it.
    const later = await auditSummary(h.db, { ...period, from: '2025-04-01' });
    expect(later.checklist.changed_after).toEqual(late.slice(1));
    expect(later.checklist.missing_receipts).toEqual([tx.card, tx.next, tx.gone].sort((a, b) => a! - b!));
    expect(later.checklist.unreconciled_accounts).toEqual([]);
  });

  it('D28: making the summary is a read — no change record — and it is plain JSON (what summary.json holds)', async () => {
    const count = async () => Number(rowsOf<{ n: string }>(await h.db.execute(sql`select count(*) as n from changes`))[0]!.n);
    const before = await count();
    const again = await auditSummary(h.db, period);
    expect(await count()).toBe(before);
    expect(JSON.parse(JSON.stringify(again))).toEqual(summary);
  });

  it('D28: a short period, a day before the first entry — empty lists, and the same parts as the routes', async () => {
    const quiet = await auditSummary(h.db, { ...period, from: '2023-01-01', to: '2023-01-31' });
    expect(quiet.checklist).toEqual({ missing_receipts: [], changed_after: [], unreconciled_accounts: [] });
    expect(quiet.budgets).toEqual([]);
    expect(quiet.accounts.every((a) => a.opening_cents === 0 && a.closing_cents === 0 && a.reconciliations.length === 0)).toBe(true);
    expect(quiet.balance_sheet_opening).toEqual(await get('/reports/balance-sheet?as_of=2022-12-31'));
  });
});
