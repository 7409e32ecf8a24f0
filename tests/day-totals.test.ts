import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { compactDayTotals, rebuildDayTotals } from '../src/book/day-totals';
import { postDueOccurrences } from '../src/book/schedule-posting';
import { rowsOf } from '../src/db/database';
import { describeEachDatabase, type Harness } from './support/harness';
import { json } from './support/http';

// D7, issue 31 item 5 (property): the balances, the balance sheet, the income statement, the
// monthly report and a register's opening balance read account_day_totals, which only the
// triggers of drizzle/0014 write. Random sequences of every kind of write there is (posts,
// corrections of date, accounts and amounts, deletes, restores of deleted transactions,
// reconciliations and their undos, imports, a schedule's postings, a closed period that refuses
// some of them, an account created, used, emptied and deleted) and of compactions; after each
// sequence the table folds to exactly the entries' sums per account and day, and every report at
// random dates and periods equals the plain sum over entries (the statement the reports ran
// before, kept below). Then compactions racing each other and posts.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const DAY0 = Date.UTC(2026, 0, 1);
const DAYS = 120;
const dateOf = (day: number) => new Date(DAY0 + (day - 1) * 86_400_000).toISOString().slice(0, 10);
const money = (cents: number) => `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;

const ACCOUNTS = [
  ['Bank', 'asset'],
  ['Cash', 'asset'],
  ['Card', 'liability'],
  ['Capital', 'equity'],
  ['Salary', 'income'],
  ['Gifts', 'income'],
  ['Food', 'expense'],
  ['Rent', 'expense'],
] as const;
const CREDIT_NORMAL = new Set(['liability', 'equity', 'income']);

/**
 * The plain sums over entries: per account, its entries dated in [from, to] (either end open when
 * null), as the reports computed them before account_day_totals (raw sign, numeric text).
 */
async function plainSums(h: Harness, from: string | null, to: string | null): Promise<Map<number, bigint>> {
  const rows = rowsOf<{ id: number; total: string | null }>(await h.db.execute(sql`
    select a.id, sums.total::text as total
    from accounts a
    left join (
      select account_id, sum(amount_cents) as total from entries
      where (${from}::date is null or occurred_on >= ${from}::date) and (${to}::date is null or occurred_on <= ${to}::date)
      group by account_id
    ) sums on sums.account_id = a.id`));
  return new Map(rows.map((r) => [r.id, BigInt(r.total ?? 0)]));
}

/** Rows of account_day_totals that do not add up to the entries of their account and day (both ways). */
async function mismatchedDays(h: Harness): Promise<Json[]> {
  return rowsOf<Json>(await h.db.execute(sql`
    with totals as (
      select account_id, occurred_on, sum(total_cents) as total, sum(entry_count) as n
      from account_day_totals group by account_id, occurred_on
      having sum(total_cents) <> 0 or sum(entry_count) <> 0
    ), plain as (
      select account_id, occurred_on, sum(amount_cents)::numeric as total, count(*)::numeric as n
      from entries group by account_id, occurred_on
    )
    select account_id, occurred_on::text, totals.total::text as totals_total, totals.n::text as totals_n,
           plain.total::text as plain_total, plain.n::text as plain_n
    from totals full join plain using (account_id, occurred_on)
    where totals.total is distinct from plain.total or totals.n is distinct from plain.n`));
}

const dayArb = fc.integer({ min: 1, max: DAYS });
const accountArb = fc.nat({ max: ACCOUNTS.length - 1 });
const centsArb = fc.integer({ min: 1, max: 2_000_000 });
/** One to three pairs of lines (a debit and its credit): always balanced, accounts possibly repeated. */
const linesArb = fc.array(fc.record({ debit: accountArb, credit: accountArb, cents: centsArb }), { minLength: 1, maxLength: 3 });
const command = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('post' as const), day: dayArb, lines: linesArb }) },
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('correct' as const), pick: fc.nat(), day: dayArb, lines: linesArb,
      change: fc.constantFrom('date', 'accounts', 'amounts', 'all', 'description'),
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('delete' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('restore' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('reconcile' as const), card: fc.boolean(), day: dayArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('undo' as const), card: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('import' as const),
      lines: fc.array(fc.record({ day: dayArb, cents: fc.integer({ min: -500_000, max: 500_000 }).filter((n) => n !== 0) }), { minLength: 1, maxLength: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('schedule' as const), day: dayArb, cents: centsArb, runTo: dayArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('close' as const), day: fc.option(dayArb, { freq: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('scratch account' as const), day: dayArb, cents: centsArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('compact' as const) }) },
);
const checkArb = fc.record({ asOf: dayArb, from: dayArb, length: fc.integer({ min: 0, max: 70 }), account: accountArb });

describeEachDatabase('account_day_totals: the reports from day totals equal the plain sums over entries (issue 31 item 5, D7, property)', (h) => {
  let token: string;
  const ids: number[] = [];
  const api = (method: string, path: string, body?: unknown) => h.call(token, method, path, body);
  const outcomes: Record<string, number> = {};
  const count = (what: string) => (outcomes[what] = (outcomes[what] ?? 0) + 1);
  /** A status the step may answer; never a 500. */
  const expectOneOf = async (res: Response, statuses: number[], context: string) => {
    expect(statuses, `${context}: ${res.status} ${await res.clone().text()}`).toContain(res.status);
    return res.status;
  };

  beforeAll(async () => {
    ({ token } = await h.userWithToken('property@day-totals.example'));
    for (const [name, kind] of ACCOUNTS) {
      const res = await api('POST', '/accounts', { name, kind });
      expect(res.status).toBe(201);
      ids.push((await json(res)).id);
    }
  });

  const entriesOf = (lines: { debit: number; credit: number; cents: number }[]) =>
    lines.flatMap((l) => [
      { account_id: ids[l.debit]!, amount_cents: l.cents },
      { account_id: ids[l.credit]!, amount_cents: -l.cents },
    ]);

  /** Every report the table serves, at the check's dates, against the plain sums. */
  async function checkReports(check: { asOf: number; from: number; length: number; account: number }, context: string): Promise<void> {
    const natural = (kind: string, raw: bigint) => Number(CREDIT_NORMAL.has(kind) ? -raw : raw);
    const asOf = dateOf(check.asOf);
    const upTo = await plainSums(h, null, asOf);
    const balances = await json(await api('GET', `/reports/balances?as_of=${asOf}`));
    for (const a of balances.accounts) expect(a.balance_cents, `${context}: balance of ${a.name} on ${asOf}`).toBe(natural(a.kind, upTo.get(a.id)!));

    const sheet = await json(await api('GET', `/reports/balance-sheet?as_of=${asOf}`));
    const kindOf = new Map<number, string>(balances.accounts.map((a: Json) => [a.id, a.kind]));
    for (const section of [sheet.assets, sheet.liabilities, sheet.equity]) {
      for (const line of section.lines) expect(line.balance_cents, `${context}: balance sheet ${line.name}`).toBe(natural(kindOf.get(line.id)!, upTo.get(line.id)!));
    }
    let net = 0n;
    for (const [id, raw] of upTo) if (kindOf.get(id) === 'income' || kindOf.get(id) === 'expense') net -= raw;
    expect(sheet.net_income_cents, `${context}: net income to ${asOf}`).toBe(Number(net));
    expect(sheet.balanced, context).toBe(true);

    const from = dateOf(check.from);
    const to = dateOf(check.from + check.length);
    const within = await plainSums(h, from, to);
    const statement = await json(await api('GET', `/reports/income-statement?from=${from}&to=${to}`));
    for (const line of [...statement.income.lines, ...statement.expenses.lines]) {
      expect(line.balance_cents, `${context}: income statement ${line.name} ${from}..${to}`).toBe(natural(kindOf.get(line.id)!, within.get(line.id)!));
    }

    // The monthly report: each month's income and expense against the plain sums of that month.
    const months = await json(await api('GET', `/reports/monthly?from=${from}&to=${to}`));
    for (const m of months) {
      const [y, mo] = m.month.split('-').map(Number);
      const first = new Date(Date.UTC(y, mo - 1, 1)).toISOString().slice(0, 10);
      const last = new Date(Date.UTC(y, mo, 0)).toISOString().slice(0, 10);
      const month = await plainSums(h, first < from ? from : first, last > to ? to : last);
      let income = 0n;
      let expense = 0n;
      for (const [id, raw] of month) {
        if (kindOf.get(id) === 'income') income -= raw;
        if (kindOf.get(id) === 'expense') expense += raw;
      }
      expect([m.income_cents, m.expense_cents], `${context}: monthly ${m.month}`).toEqual([Number(income), Number(expense)]);
    }

    // A register's opening balance: the account's entries before `from`.
    const id = ids[check.account]!;
    const before = await plainSums(h, null, dateOf(check.from - 1));
    const register = await json(await api('GET', `/reports/accounts/${id}/register?from=${from}&to=${to}`));
    expect(register.opening_balance_cents, `${context}: opening of ${id} on ${from}`).toBe(natural(kindOf.get(id)!, before.get(id)!));
  }

  it('after random writes and compactions, every report at random dates equals the plain sum over entries', { timeout: 300_000 }, async () => {
    let run = 0;
    const live: { id: number; day: number; lines: { debit: number; credit: number; cents: number }[]; description: string }[] = [];
    const deleted: number[] = [];
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 5, maxLength: 25 }), fc.array(checkArb, { minLength: 1, maxLength: 3 }), async (commands, checks) => {
        run++;
        for (const [i, c] of commands.entries()) {
          const context = `run ${run} step ${i} ${JSON.stringify(c)}`;
          switch (c.op) {
            case 'post': {
              const description = `Run ${run} step ${i}`;
              const res = await api('POST', '/transactions', { occurred_on: dateOf(c.day), description, entries: entriesOf(c.lines) });
              if ((await expectOneOf(res, [201, 409], context)) === 201) {
                live.push({ id: (await json(res)).id, day: c.day, lines: c.lines, description });
                count('post');
              } else count('post refused (closed)');
              break;
            }
            case 'correct': {
              const t = live.length > 0 ? live[c.pick % live.length]! : undefined;
              if (!t) break;
              const wanted = { ...t, lines: t.lines.map((l) => ({ ...l })) };
              if (c.change === 'date' || c.change === 'all') wanted.day = c.day;
              if (c.change === 'accounts') {
                wanted.lines = t.lines.map((l, k) => ({ ...l, debit: c.lines[k % c.lines.length]!.debit, credit: c.lines[k % c.lines.length]!.credit }));
              }
              if (c.change === 'amounts') wanted.lines = t.lines.map((l, k) => ({ ...l, cents: c.lines[k % c.lines.length]!.cents }));
              if (c.change === 'all') wanted.lines = c.lines;
              if (c.change === 'description') wanted.description = `${t.description} (corrected at ${i})`;
              const res = await api('PUT', `/transactions/${t.id}`, { occurred_on: dateOf(wanted.day), description: wanted.description, entries: entriesOf(wanted.lines) });
              if ((await expectOneOf(res, [200, 409], context)) === 200) {
                Object.assign(t, wanted);
                count(`correction of ${c.change}`);
              } else count('correction refused');
              break;
            }
            case 'delete': {
              const t = live.length > 0 ? live[c.pick % live.length]! : undefined;
              if (!t) break;
              if ((await expectOneOf(await api('DELETE', `/transactions/${t.id}`), [204, 409], context)) === 204) {
                live.splice(live.indexOf(t), 1);
                deleted.push(t.id);
                count('delete');
              } else count('delete refused');
              break;
            }
            case 'restore': {
              const id = deleted.length > 0 ? deleted[c.pick % deleted.length]! : undefined;
              if (id === undefined) break;
              const res = await api('POST', `/transactions/${id}/restore`);
              if ((await expectOneOf(res, [201, 409], context)) === 201) {
                const back = await json(res);
                deleted.splice(deleted.indexOf(id), 1);
                // Its lines as pairs again (restored entries are debit, credit, debit, credit …).
                const lines = [];
                for (let k = 0; k < back.entries.length; k += 2) {
                  lines.push({ debit: ids.indexOf(back.entries[k].account_id), credit: ids.indexOf(back.entries[k + 1].account_id), cents: back.entries[k].amount_cents });
                }
                live.push({ id, day: Math.round((Date.parse(back.occurred_on) - DAY0) / 86_400_000) + 1, lines, description: back.description });
                count('restore');
              } else count('restore refused');
              break;
            }
            case 'reconcile': {
              const account = ids[c.card ? 2 : 0]!;
              const day = dateOf(c.day);
              const status = await json(await api('GET', `/accounts/${account}/reconciliation?as_of=${day}`));
              const res = await api('POST', `/accounts/${account}/reconciliations`, { statement_date: day, statement_balance_cents: status.book_balance_cents });
              count((await expectOneOf(res, [201, 400], context)) === 201 ? 'reconcile' : 'reconcile refused');
              break;
            }
            case 'undo': {
              const account = ids[c.card ? 2 : 0]!;
              const [latest] = await json(await api('GET', `/accounts/${account}/reconciliations`));
              if (!latest) break;
              await expectOneOf(await api('DELETE', `/reconciliations/${latest.id}`), [204], context);
              count('undo');
              break;
            }
            case 'import': {
              const csv = ['Date,Description,Amount', ...c.lines.map((l, k) => `${dateOf(l.day)},Import ${run}.${i}.${k},${money(l.cents)}`)].join('\n') + '\n';
              const res = await api('POST', '/imports', {
                account_id: ids[0], format: 'csv', content: csv, unmatched_account_id: ids[6],
                csv: { date_column: 'Date', description_column: 'Description', amount_column: 'Amount', date_format: 'YYYY-MM-DD', decimal: '.' },
              });
              if ((await expectOneOf(res, [201, 400], context)) === 201) {
                // Imported transactions join the live ones: later steps correct, delete and restore them too.
                for (const created of (await json(res)).created as number[]) {
                  const t = await json(await api('GET', `/transactions/${created}`));
                  const debit = t.entries.find((e: Json) => e.amount_cents > 0);
                  const credit = t.entries.find((e: Json) => e.amount_cents < 0);
                  live.push({
                    id: t.id, day: Math.round((Date.parse(t.occurred_on) - DAY0) / 86_400_000) + 1, description: t.description,
                    lines: [{ debit: ids.indexOf(debit.account_id), credit: ids.indexOf(credit.account_id), cents: debit.amount_cents }],
                  });
                }
                count('import');
              } else count('import refused');
              break;
            }
            case 'schedule': {
              const res = await api('POST', '/schedules', {
                description: `Rent ${run}.${i}`, every: 'week', mode: 'post', start_on: dateOf(c.day), until_on: dateOf(Math.min(c.day + 21, DAYS)),
                entries: [{ account_id: ids[7], amount_cents: c.cents }, { account_id: ids[0], amount_cents: -c.cents }],
              });
              await expectOneOf(res, [201], context);
              // Saving posts what is due through today at once (issue 37 item 4); the job any later dates.
              const made = await json(res);
              const posting = await postDueOccurrences(h.db, dateOf(c.runTo));
              count(posting.posted > 0 || made.next_on !== made.start_on ? 'schedule posted' : 'schedule posted nothing');
              break;
            }
            case 'close': {
              await expectOneOf(await api('PUT', '/settings', { closed_through: c.day === null ? null : dateOf(c.day) }), [200], context);
              count(c.day === null ? 'reopen' : 'close');
              break;
            }
            case 'scratch account': {
              // Created, used, emptied and deleted: its day rows (summing to zero) go with it.
              const res = await api('POST', '/accounts', { name: `Scratch ${run}.${i}`, kind: 'expense' });
              const scratch = (await json(res)).id;
              const posted = await api('POST', '/transactions', {
                occurred_on: dateOf(c.day), description: `Scratch ${run}.${i}`,
                entries: [{ account_id: scratch, amount_cents: c.cents }, { account_id: ids[1], amount_cents: -c.cents }],
              });
              if ((await expectOneOf(posted, [201, 409], context)) === 201) {
                await expectOneOf(await api('DELETE', `/transactions/${(await json(posted)).id}`), [204], context);
              }
              await expectOneOf(await api('DELETE', `/accounts/${scratch}`), [204], context);
              count('scratch account');
              break;
            }
            case 'compact': {
              const folded = await compactDayTotals(h.db);
              count(folded.removed > 0 ? 'compaction' : 'compaction with nothing to fold');
              break;
            }
          }
        }
        // Reopen the books, so that the next sequence starts from the same rules.
        expect((await api('PUT', '/settings', { closed_through: null })).status).toBe(200);
        expect(await mismatchedDays(h), `run ${run}: account_day_totals against entries`).toEqual([]);
        for (const [k, check] of checks.entries()) await checkReports(check, `run ${run} check ${k} ${JSON.stringify(check)}`);
      }),
      { seed: 0x31_05, numRuns: 25 },
    );
    // The control: every kind of write happened, and compactions folded something.
    for (const what of ['post', 'correction of date', 'correction of accounts', 'correction of amounts', 'delete', 'restore', 'reconcile', 'undo', 'import', 'schedule posted', 'close', 'scratch account', 'compaction']) {
      expect(outcomes[what] ?? 0, `${what} (outcomes: ${JSON.stringify(outcomes)})`).toBeGreaterThan(0);
    }
    // A fold leaves one row per account and day at most, and no row of a day without entries.
    await compactDayTotals(h.db);
    const [shape] = rowsOf<{ extra: number; empty: number }>(await h.db.execute(sql`
      select (select count(*) from (select 1 from account_day_totals group by account_id, occurred_on having count(*) > 1) x)::int as extra,
             (select count(*) from account_day_totals where total_cents = 0 and entry_count = 0)::int as empty`));
    expect(shape).toEqual({ extra: 0, empty: 0 });
    expect(await mismatchedDays(h)).toEqual([]);
  });

  it('a reconciliation (reconciliation_id alone changes) writes no row', async () => {
    const id = await json(await api('POST', '/transactions', {
      occurred_on: dateOf(DAYS + 5), description: 'Reconciled alone',
      entries: [{ account_id: ids[1], amount_cents: 700 }, { account_id: ids[3], amount_cents: -700 }],
    }));
    expect(id.id).toBeGreaterThan(0);
    const rows = async () => Number(rowsOf<{ n: string }>(await h.db.execute(sql`select count(*) as n from account_day_totals`))[0]!.n);
    const before = await rows();
    const status = await json(await api('GET', `/accounts/${ids[1]}/reconciliation?as_of=${dateOf(DAYS + 5)}`));
    const res = await api('POST', `/accounts/${ids[1]}/reconciliations`, { statement_date: dateOf(DAYS + 5), statement_balance_cents: status.book_balance_cents });
    expect(res.status, await res.clone().text()).toBe(201);
    expect(await rows()).toBe(before);
    expect((await api('DELETE', `/reconciliations/${(await json(res)).id}`)).status).toBe(204);
    expect(await rows()).toBe(before);
  });

  it('two compactions at once, beside posts, corrections and deletes, leave the sums exact', { timeout: 120_000 }, async () => {
    // Many delta rows on few account-days, so that the compactions have the same groups to fold.
    const day = (k: number) => dateOf(DAYS + 10 + (k % 3));
    const made: number[] = [];
    await Promise.all(Array.from({ length: 60 }, async (_, k) => {
      const res = await api('POST', '/transactions', {
        occurred_on: day(k), description: `Race ${k}`,
        entries: [{ account_id: ids[k % 2]!, amount_cents: 100 + k }, { account_id: ids[4 + (k % 2)]!, amount_cents: -(100 + k) }],
      });
      expect(res.status).toBe(201);
      made.push((await json(res)).id);
    }));
    const writes = Array.from({ length: 30 }, async (_, k) => {
      if (k % 3 === 0) return expect((await api('DELETE', `/transactions/${made[k]}`)).status).toBe(204);
      if (k % 3 === 1) {
        const res = await api('PUT', `/transactions/${made[k]}`, {
          occurred_on: day(k + 1), description: `Race ${k} corrected`,
          entries: [{ account_id: ids[6]!, amount_cents: 5 + k }, { account_id: ids[k % 2]!, amount_cents: -(5 + k) }],
        });
        return expect(res.status).toBe(200);
      }
      const res = await api('POST', '/transactions', {
        occurred_on: day(k), description: `Race more ${k}`,
        entries: [{ account_id: ids[k % 2]!, amount_cents: 9 }, { account_id: ids[4]!, amount_cents: -9 }],
      });
      return expect(res.status).toBe(201);
    });
    // Two of the background's (one finds the lock taken) and two of the bare statement, which race row by row.
    const compactions = [compactDayTotals(h.db), compactDayTotals(h.db), compactDayTotals(h.db, { exclusive: false }), compactDayTotals(h.db, { exclusive: false })];
    const results = await Promise.all([...compactions, ...writes]);
    expect(results.slice(0, 4).some((r: any) => r.removed > 0)).toBe(true);
    expect(await mismatchedDays(h)).toEqual([]);
    await compactDayTotals(h.db);
    expect(await mismatchedDays(h)).toEqual([]);
  });

  it('a compaction waiting on rows another compaction deleted skips them: one sum each, no double count', async () => {
    const on = dateOf(DAYS + 20);
    const post = async (cents: number) =>
      expect((await api('POST', '/transactions', {
        occurred_on: on, description: `Interleaved ${cents}`,
        entries: [{ account_id: ids[0], amount_cents: cents }, { account_id: ids[3], amount_cents: -cents }],
      })).status).toBe(201);
    for (const cents of [11, 22, 33]) await post(cents);
    const dayRows = async () => Number(rowsOf<{ n: string }>(await h.db.execute(sql`select count(*) as n from account_day_totals where occurred_on = ${on}::date`))[0]!.n);
    expect(await dayRows()).toBe(6);

    let second: Promise<{ removed: number; written: number }> | undefined;
    let whileHeld: { removed: number; written: number } | undefined;
    const first = await h.db.transaction(async (tx) => {
      const folded = await compactDayTotals(tx);
      // Another compaction of the background's kind gives way at once while the first holds the lock.
      whileHeld = await compactDayTotals(h.db);
      // A post after the first fold, then a second bare fold, which must wait on the first's rows.
      await post(44);
      second = compactDayTotals(h.db, { exclusive: false });
      await waitForLockWait(h);
      return folded;
    });
    expect(first).toEqual({ removed: 6, written: 2 });
    expect(whileHeld).toEqual({ removed: 0, written: 0 });
    // It saw the first fold's rows still there, waited for them, found them gone, and folded only the new post's.
    expect(await second).toEqual({ removed: 2, written: 2 });
    expect(await mismatchedDays(h)).toEqual([]);
    const [sums] = rowsOf<{ bank: string; n: string }>(await h.db.execute(sql`
      select sum(total_cents) filter (where account_id = ${ids[0]})::text as bank, sum(entry_count) filter (where account_id = ${ids[0]})::text as n
      from account_day_totals where occurred_on = ${on}::date`));
    expect(sums).toEqual({ bank: '110', n: '4' });
  });

  it('rebuildDayTotals (the migration\'s backfill) writes one row per account and day, equal to the entries', async () => {
    const written = await rebuildDayTotals(h.db);
    const [groups] = rowsOf<{ n: number }>(await h.db.execute(sql`select count(*)::int as n from (select 1 from entries group by account_id, occurred_on) g`));
    expect(written).toBe(groups!.n);
    expect(await mismatchedDays(h)).toEqual([]);
    expect(await compactDayTotals(h.db)).toEqual({ removed: 0, written: 0 });
  });

  it('a rebuild while a compaction is under way waits for it: its folded rows are not kept beside the rebuilt ones', async () => {
    const on = dateOf(DAYS + 30);
    for (const cents of [5, 6, 7]) {
      expect((await api('POST', '/transactions', {
        occurred_on: on, description: `Rebuilt ${cents}`,
        entries: [{ account_id: ids[1], amount_cents: cents }, { account_id: ids[5], amount_cents: -cents }],
      })).status).toBe(201);
    }
    let rebuilt: Promise<number> | undefined;
    await h.db.transaction(async (tx) => {
      // The background's fold, not yet committed, when a rebuild starts (another instance's run).
      expect((await compactDayTotals(tx)).removed).toBeGreaterThan(0);
      rebuilt = rebuildDayTotals(h.db);
      await waitForAnyLockWait(h);
    });
    await rebuilt;
    expect(await mismatchedDays(h)).toEqual([]);
  });
});

/** Until some backend of this database waits on a lock of any kind, or 10 s. */
async function waitForAnyLockWait(h: Harness): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const [row] = rowsOf<{ n: number }>(await h.db.execute(sql`
      select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`));
    if (row!.n > 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('nothing waited on a lock');
}

/** Until some backend of this database waits on a row lock (the second compaction), or 10 s. */
async function waitForLockWait(h: Harness): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const [row] = rowsOf<{ n: number }>(await h.db.execute(sql`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and query like '%account_day_totals%'`));
    if (row!.n > 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the second compaction never waited');
}
