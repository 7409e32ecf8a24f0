import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { beforeAll, expect, it } from 'vitest';
import { describeChange, type ChangeRecord, type ChangeSentences, type Wording } from '../src/book/change-words';
import { describeEachDatabase } from './support/harness';
import { json } from './support/http';

// Issue 39 (D26) in History's words: a budget made, changed (its name, months, a line's amount,
// a line added and removed, rollover on and off, several at once) and deleted, through the HTTP
// API on both databases; the change log's CSV (D22, GET /export/changes.csv) and describeChange
// with the web's German sentences tell each — "budget" in a personal book, "plan" in a club's
// (D26; German "Budget" / "Haushaltsplan"), never the settings sentence.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const german = (JSON.parse(readFileSync('src/web/locales/de.json', 'utf8')) as { history: { sentence: ChangeSentences } }).history.sentence;
const euros = (cents: number) => new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' }).format(cents / 100);
const germanMonth = (m: string) => new Date(`${m}-01T00:00:00Z`).toLocaleDateString('de-DE', { month: 'short', year: 'numeric', timeZone: 'UTC' });

describeEachDatabase('issue 39 (D26): budget changes in words (History and the change log CSV)', (h) => {
  let token: string;
  const EMAIL = 'sam@plans.example';
  const ids: Record<string, number> = {};
  let money: (cents: number) => string;
  const api = (method: string, path: string, body?: unknown) => h.call(token, method, path, body);
  const ok = async (res: Response, status: number) => {
    expect(res.status, await res.clone().text()).toBe(status);
    return res.status === 204 ? undefined : (json(res) as Promise<Json>);
  };
  /** The summaries of the budget records in the change log's CSV, oldest first. */
  const csvSummaries = async () => {
    const res = await api('GET', '/export/changes.csv');
    expect(res.status).toBe(200);
    const rows = parse(await res.text(), { columns: true }) as Record<string, string>[];
    return rows.filter((r) => r.subject === 'budget').map((r) => r.summary);
  };
  const budgetRecords = async (): Promise<ChangeRecord[]> => ((await ok(await api('GET', '/changes?subject=budget&limit=500'), 200)) as Json).changes.reverse();

  const plan2027 = () => ({
    name: '2027',
    from: '2027-01',
    to: '2027-12',
    lines: [
      { account_id: ids.Groceries, amount_cents: 40_000, per: 'month' },
      { account_id: ids.Rent, amount_cents: 1_200_000, per: 'period' },
      { account_id: ids.Salary, amount_cents: 300_000, per: 'month', rollover: true },
    ],
  });

  beforeAll(async () => {
    ({ token } = await h.userWithToken(EMAIL));
    for (const [name, kind] of [['Groceries', 'expense'], ['Rent', 'expense'], ['Salary', 'income'], ['Fun', 'expense']] as const) {
      ids[name] = ((await ok(await api('POST', '/accounts', { name, kind }), 201)) as Json).id;
    }
    const { currency } = (await ok(await api('GET', '/settings'), 200)) as Json;
    const format = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    money = (cents) => format.format(cents / 100);
  });

  it('issue 39 (D26): a personal book\'s budget made, changed and deleted reads as such in the CSV and in German, not as the settings', async () => {
    const made = (await ok(await api('POST', '/budgets', plan2027()), 201)) as Json;
    // The amount of one line (the example).
    const one = plan2027();
    one.lines[0]!.amount_cents = 45_000;
    await ok(await api('PUT', `/budgets/${made.id}`, one), 200);
    // Several at once: renamed, months moved, Rent's amount, Fun added, Salary removed, rollover.
    const many = {
      name: '2027 revised',
      from: '2027-02',
      to: '2028-01',
      lines: [
        { account_id: ids.Groceries, amount_cents: 45_000, per: 'month', rollover: true },
        { account_id: ids.Rent, amount_cents: 1_300_000, per: 'period' },
        { account_id: ids.Fun, amount_cents: 5_000, per: 'month' },
      ],
    };
    await ok(await api('PUT', `/budgets/${made.id}`, many), 200);
    const off = { ...many, lines: [{ ...many.lines[0]!, rollover: false }, { ...many.lines[1]!, per: 'month', amount_cents: 100_000 }, many.lines[2]!] };
    await ok(await api('PUT', `/budgets/${made.id}`, off), 200);
    await ok(await api('DELETE', `/budgets/${made.id}`), 204);

    const m = money;
    const english = [
      `${EMAIL} made the budget “2027” (Jan 2027 – Dec 2027, 3 lines) with a token.`,
      `${EMAIL} changed the budget “2027” with a token: Groceries from ${m(40_000)} to ${m(45_000)} a month.`,
      `${EMAIL} changed the budget “2027 revised” with a token: the name from “2027” to “2027 revised”, the first month from Jan 2027 to Feb 2027, ` +
        `the last month from Dec 2027 to Jan 2028, turned rollover on for Groceries, Rent from ${m(1_200_000)} to ${m(1_300_000)} for the whole budget, ` +
        `added Fun at ${m(5_000)} a month, removed Salary (${m(300_000)} a month).`,
      `${EMAIL} changed the budget “2027 revised” with a token: turned rollover off for Groceries, Rent from ${m(1_300_000)} for the whole budget to ${m(100_000)} a month.`,
      `${EMAIL} deleted the budget “2027 revised” (Feb 2027 – Jan 2028, 3 lines) with a token.`,
    ];
    expect(await csvSummaries()).toEqual(english);

    const records = await budgetRecords();
    expect(records.map((r) => describeChange(r, { money: m, date: (d) => d }))).toEqual(english);
    const words: Wording = { money: euros, date: (d) => d, sentences: german, month: germanMonth, reader: EMAIL, bookStyle: 'personal' };
    expect(records.map((r) => describeChange(r, words))).toEqual([
      `Sie haben das Budget „2027“ (${germanMonth('2027-01')} – ${germanMonth('2027-12')}, 3 Posten) mit einem Token angelegt.`,
      `Sie haben das Budget „2027“ mit einem Token geändert: Groceries von ${euros(40_000)} auf ${euros(45_000)} im Monat.`,
      `Sie haben das Budget „2027 revised“ mit einem Token geändert: den Namen von „2027“ auf „2027 revised“, den ersten Monat von ${germanMonth('2027-01')} auf ${germanMonth('2027-02')}, ` +
        `den letzten Monat von ${germanMonth('2027-12')} auf ${germanMonth('2028-01')}, Übertrag in den Folgemonat für Groceries eingeschaltet, ` +
        `Rent von ${euros(1_200_000)} auf ${euros(1_300_000)} für das ganze Budget, Fun mit ${euros(5_000)} im Monat neu aufgenommen und Salary (${euros(300_000)} im Monat) gestrichen.`,
      `Sie haben das Budget „2027 revised“ mit einem Token geändert: Übertrag in den Folgemonat für Groceries ausgeschaltet und Rent von ${euros(1_300_000)} für das ganze Budget auf ${euros(100_000)} im Monat.`,
      `Sie haben das Budget „2027 revised“ (${germanMonth('2027-02')} – ${germanMonth('2028-01')}, 3 Posten) mit einem Token gelöscht.`,
    ]);
    expect(germanMonth('2027-01')).toBe('Jan. 2027');
  });

  it('issue 39 (D26): in a club\'s book the budget is "the plan" ("Haushaltsplan"), one line in the singular, "for the whole plan"', async () => {
    await ok(await api('PUT', '/settings', { book_style: 'club' }), 200);
    const made = (await ok(await api('POST', '/budgets', { name: 'Club 2027', from: '2027-01', to: '2027-12', lines: [{ account_id: ids.Rent, amount_cents: 60_000, per: 'period' }] }), 201)) as Json;
    await ok(await api('PUT', `/budgets/${made.id}`, { name: 'Club 2027', from: '2027-01', to: '2027-12', lines: [{ account_id: ids.Rent, amount_cents: 65_000, per: 'period' }] }), 200);
    const m = money;
    const summaries = await csvSummaries();
    expect(summaries.slice(-2)).toEqual([
      `${EMAIL} made the plan “Club 2027” (Jan 2027 – Dec 2027, 1 line) with a token.`,
      `${EMAIL} changed the plan “Club 2027” with a token: Rent from ${m(60_000)} to ${m(65_000)} for the whole plan.`,
    ]);
    const records = (await budgetRecords()).slice(-2);
    const words: Wording = { money: euros, date: (d) => d, sentences: german, month: germanMonth, reader: 'someone@else.example', bookStyle: 'club' };
    expect(records.map((r) => describeChange(r, words))).toEqual([
      `${EMAIL} hat den Haushaltsplan „Club 2027“ (Jan. 2027 – Dez. 2027, 1 Posten) mit einem Token angelegt.`,
      `${EMAIL} hat den Haushaltsplan „Club 2027“ mit einem Token geändert: Rent von ${euros(60_000)} auf ${euros(65_000)} für den ganzen Haushaltsplan.`,
    ]);
  });
});
