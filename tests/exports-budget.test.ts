import { parse } from 'csv-parse/sync';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from './support/harness';
import { json } from './support/http';
import { ruleEndAfter } from '../src/book/exports-hledger';

// Issue 39 (D26 with D17): the hledger export writes every budget as periodic transaction rules, so
// that the real `hledger balance --budget` (Debian package hledger) over a budget's months shows,
// for every account a line names, the planned and actual figures of GET /reports/budget. What is
// compared: per line, planned_cents and actual_cents (the whole budget, natural sign) against
// hledger's budget and actual columns summed over the budget's months. hledger has no rollover, so
// a rollover line is compared on those sums only (its planned_cents is amount × months either way);
// `months[].available_cents` has no hledger counterpart. The two budgets do not overlap (D26 asks
// nothing of accounts two overlapping budgets name).

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const STRICT = process.env.CI === 'true' || Boolean(process.env.TEST_DATABASE_URL);
const hledgerPresent = spawnSync('hledger', ['--version'], { encoding: 'utf8' }).status === 0;

function hledger(args: string[]): string {
  const result = spawnSync('hledger', args, { encoding: 'utf8' });
  if (result.error) throw new Error(`hledger is missing (Debian: apt-get install hledger): ${result.error.message}`);
  expect(result.status, `hledger ${args.join(' ')}: ${result.stderr}${result.stdout}`).toBe(0);
  return result.stdout;
}

/** `-12.30 EUR`, `0` or empty (no figure) as cents. */
function cents(text: string): bigint {
  const t = text.trim();
  if (t === '' || t === '0') return 0n;
  const m = /^(-?)(\d+)\.(\d{2}) EUR$/.exec(t);
  if (!m) throw new Error(`not an amount in EUR with two decimals: ${JSON.stringify(text)}`);
  const value = BigInt(m[2]!) * 100n + BigInt(m[3]!);
  return m[1] ? -value : value;
}

const nextMonth = (m: string) => {
  const i = Number(m.slice(0, 4)) * 12 + Number(m.slice(5, 7));
  return `${Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`;
};

