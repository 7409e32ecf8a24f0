import { parse } from 'csv-parse/sync';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decimal, EXPORT_BATCH_ROWS } from '../src/book/exports';
import { beancountComponent } from '../src/book/exports-beancount';
import { guardFormula } from '../src/book/exports-csv';
import { hledgerComponent } from '../src/book/exports-hledger';
import { describeEachDatabase, type Harness } from './support/harness';
import { expectAuthenticationRequired, json } from './support/http';

// D17 (books out, full tier): the CSV file read back cell by cell, and the hledger and Beancount
// files read by the real tools (Debian packages hledger and beancount: `hledger`, `bean-check`,
// `bean-query`), whose balances, in D6's natural sign, must equal GET /reports/balances. Every
// expected cell and name below is written out by hand from the fixture under `buildBook`.

type Kind = 'asset' | 'liability' | 'equity' | 'income' | 'expense';

/** With a real PostgreSQL or in CI a missing tool fails the run (.ci/run installs them), as in docs.test.ts. */
const STRICT = process.env.CI === 'true' || Boolean(process.env.TEST_DATABASE_URL);
const TOOLS = ['hledger', 'bean-check', 'bean-query'];
const toolsPresent = TOOLS.every((tool) => spawnSync(tool, ['--version'], { encoding: 'utf8' }).status === 0);

/** Runs a tool; it must succeed. */
function run(tool: string, args: string[]): { stdout: string; stderr: string } {
  const result = spawnSync(tool, args, { encoding: 'utf8' });
  if (result.error) throw new Error(`${tool} is missing (Debian: apt-get install hledger beancount): ${result.error.message}`);
  expect(result.status, `${tool} ${args.join(' ')}: ${result.stderr}${result.stdout}`).toBe(0);
  return { stdout: result.stdout, stderr: result.stderr };
}

/** D6: the factor that turns a sum of entries into a natural balance. */
const naturalSign = (kind: Kind): bigint => (['liability', 'equity', 'income'].includes(kind) ? -1n : 1n);

/** `-12.30` (with the commodity after it, when given) as cents; `0` is zero. */
function cents(text: string, commodity = ''): bigint {
  if (text.trim() === '0') return 0n;
  const m = new RegExp(`^(-?)(\\d+)\\.(\\d{2})${commodity ? ` ${commodity}` : ''}$`).exec(text.trim());
  if (!m) throw new Error(`not an amount with two decimals${commodity ? ` in ${commodity}` : ''}: ${JSON.stringify(text)}`);
  const value = BigInt(m[2]!) * 100n + BigInt(m[3]!);
  return m[1] ? -value : value;
}

class Fixture {
  readonly accounts = new Map<string, { id: number; kind: Kind }>();
  readonly transactions = new Map<string, number>();

  acct(name: string): number {
    const account = this.accounts.get(name);
    if (!account) throw new Error(`no fixture account ${name}`);
    return account.id;
  }

  tx(key: string): number {
    const id = this.transactions.get(key);
    if (id === undefined) throw new Error(`no fixture transaction ${key}`);
    return id;
  }
}

const ACCOUNTS: [string, Kind][] = [
  ['Bank', 'asset'],
  ['Bank: Savings', 'asset'],
  ['Bank Savings', 'asset'],
  ['cash box', 'asset'],
  ['Petty  cash', 'asset'],
  ['Credit card', 'liability'],
  ['+Loan', 'liability'],
  ['Opening balances', 'equity'],
  ['2024 Reserve', 'equity'],
  ['Salary', 'income'],
  ['=Gifts', 'income'],
  ['Unused income', 'income'],
  ['Café & Bäckerei', 'expense'],
  ['Kit/Shirts', 'expense'],
  ['Kit Shirts', 'expense'],
  ['日本', 'expense'],
  ['Việt Nam trip', 'expense'],
  ['@Home office', 'expense'],
];

/**
 * Descriptions T9 and T8 get by a direct database edit: the API refuses control characters, but
 * another writer may not. T8's has no comma and no quote: only its CR and LF make it quoted.
 */
const MULTILINE = 'Line one\nline "two", three';
const CONTROLS = '\tReserve\r2024\nnote';

/*
 * The fixture (cents; + debit, − credit). Posted in the order T8 T1 T2 T3 T4 T5 T6 T7 T10 T9, so
 * transaction ids do not follow dates, and T10 comes before T9 on their common date.
 *
 *   T1  2025-01-01 Opening balance            Bank +100000, cash box +5000, Petty  cash +2500, Opening balances −107500
 *   T2  2025-01-15 Salary "January", net      Bank +250000, Salary −250000
 *   T3  2025-02-01 Bakery; coffee & cake      Café & Bäckerei +1230, cash box −1230
 *   T4  2025-02-10 (team) shirts              Kit/Shirts +4000, Kit Shirts +2000, Credit card −6000
 *   T5  2025-02-20 *Savings* split 60\40      Bank −50000, Bank: Savings +30000, Bank Savings +20000
 *   T6  2025-03-01 Gift from =grandma         =Gifts −5, cash box +5
 *   T7  2025-03-05 -5% loan fee               +Loan −100000, Bank +99000, @Home office +1000
 *   T8  2025-03-10 Reserve 2024 (CONTROLS)    2024 Reserve −10000, Bank +10000
 *   T10 2025-03-15 Trip to 日本 and Việt Nam    日本 +20000, Việt Nam trip +15000, Credit card −35000
 *   T9  2025-03-15 (MULTILINE)                Bank −500, Café & Bäckerei +500
 *
 * Natural balances at the end (D6): Bank 408500, Bank: Savings 30000, Bank Savings 20000, cash box
 * 3775, Petty  cash 2500 (assets 464775); Credit card 41000, +Loan 100000 (141000); Opening
 * balances 107500, 2024 Reserve 10000 (117500); Salary 250000, =Gifts 5 (250005); Café & Bäckerei
 * 1730, Kit/Shirts 4000, Kit Shirts 2000, 日本 20000, Việt Nam trip 15000, @Home office 1000 (43730).
 */
async function buildBook(h: Harness, token: string, f: Fixture): Promise<void> {
  for (const [name, kind] of ACCOUNTS) {
    const res = await h.call(token, 'POST', '/accounts', { name, kind });
    expect(res.status, name).toBe(201);
    f.accounts.set(name, { id: (await json<{ id: number }>(res)).id, kind });
  }
  const post = async (key: string, occurred_on: string, description: string, entries: [string, number][]) => {
    const res = await h.call(token, 'POST', '/transactions', {
      occurred_on,
      description,
      entries: entries.map(([name, amount_cents]) => ({ account_id: f.acct(name), amount_cents })),
    });
    expect(res.status, `${key}: ${await res.clone().text()}`).toBe(201);
    f.transactions.set(key, (await json<{ id: number }>(res)).id);
  };
  await post('T8', '2025-03-10', 'Reserve 2024', [['2024 Reserve', -10000], ['Bank', 10000]]);
  await post('T1', '2025-01-01', 'Opening balance', [['Bank', 100000], ['cash box', 5000], ['Petty  cash', 2500], ['Opening balances', -107500]]);
  await post('T2', '2025-01-15', 'Salary "January", net', [['Bank', 250000], ['Salary', -250000]]);
  await post('T3', '2025-02-01', 'Bakery; coffee & cake', [['Café & Bäckerei', 1230], ['cash box', -1230]]);
  await post('T4', '2025-02-10', '(team) shirts', [['Kit/Shirts', 4000], ['Kit Shirts', 2000], ['Credit card', -6000]]);
  await post('T5', '2025-02-20', '*Savings* split 60\\40', [['Bank', -50000], ['Bank: Savings', 30000], ['Bank Savings', 20000]]);
  await post('T6', '2025-03-01', 'Gift from =grandma', [['=Gifts', -5], ['cash box', 5]]);
  await post('T7', '2025-03-05', '-5% loan fee', [['+Loan', -100000], ['Bank', 99000], ['@Home office', 1000]]);
  await post('T10', '2025-03-15', 'Trip to 日本 and Việt Nam', [['日本', 20000], ['Việt Nam trip', 15000], ['Credit card', -35000]]);
  await post('T9', '2025-03-15', 'Edited below', [['Bank', -500], ['Café & Bäckerei', 500]]);
  await h.db.execute(sql`update transactions set description = ${MULTILINE} where id = ${f.tx('T9')}`);
  await h.db.execute(sql`update transactions set description = ${CONTROLS} where id = ${f.tx('T8')}`);
}