describeEachDatabase('issue 39: budgets in the hledger export (D26, D17)', (h) => {
  let token: string;
  let dir: string;
  const ids: Record<string, number> = {};
  const api = (method: string, p: string, body?: unknown) => h.call(token, method, p, body);
  const ok = async (res: Response, status: number): Promise<Json> => {
    expect(res.status, await res.clone().text()).toBe(status);
    return json(res);
  };
  const post = (occurred_on: string, account: string, amount: number) =>
    api('POST', '/transactions', {
      occurred_on,
      description: `${account} ${occurred_on}`,
      entries: [{ account_id: ids[account], amount_cents: amount }, { account_id: ids.Bank, amount_cents: -amount }],
    }).then((res) => ok(res, 201));
  const journal = async (): Promise<string> => {
    const res = await api('GET', '/export/ledger.journal?commodity=EUR');
    expect(res.status).toBe(200);
    return res.text();
  };

  let withoutBudgets: string;
  const budgets: { id: number; from: string; to: string }[] = [];

  beforeAll(async () => {
    ({ token } = await h.userWithToken('treasurer@export-budgets.example'));
    dir = mkdtempSync(path.join(os.tmpdir(), 'ledger-export-budgets-'));
    const kinds = [
      ['Bank', 'asset'], ['Salary', 'income'], ['Gifts', 'income'], ['Groceries', 'expense'], ['Rent', 'expense'],
      ['Holiday: Café; 2025', 'expense'], ['Fun', 'expense'],
    ] as const;
    for (const [name, kind] of kinds) ids[name] = (await ok(await api('POST', '/accounts', { name, kind }), 201)).id;
    // Entries before, inside and after each budget's months, some overspending the rollover line.
    await post('2024-12-31', 'Groceries', 9_999);
    await post('2025-01-01', 'Salary', -300_000);
    await post('2025-01-15', 'Groceries', 55_012);
    await post('2025-02-28', 'Groceries', 20_000);
    await post('2025-02-03', 'Rent', 100_000);
    await post('2025-03-10', 'Holiday: Café; 2025', 77_777);
    await post('2025-04-30', 'Salary', -310_000);
    await post('2025-04-30', 'Gifts', -1_234);
    await post('2025-04-30', 'Fun', 4_321);
    await post('2025-05-01', 'Rent', 100_000);
    await post('2026-02-14', 'Gifts', -25_000);
    await post('2026-03-31', 'Groceries', 12_345);
    withoutBudgets = await journal();
    const created = [
      {
        name: 'Plan; 2025', from: '2025-01', to: '2025-04',
        lines: [
          { account_id: ids.Salary, amount_cents: 300_000, per: 'month' },
          { account_id: ids.Groceries, amount_cents: 40_000, per: 'month', rollover: true },
          { account_id: ids.Rent, amount_cents: 100_000, per: 'period' },
          { account_id: ids['Holiday: Café; 2025'], amount_cents: 50_000, per: 'month' },
        ],
      },
      {
        name: 'Early 2026', from: '2026-01', to: '2026-03',
        lines: [
          { account_id: ids.Gifts, amount_cents: 30_000, per: 'period' },
          { account_id: ids.Groceries, amount_cents: 15_050, per: 'month' },
          { account_id: ids.Fun, amount_cents: 0, per: 'month' },
        ],
      },
      { name: 'Empty', from: '2027-01', to: '2027-12', lines: [] },
    ];
    for (const b of created) budgets.push({ ...(await ok(await api('POST', '/budgets', b), 201)), from: b.from, to: b.to });
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('D26/D17: a book without budgets exports no periodic rule, and budgets only add rules after the unchanged journal', async () => {
    expect(withoutBudgets).not.toMatch(/^~/m);
    const text = await journal();
    expect(text.startsWith(withoutBudgets)).toBe(true);
    const rules = text.slice(withoutBudgets.length);
    expect(rules).toBe(
      [
        '',
        '~ monthly from 2025-01 to 2025-05  budget Plan, 2025',
        '    (income:Salary)  -3000.00 EUR',
        '    (expenses:Groceries)  400.00 EUR',
        '    (expenses:Holiday Café; 2025)  500.00 EUR',
        '',
        '~ monthly from 2025-01 to 2025-02  budget Plan, 2025, planned once for 2025-01 to 2025-04',
        '    (expenses:Rent)  1000.00 EUR',
        '',
        '~ monthly from 2026-01 to 2026-04  budget Early 2026',
        '    (expenses:Groceries)  150.50 EUR',
        '    (expenses:Fun)  0.00 EUR',
        '',
        '~ monthly from 2026-01 to 2026-02  budget Early 2026, planned once for 2026-01 to 2026-03',
        '    (income:Gifts)  -300.00 EUR',
        '',
      ].join('\n'),
    );
  });

  it.skipIf(!hledgerPresent && !STRICT)('D26: `hledger balance --budget` over each budget\'s months shows the report\'s planned and actual for every line (rollover and period lines included)', async () => {
    const file = path.join(dir, 'ledger.journal');
    writeFileSync(file, await journal());
    for (const b of budgets.filter((x) => x.to < '2027')) {
      const csv = hledger(['-f', file, 'balance', '--budget', '-b', `${b.from}-01`, '-e', `${nextMonth(b.to)}-01`, '-O', 'csv', '--flat']);
      const [header, ...rows] = parse(csv) as string[][];
      // "Account", then a pair (actual, "budget") per column hledger chose: summed over the budget's months.
      expect(header!.filter((_, i) => i > 0 && i % 2 === 0).every((c) => c === 'budget')).toBe(true);
      const byAccount = new Map<string, { actual: bigint; planned: bigint }>();
      for (const row of rows) {
        if (row[0] === 'Total:' || row[0] === '<unbudgeted>') continue;
        let actual = 0n;
        let planned = 0n;
        for (let i = 1; i + 1 < row.length; i += 2) {
          actual += cents(row[i]!);
          planned += cents(row[i + 1]!);
        }
        byAccount.set(row[0]!, { actual, planned });
      }
      const report = await ok(await api('GET', `/reports/budget?id=${b.id}`), 200);
      const expected: Record<string, { actual: bigint; planned: bigint }> = {};
      const got: Record<string, { actual: bigint; planned: bigint } | undefined> = {};
      for (const line of report.lines) {
        const exported = `${line.kind === 'income' ? 'income' : 'expenses'}:${line.account_name.replace(/:/g, ' ').replace(/\s+/g, ' ').trim()}`;
        const sign = line.kind === 'income' ? -1n : 1n;
        expected[exported] = { actual: BigInt(line.actual_cents), planned: BigInt(line.planned_cents) };
        const tool = byAccount.get(exported);
        got[exported] = tool && { actual: tool.actual * sign, planned: tool.planned * sign };
      }
      expect(got, `budget ${b.from}…${b.to}:\n${csv}`).toEqual(expected);
      // The figures are not all zero: the comparison could fail.
      expect(Object.values(expected).some((x) => x.actual !== 0n && x.actual !== x.planned)).toBe(true);
    }
  });
});

// A budget through 9999-12 (D6's last year): the rule's exclusive end `10000-01` is no date to
// hledger, which then drops the rule without a word; its end is the last day of 9999 instead.
describe('issue 39: a budget through 9999-12 keeps its hledger rule (D26, D6)', () => {
  it('the rule ends on 9999-12-31, and hledger plans it', () => {
    expect(ruleEndAfter('2027-12')).toBe('2028-01');
    expect(ruleEndAfter('9999-12')).toBe('9999-12-31');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ledger-budget-9999-'));
    try {
      const file = path.join(dir, 'last-year.journal');
      writeFileSync(file, [`~ monthly from 9999-11 to ${ruleEndAfter('9999-12')}  budget last`, '    (expenses:rent)  10.00 EUR', '', '9999-11-05 rent', '    expenses:rent  5.00 EUR', '    assets:bank', ''].join('\n'));
      const out = execFileSync('hledger', ['-f', file, 'balance', '--budget', '-b', '9999-11-01', '-e', '9999-12-31', '-O', 'csv', '--flat'], { encoding: 'utf8' });
      const rent = out.split('\n').find((line) => line.includes('expenses:rent'));
      expect(rent, out).toBeDefined();
      // Planned in November and December: 2 × 10.00 (with `to 10000-01` hledger plans nothing).
      expect(rent).toBe('"expenses:rent","5.00 EUR","20.00 EUR"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