describe('D17 pieces: amounts, the formula guard, account components', () => {
  it('D17: amounts are decimals with two places, exact at the largest stored amount', () => {
    const cases: [bigint, string][] = [
      [0n, '0.00'], [5n, '0.05'], [-5n, '-0.05'], [-1230n, '-12.30'], [100n, '1.00'], [-99n, '-0.99'],
      [10n ** 15n, '10000000000000.00'], [-(10n ** 15n) + 1n, '-9999999999999.99'],
    ];
    for (const [value, text] of cases) expect(decimal(value), String(value)).toBe(text);
  });

  it('D17: a text cell starting with =, +, -, @, tab or CR gets a leading quote; nothing else does', () => {
    for (const text of ['=1+1', '+49 30', '-5%', '@SUM(A1)', '\tcell', '\rcell']) expect(guardFormula(text)).toBe(`'${text}`);
    for (const text of ['a=b', ' =1', '', 'Café', "'quoted"]) expect(guardFormula(text)).toBe(text);
  });

  it('D17: hledger components have no colon, no control character, no double space, no space at the ends', () => {
    expect(hledgerComponent(' Bank: Savings ')).toBe('Bank Savings');
    expect(hledgerComponent('a\tb\nc  d')).toBe('a b c d');
    expect(hledgerComponent('Café & Bäckerei; =x (y) [z] "q"')).toBe('Café & Bäckerei; =x (y) [z] "q"');
    expect(hledgerComponent(' : ')).toBe('');
  });

  it('D17: Beancount components start with a capital or a digit and hold only letters, digits and hyphens', () => {
    const cases: [string, string][] = [
      ['Café & Bäckerei', 'Café-Bäckerei'],
      ['Bank: Savings', 'Bank-Savings'],
      ['cash box', 'Cash-box'],
      ['2024 Reserve', '2024-Reserve'],
      ['=Gifts', 'Gifts'],
      ['Kit/Shirts', 'Kit-Shirts'],
      ['e\u0301clair', 'Éclair'],
      ['Việt Nam', 'Viet-Nam'],
      ['ßig', 'SSig'],
      ['ĸiosk', 'Account-ĸiosk'],
      ['Σπίτι', 'Σπίτι'],
      ['банк', 'Банк'],
      ['日本', ''],
      ['--', ''],
    ];
    for (const [name, component] of cases) expect(beancountComponent(name), name).toBe(component);
  });

  it.skipIf(!toolsPresent && !STRICT)('D17: bean-check accepts every component the conversion makes from awkward names', () => {
    const names = ['Café & Bäckerei', 'e\u0301clair', 'ßig', 'ĸiosk', 'Σπίτι', 'банк', 'Ærø Ø Å', 'Ünïcödé ÿ', '2024', 'x-y_z', 'ǅemal', 'ŉ'];
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ledger-components-'));
    try {
      const file = path.join(dir, 'components.beancount');
      const opens = names.map((name) => `2025-01-01 open Assets:${beancountComponent(name)}`);
      writeFileSync(file, `${opens.join('\n')}\n`);
      expect(run('bean-check', [file])).toEqual({ stdout: '', stderr: '' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describeEachDatabase('books out: CSV, hledger and Beancount (D17)', (h) => {
  const f = new Fixture();
  let token: string;
  let dir: string;

  const download = async (pathAndQuery: string, mediaType: string, filename: string): Promise<string> => {
    const res = await h.call(token, 'GET', pathAndQuery);
    expect(res.status, `${pathAndQuery}: ${await res.clone().text()}`).toBe(200);
    expect(res.headers.get('content-type'), pathAndQuery).toBe(`${mediaType}; charset=utf-8`);
    expect(res.headers.get('content-disposition'), pathAndQuery).toBe(`attachment; filename="${filename}"`);
    return res.text();
  };
  const saved = (name: string, text: string): string => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  /** GET /reports/balances as natural cents by account id, with each account's kind. */
  const reportBalances = async (asOf: string) => {
    const res = await h.call(token, 'GET', `/reports/balances?as_of=${asOf}`);
    expect(res.status).toBe(200);
    const body = await json<{ accounts: { id: number; kind: Kind; balance_cents: number }[] }>(res);
    return new Map(body.accounts.map((a) => [a.id, { kind: a.kind, natural: BigInt(a.balance_cents) }]));
  };

  /**
   * The natural balance (D6) the report implies for each exported account name, nonzero ones only
   * (the tools list only accounts with postings): `later` minus `earlier` when given.
   */
  const expectedBalances = async (names: Record<string, string>, later: string, earlier?: string) => {
    const end = await reportBalances(later);
    const start = earlier ? await reportBalances(earlier) : undefined;
    const expected: Record<string, bigint> = {};
    for (const [ledgerName, exported] of Object.entries(names)) {
      const id = f.acct(ledgerName);
      const natural = end.get(id)!.natural - (start?.get(id)!.natural ?? 0n);
      if (natural !== 0n) expected[exported] = natural;
    }
    return expected;
  };

  /** A tool's per-account sums of entries, put in natural sign by the account's kind. */
  const natural = (sums: [string, bigint][], names: Record<string, string>) => {
    const kindOf = new Map(Object.entries(names).map(([ledgerName, exported]) => [exported, f.accounts.get(ledgerName)!.kind]));
    return Object.fromEntries(
      sums.map(([account, sum]) => {
        const kind = kindOf.get(account);
        if (!kind) throw new Error(`the tool reports an account the export should not have: ${account}`);
        return [account, sum * naturalSign(kind)];
      }),
    );
  };

  /** D17's conversion for hledger, written out by hand. */
  const hledgerNames = (): Record<string, string> => ({
    Bank: 'assets:Bank',
    'Bank: Savings': 'assets:Bank Savings',
    'Bank Savings': `assets:Bank Savings-${f.acct('Bank Savings')}`,
    'cash box': 'assets:cash box',
    'Petty  cash': 'assets:Petty cash',
    'Credit card': 'liabilities:Credit card',
    '+Loan': 'liabilities:+Loan',
    'Opening balances': 'equity:Opening balances',
    '2024 Reserve': 'equity:2024 Reserve',
    Salary: 'income:Salary',
    '=Gifts': 'income:=Gifts',
    'Unused income': 'income:Unused income',
    'Café & Bäckerei': 'expenses:Café & Bäckerei',
    'Kit/Shirts': 'expenses:Kit/Shirts',
    'Kit Shirts': 'expenses:Kit Shirts',
    日本: 'expenses:日本',
    'Việt Nam trip': 'expenses:Việt Nam trip',
    '@Home office': 'expenses:@Home office',
  });

  /** D17's conversion for Beancount, written out by hand. */
  const beancountNames = (): Record<string, string> => ({
    Bank: 'Assets:Bank',
    'Bank: Savings': 'Assets:Bank-Savings',
    'Bank Savings': `Assets:Bank-Savings-${f.acct('Bank Savings')}`,
    'cash box': 'Assets:Cash-box',
    'Petty  cash': 'Assets:Petty-cash',
    'Credit card': 'Liabilities:Credit-card',
    '+Loan': 'Liabilities:Loan',
    'Opening balances': 'Equity:Opening-balances',
    '2024 Reserve': 'Equity:2024-Reserve',
    Salary: 'Income:Salary',
    '=Gifts': 'Income:Gifts',
    'Unused income': 'Income:Unused-income',
    'Café & Bäckerei': 'Expenses:Café-Bäckerei',
    'Kit/Shirts': 'Expenses:Kit-Shirts',
    'Kit Shirts': `Expenses:Kit-Shirts-${f.acct('Kit Shirts')}`,
    日本: `Expenses:Account-${f.acct('日本')}`,
    'Việt Nam trip': 'Expenses:Viet-Nam-trip',
    '@Home office': 'Expenses:Home-office',
  });

  /** `hledger bal`: every account's sum of postings, flat, as CSV. */
  const hledgerSums = (file: string, commodity: string): [string, bigint][] => {
    const { stdout, stderr } = run('hledger', ['-f', file, 'bal', '-O', 'csv', '--flat', '--no-total']);
    expect(stderr).toBe('');
    const [header, ...rows] = parse(stdout) as string[][];
    expect(header).toEqual(['account', 'balance']);
    return rows.map(([account, balance]) => [account!, cents(balance!, commodity)]);
  };

  /** `bean-check` (silent, exit 0), then `bean-query`'s sums of postings per account. */
  const beancountSums = (file: string, commodity: string): [string, bigint][] => {
    expect(run('bean-check', [file]), 'bean-check: no errors').toEqual({ stdout: '', stderr: '' });
    const { stdout } = run('bean-query', ['-f', 'csv', file, 'select account, currency, sum(number) as total group by account, currency']);
    const [header, ...rows] = parse(stdout, { trim: true }) as string[][];
    expect(header).toEqual(['account', 'currency', 'total']);
    for (const [account, currency] of rows) expect(currency, account).toBe(commodity);
    return rows.map(([account, , total]) => [account!, cents(total!)]);
  };

  beforeAll(async () => {
    ({ token } = await h.userWithToken('exports@example.com'));
    await buildBook(h, token, f);
    dir = mkdtempSync(path.join(os.tmpdir(), 'ledger-exports-'));
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the fixture: /reports/balances shows the hand-computed figures (the figures the exports are compared with)', async () => {
    const balances = await reportBalances('2025-12-31');
    const byName = Object.fromEntries([...f.accounts].map(([name, { id }]) => [name, Number(balances.get(id)!.natural)]));
    expect(byName).toEqual({
      Bank: 408500, 'Bank: Savings': 30000, 'Bank Savings': 20000, 'cash box': 3775, 'Petty  cash': 2500,
      'Credit card': 41000, '+Loan': 100000, 'Opening balances': 107500, '2024 Reserve': 10000,
      Salary: 250000, '=Gifts': 5, 'Unused income': 0,
      'Café & Bäckerei': 1730, 'Kit/Shirts': 4000, 'Kit Shirts': 2000, 日本: 20000, 'Việt Nam trip': 15000, '@Home office': 1000,
    });
  });

  // ---- CSV ----

  it('D17 CSV: RFC 4180 with CRLF, the header, one row per entry oldest first, stored signed amounts, the formula guard', async () => {
    const csv = await download('/export/transactions.csv', 'text/csv', 'transactions.csv');
    expect(csv.startsWith('transaction_id,occurred_on,description,account_id,account_name,account_kind,amount\r\n')).toBe(true);
    expect(csv.endsWith('\r\n')).toBe(true);
    // Every record ends with CRLF; the other CRs and LFs are inside quoted descriptions (T8, T9), once per entry.
    expect(csv.replace(/\r\n/g, '').match(/[\r\n]/g)).toEqual(['\r', '\n', '\r', '\n', '\n', '\n']);
    expect(csv).toContain(`,"'\tReserve\r2024\nnote",${f.acct('2024 Reserve')},2024 Reserve,equity,-100.00\r\n`);
    expect(csv).toContain(`,"Line one\nline ""two"", three",${f.acct('Bank')},Bank,asset,-5.00\r\n`);
    expect(csv).toContain(',"Salary ""January"", net",');
    expect(csv).toContain(`,Gift from =grandma,${f.acct('=Gifts')},'=Gifts,income,-0.05\r\n`);
    expect(csv).toContain(`,Bakery; coffee & cake,${f.acct('Café & Bäckerei')},Café & Bäckerei,expense,12.30\r\n`);

    const row = (tx: string, date: string, description: string, account: string, accountCell: string, amount: string) => [
      String(f.tx(tx)), date, description, String(f.acct(account)), accountCell, f.accounts.get(account)!.kind, amount,
    ];
    expect(parse(csv)).toEqual([
      ['transaction_id', 'occurred_on', 'description', 'account_id', 'account_name', 'account_kind', 'amount'],
      row('T1', '2025-01-01', 'Opening balance', 'Bank', 'Bank', '1000.00'),
      row('T1', '2025-01-01', 'Opening balance', 'cash box', 'cash box', '50.00'),
      row('T1', '2025-01-01', 'Opening balance', 'Petty  cash', 'Petty  cash', '25.00'),
      row('T1', '2025-01-01', 'Opening balance', 'Opening balances', 'Opening balances', '-1075.00'),
      row('T2', '2025-01-15', 'Salary "January", net', 'Bank', 'Bank', '2500.00'),
      row('T2', '2025-01-15', 'Salary "January", net', 'Salary', 'Salary', '-2500.00'),
      row('T3', '2025-02-01', 'Bakery; coffee & cake', 'Café & Bäckerei', 'Café & Bäckerei', '12.30'),
      row('T3', '2025-02-01', 'Bakery; coffee & cake', 'cash box', 'cash box', '-12.30'),
      row('T4', '2025-02-10', '(team) shirts', 'Kit/Shirts', 'Kit/Shirts', '40.00'),
      row('T4', '2025-02-10', '(team) shirts', 'Kit Shirts', 'Kit Shirts', '20.00'),
      row('T4', '2025-02-10', '(team) shirts', 'Credit card', 'Credit card', '-60.00'),
      row('T5', '2025-02-20', '*Savings* split 60\\40', 'Bank', 'Bank', '-500.00'),
      row('T5', '2025-02-20', '*Savings* split 60\\40', 'Bank: Savings', 'Bank: Savings', '300.00'),
      row('T5', '2025-02-20', '*Savings* split 60\\40', 'Bank Savings', 'Bank Savings', '200.00'),
      row('T6', '2025-03-01', 'Gift from =grandma', '=Gifts', "'=Gifts", '-0.05'),
      row('T6', '2025-03-01', 'Gift from =grandma', 'cash box', 'cash box', '0.05'),
      row('T7', '2025-03-05', "'-5% loan fee", '+Loan', "'+Loan", '-1000.00'),
      row('T7', '2025-03-05', "'-5% loan fee", 'Bank', 'Bank', '990.00'),
      row('T7', '2025-03-05', "'-5% loan fee", '@Home office', "'@Home office", '10.00'),
      row('T8', '2025-03-10', `'${CONTROLS}`, '2024 Reserve', '2024 Reserve', '-100.00'),
      row('T8', '2025-03-10', `'${CONTROLS}`, 'Bank', 'Bank', '100.00'),
      row('T10', '2025-03-15', 'Trip to 日本 and Việt Nam', '日本', '日本', '200.00'),
      row('T10', '2025-03-15', 'Trip to 日本 and Việt Nam', 'Việt Nam trip', 'Việt Nam trip', '150.00'),
      row('T10', '2025-03-15', 'Trip to 日本 and Việt Nam', 'Credit card', 'Credit card', '-350.00'),
      row('T9', '2025-03-15', MULTILINE, 'Bank', 'Bank', '-5.00'),
      row('T9', '2025-03-15', MULTILINE, 'Café & Bäckerei', 'Café & Bäckerei', '5.00'),
    ]);
  });

  it('D17 CSV: from and to limit the rows to the period, both days included; an empty period is the header alone', async () => {
    const csv = await download('/export/transactions.csv?from=2025-02-01&to=2025-02-20', 'text/csv', 'transactions.csv');
    const [, ...rows] = parse(csv) as string[][];
    expect(rows.map((r) => [r[0], r[1]])).toEqual([
      ...Array(2).fill([String(f.tx('T3')), '2025-02-01']),
      ...Array(3).fill([String(f.tx('T4')), '2025-02-10']),
      ...Array(3).fill([String(f.tx('T5')), '2025-02-20']),
    ]);
    expect(await download('/export/transactions.csv?from=2024-01-01&to=2024-12-31', 'text/csv', 'transactions.csv')).toBe(
      'transaction_id,occurred_on,description,account_id,account_name,account_kind,amount\r\n',
    );
  });

  // ---- hledger ----

  it.skipIf(!toolsPresent && !STRICT)('D17 hledger: `hledger bal` reads the journal, and its balances in natural sign equal /reports/balances', async () => {
    const journal = await download('/export/ledger.journal?commodity=CHF', 'text/plain', 'ledger.journal');
    expect(journal).not.toContain('EUR');
    const file = saved('all.journal', journal);
    const names = hledgerNames();
    expect(natural(hledgerSums(file, 'CHF'), names)).toEqual(await expectedBalances(names, '2025-12-31'));
    // Every account is declared under its kind's top-level name, each name once.
    const declared = run('hledger', ['-f', file, 'accounts', '--declared']).stdout.trim().split('\n');
    expect([...declared].sort()).toEqual(Object.values(names).sort());
  });

  it.skipIf(!toolsPresent && !STRICT)('D17 hledger: one transaction per transaction, its id as the code, its description on one line without `;`', async () => {
    const file = saved('default.journal', await download('/export/ledger.journal', 'text/plain', 'ledger.journal'));
    const { stdout } = run('hledger', ['-f', file, 'print', '-O', 'csv']);
    const [header, ...rows] = parse(stdout) as string[][];
    const column = (name: string) => header!.indexOf(name);
    const transactions = new Map(rows.map((r) => [r[column('code')], [r[column('date')], r[column('description')], r[column('commodity')]]]));
    expect(Object.fromEntries(transactions)).toEqual({
      [f.tx('T1')]: ['2025-01-01', 'Opening balance', 'EUR'],
      [f.tx('T2')]: ['2025-01-15', 'Salary "January", net', 'EUR'],
      [f.tx('T3')]: ['2025-02-01', 'Bakery, coffee & cake', 'EUR'],
      [f.tx('T4')]: ['2025-02-10', '(team) shirts', 'EUR'],
      [f.tx('T5')]: ['2025-02-20', '*Savings* split 60\\40', 'EUR'],
      [f.tx('T6')]: ['2025-03-01', 'Gift from =grandma', 'EUR'],
      [f.tx('T7')]: ['2025-03-05', '-5% loan fee', 'EUR'],
      [f.tx('T8')]: ['2025-03-10', 'Reserve 2024 note', 'EUR'],
      [f.tx('T10')]: ['2025-03-15', 'Trip to 日本 and Việt Nam', 'EUR'],
      [f.tx('T9')]: ['2025-03-15', 'Line one line "two", three', 'EUR'],
    });
    expect(rows).toHaveLength(26);
  });

  it.skipIf(!toolsPresent && !STRICT)('D17 hledger: from and to limit the transactions; the balances equal the reports\' movement over the period', async () => {
    const file = saved('period.journal', await download('/export/ledger.journal?from=2025-02-01&to=2025-02-28', 'text/plain', 'ledger.journal'));
    const printed = parse(run('hledger', ['-f', file, 'print', '-O', 'csv']).stdout, { columns: true }) as { code: string }[];
    const codes = printed.map((r) => r.code);
    expect([...new Set(codes)]).toEqual([f.tx('T3'), f.tx('T4'), f.tx('T5')].map(String));
    const names = hledgerNames();
    expect(natural(hledgerSums(file, 'EUR'), names)).toEqual(await expectedBalances(names, '2025-02-28', '2025-01-31'));
    const upTo = saved('to.journal', await download('/export/ledger.journal?to=2025-01-31', 'text/plain', 'ledger.journal'));
    expect(natural(hledgerSums(upTo, 'EUR'), names)).toEqual(await expectedBalances(names, '2025-01-31'));
  });

  // ---- Beancount ----

  it('D20: without `commodity` the journals are written in the book\'s currency', async () => {
    expect((await h.call(token, 'PUT', '/settings', { currency: 'GBP' })).status).toBe(200);
    try {
      const journal = await download('/export/ledger.journal', 'text/plain', 'ledger.journal');
      expect(journal).toContain('commodity 1000.00 GBP');
      expect(journal).not.toContain('EUR');
      const beancount = await download('/export/ledger.beancount', 'text/plain', 'ledger.beancount');
      expect(beancount).toContain('option "operating_currency" "GBP"');
      expect(await download('/export/ledger.journal?commodity=CHF', 'text/plain', 'ledger.journal')).not.toContain('GBP');
    } finally {
      expect((await h.call(token, 'PUT', '/settings', { currency: 'EUR' })).status).toBe(200);
    }
  });

  it.skipIf(!toolsPresent && !STRICT)('D17 Beancount: bean-check accepts the file, and bean-query\'s balances in natural sign equal /reports/balances', async () => {
    const text = await download('/export/ledger.beancount?commodity=CHF', 'text/plain', 'ledger.beancount');
    const file = saved('all.beancount', text);
    const names = beancountNames();
    expect(natural(beancountSums(file, 'CHF'), names)).toEqual(await expectedBalances(names, '2025-12-31'));
    // Every account opened once, under its kind's top-level name, on the first date of the export.
    const opens = [...text.matchAll(/^(\S+) open (\S+)$/gm)];
    expect(opens.map((m) => m[2]).sort()).toEqual(Object.values(names).sort());
    expect(new Set(opens.map((m) => m[1]))).toEqual(new Set(['2025-01-01']));
  });

  it.skipIf(!toolsPresent && !STRICT)('D17 Beancount: one transaction per transaction with its description, quotes and backslashes escaped', async () => {
    const file = saved('default.beancount', await download('/export/ledger.beancount', 'text/plain', 'ledger.beancount'));
    const { stdout } = run('bean-query', ['-f', 'csv', file, "select entry_meta('transaction_id') as id, date, narration, currency"]);
    const rows = parse(stdout, { trim: true, columns: true }) as { id: string; date: string; narration: string; currency: string }[];
    expect(rows).toHaveLength(26);
    // bean-query pads its cells, quoted ones included.
    expect(Object.fromEntries(rows.map((r) => [r.id, [r.date, r.narration.trimEnd(), r.currency]]))).toEqual({
      [f.tx('T1')]: ['2025-01-01', 'Opening balance', 'EUR'],
      [f.tx('T2')]: ['2025-01-15', 'Salary "January", net', 'EUR'],
      [f.tx('T3')]: ['2025-02-01', 'Bakery; coffee & cake', 'EUR'],
      [f.tx('T4')]: ['2025-02-10', '(team) shirts', 'EUR'],
      [f.tx('T5')]: ['2025-02-20', '*Savings* split 60\\40', 'EUR'],
      [f.tx('T6')]: ['2025-03-01', 'Gift from =grandma', 'EUR'],
      [f.tx('T7')]: ['2025-03-05', '-5% loan fee', 'EUR'],
      [f.tx('T8')]: ['2025-03-10', 'Reserve 2024 note', 'EUR'],
      [f.tx('T10')]: ['2025-03-15', 'Trip to 日本 and Việt Nam', 'EUR'],
      [f.tx('T9')]: ['2025-03-15', 'Line one line "two", three', 'EUR'],
    });
  });

  it.skipIf(!toolsPresent && !STRICT)('D17 Beancount: from and to limit the transactions, accounts open on `from`, balances equal the reports\' movement', async () => {
    const text = await download('/export/ledger.beancount?from=2025-02-01&to=2025-02-28', 'text/plain', 'ledger.beancount');
    const file = saved('period.beancount', text);
    const names = beancountNames();
    expect(natural(beancountSums(file, 'EUR'), names)).toEqual(await expectedBalances(names, '2025-02-28', '2025-01-31'));
    expect(new Set([...text.matchAll(/^(\S+) open /gm)].map((m) => m[1]))).toEqual(new Set(['2025-02-01']));
    const ids = [...text.matchAll(/^ {2}transaction_id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual([f.tx('T3'), f.tx('T4'), f.tx('T5')]);
    const upTo = saved('to.beancount', await download('/export/ledger.beancount?to=2025-01-31', 'text/plain', 'ledger.beancount'));
    expect(natural(beancountSums(upTo, 'EUR'), names)).toEqual(await expectedBalances(names, '2025-01-31'));
  });

  // ---- refusals ----

  it('D17: a commodity that is not three upper-case letters is 400 in the plain shape, on both journals', async () => {
    for (const route of ['/export/ledger.journal', '/export/ledger.beancount']) {
      for (const commodity of ['eur', 'EURO', 'E1R', '', '€']) {
        const res = await h.call(token, 'GET', `${route}?commodity=${encodeURIComponent(commodity)}`);
        expect(res.status, `${route} ${commodity}`).toBe(400);
        expect(await res.json()).toEqual({ error: 'commodity must be an ISO 4217 code: three upper-case letters (EUR)' });
      }
    }
  });

  it('D17: a malformed or impossible date is 400 in the plain shape, on every export', async () => {
    for (const route of ['/export/transactions.csv', '/export/ledger.journal', '/export/ledger.beancount']) {
      for (const [query, error] of [
        ['from=2025-02-30', 'from must be a date YYYY-MM-DD'],
        ['to=2025-1-31', 'to must be a date YYYY-MM-DD'],
        ['from=2025-01-01&from=2025-02-01', 'from must be a date YYYY-MM-DD'],
      ]) {
        const res = await h.call(token, 'GET', `${route}?${query}`);
        expect(res.status, `${route}?${query}`).toBe(400);
        expect(await res.json(), `${route}?${query}`).toEqual({ error });
      }
    }
  });

  it('D17 full tier: no credential or an invalid bearer is 401 with the challenge, on every export', async () => {
    for (const route of ['/export/transactions.csv', '/export/ledger.journal', '/export/ledger.beancount']) {
      await expectAuthenticationRequired(await h.request(route), route);
      await expectAuthenticationRequired(await h.call(`lg_${'A'.repeat(43)}`, 'GET', route), route);
    }
  });
});

// D17 on a book of several batches: the exports are read through a cursor, EXPORT_BATCH_ROWS rows
// at a time, and written as they are read. A transaction cut by a batch's end must still come out
// whole, in order; a download given up half-way must give its connection back to the pool.
describeEachDatabase('books out, a batch at a time (D17)', (h) => {
  let token: string;
  const TRANSACTIONS = Math.ceil((EXPORT_BATCH_ROWS * 2.5) / 3); // three entries each: 2.5 batches of entry rows

  beforeAll(async () => {
    ({ token } = await h.userWithToken('batches@example.com'));
    const ids: number[] = [];
    for (const [name, kind] of [['Bank', 'asset'], ['Food', 'expense'], ['Rent', 'expense']] as const) {
      ids.push((await (await h.call(token, 'POST', '/accounts', { name, kind })).json()).id);
    }
    // Out of date order on purpose, so that id order and date order differ.
    await h.db.execute(sql`
      with headers as (
        insert into transactions (occurred_on, description)
        select date '2025-01-01' + ((g * 37) % 300), 'line ' || g from generate_series(1, ${TRANSACTIONS}::int) g
        returning id, occurred_on
      )
      insert into entries (transaction_id, occurred_on, account_id, amount_cents)
      select h.id, h.occurred_on, a.account_id, a.amount from headers h
      cross join lateral (values (${ids[0]!}::int, -300), (${ids[1]!}::int, 100), (${ids[2]!}::int, 200)) as a(account_id, amount)`);
  });

  it('the CSV holds every entry once, oldest first, each transaction whole and together', async () => {
    const res = await h.call(token, 'GET', '/export/transactions.csv');
    expect(res.status).toBe(200);
    const rows = parse(await res.text(), { from_line: 2 }) as string[][];
    expect(rows).toHaveLength(TRANSACTIONS * 3);
    const keys = rows.map((r) => `${r[1]} ${r[0]!.padStart(8, '0')}`);
    expect(keys).toEqual([...keys].sort());
    for (let i = 0; i < rows.length; i += 3) {
      expect(rows.slice(i, i + 3).map((r) => [r[0], r[4], r[6]])).toEqual([
        [rows[i]![0], 'Bank', '-3.00'],
        [rows[i]![0], 'Food', '1.00'],
        [rows[i]![0], 'Rent', '2.00'],
      ]);
    }
  });

  it.skipIf(!toolsPresent && !STRICT)('hledger and bean-check read the whole book across batches', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ledger-batches-'));
    try {
      for (const [route, tool, args] of [
        ['/export/ledger.journal', 'hledger', ['bal', '-O', 'csv', '--flat', '--no-total', '-f']],
        ['/export/ledger.beancount', 'bean-check', []],
      ] as const) {
        const file = path.join(dir, route.split('/').pop()!);
        writeFileSync(file, await (await h.call(token, 'GET', route)).text());
        const out = run(tool, [...args, file]);
        if (tool === 'hledger') expect(out.stdout).toContain(`"assets:Bank","${decimal(BigInt(-300 * TRANSACTIONS))} EUR"`);
        else expect(out).toEqual({ stdout: '', stderr: '' });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('downloads given up after their first part give their connections back', async () => {
    for (let i = 0; i < 15; i++) {
      const res = await h.call(token, 'GET', '/export/transactions.csv');
      const reader = res.body!.getReader();
      await reader.read();
      await reader.cancel();
    }
    const accounts = await h.call(token, 'GET', '/accounts');
    expect(accounts.status).toBe(200);
    expect((await accounts.json()).length).toBe(3);
  });
});
