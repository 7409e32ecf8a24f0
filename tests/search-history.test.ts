import { beforeAll, expect, it } from 'vitest';
import { changes } from '../src/db/schema';
import { describeEachDatabase } from './support/harness';
import { json } from './support/http';

// Issue 25 items 6 and 7, over the API: D15's `q` on GET /transactions finds a transaction by
// its words or an account's name, ignoring case and accents, or by an amount; D15's `from`/`to` on
// GET /changes keep the records made on those days (UTC).

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

describeEachDatabase('search and the change log by date (D15, issue 25 items 6 and 7)', (h) => {
  let token: string;
  const ids: Record<string, number> = {};
  const api = (method: string, path: string, body?: unknown) => h.call(token, method, path, body);
  const found = async (q: string, more = '') => {
    const res = await api('GET', `/transactions?q=${encodeURIComponent(q)}${more}`);
    expect(res.status, await res.clone().text()).toBe(200);
    return ((await json(res)) as Json[]).map((t) => t.description);
  };
  const post = async (description: string, cents: number, on: string, from: string, to: string) => {
    const res = await api('POST', '/transactions', {
      occurred_on: on,
      description,
      entries: [
        { account_id: ids[to]!, amount_cents: cents },
        { account_id: ids[from]!, amount_cents: -cents },
      ],
    });
    expect(res.status, await res.clone().text()).toBe(201);
  };

  beforeAll(async () => {
    ({ token } = await h.userWithToken('treasurer@search.example'));
    for (const [name, kind] of [['Sparkasse', 'asset'], ['Cash box', 'asset'], ['Groceries', 'expense'], ['Café Zoë', 'expense'], ['Dues', 'income']] as const) {
      ids[name] = (await json(await api('POST', '/accounts', { name, kind }))).id;
    }
    await post('Bäckerei Müller', 9490, '2026-05-01', 'Sparkasse', 'Groceries');
    await post('Shoes', 9400, '2026-05-02', 'Cash box', 'Groceries');
    await post('Invoice 94-A', 1250, '2026-05-03', 'Cash box', 'Groceries');
    await post('Coffee', 380, '2026-05-04', 'Cash box', 'Café Zoë');
    await post('Straßenfest stall', 2000, '2026-05-05', 'Dues', 'Cash box');
    await post('100% juice', 199, '2026-05-06', 'Cash box', 'Groceries');
    await post('1000 paper clips', 500, '2026-05-07', 'Cash box', 'Groceries');
    await post('Annual dues ANNA', 9490, '2026-05-08', 'Dues', 'Cash box');
  });

  it('issue 25 item 6: q ignores case and accents in the description (muller finds Müller, MÜLLER and mULLer too)', async () => {
    for (const q of ['muller', 'Müller', 'MÜLLER', 'mULLer', 'backerei', 'BÄCKEREI MÜL']) {
      expect(await found(q), q).toEqual(['Bäckerei Müller']);
    }
    // The letters that do not decompose, as people type them without the key.
    expect(await found('strassenfest')).toEqual(['Straßenfest stall']);
  });

  it('issue 25 item 6: q finds the name of an account one of its entries names, any case, any accents', async () => {
    expect(await found('sparkasse')).toEqual(['Bäckerei Müller']);
    expect(await found('SPARK')).toEqual(['Bäckerei Müller']);
    expect(await found('cafe zoe')).toEqual(['Coffee']);
    expect(await found('Café Zoë')).toEqual(['Coffee']);
  });

  it('issue 25 item 6: q read as an amount (94.90, 94,90, 94.9, 94) finds an entry of that absolute value', async () => {
    for (const q of ['94.90', '94,90', '94.9']) {
      expect(await found(q), q).toEqual(['Annual dues ANNA', 'Bäckerei Müller']);
    }
    // 94 is an amount (94.00) and words alike: "Invoice 94-A" by its words, "Shoes" by its amount.
    expect(await found('94')).toEqual(['Invoice 94-A', 'Shoes']);
    expect(await found('3.80')).toEqual(['Coffee']);
    expect(await found('3.8')).toEqual(['Coffee']);
    // More than two decimals is no amount.
    expect(await found('94.900')).toEqual([]);
  });

  it('issue 25 item 6: % and _ stay literal; the paged form keeps its order and cursor', async () => {
    expect(await found('100%')).toEqual(['100% juice']);
    expect(await found('1_0')).toEqual([]);
    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const res: Response = await api('GET', `/transactions?q=cash%20box&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      const page = (await json(res)) as Json[];
      expect(page.length).toBeLessThanOrEqual(2);
      expect(page.every((t) => t.reconciled === false)).toBe(true);
      pages.push(...page.map((t) => t.description));
      cursor = res.headers.get('next-cursor');
    } while (cursor);
    expect(pages).toEqual(['Annual dues ANNA', '1000 paper clips', '100% juice', 'Straßenfest stall', 'Coffee', 'Invoice 94-A', 'Shoes']);
    expect(pages).toEqual(await found('cash box'));
    // With the range and account_id too.
    expect(await found('94.90', `&account_id=${ids.Sparkasse}`)).toEqual(['Bäckerei Müller']);
    expect(await found('94.90', '&from=2026-05-02')).toEqual(['Annual dues ANNA']);
  });

  it('issue 25 item 7: GET /changes takes from/to, dates inclusive on `at` in UTC; a bad date is 400', async () => {
    const at = (iso: string, name: string) => ({
      at: new Date(iso), via: 'cli' as const, subject: 'account' as const, subjectId: 2_000_000_000, action: 'create' as const,
      before: null, after: { id: 2_000_000_000, name, kind: 'asset' },
    });
    await h.db.insert(changes).values([
      at('2020-02-29T23:59:59.999Z', 'late on the 29th'),
      at('2020-03-01T00:00:00Z', 'first thing on the 1st'),
      at('2020-03-01T23:30:00Z', 'late on the 1st'),
      at('2020-03-02T00:00:00Z', 'first thing on the 2nd'),
    ]);
    const names = async (query: string) => {
      const res = await api('GET', `/changes?subject=account&subject_id=2000000000${query}`);
      expect(res.status, await res.clone().text()).toBe(200);
      return ((await json(res)).changes as Json[]).map((c) => c.after.name);
    };
    expect(await names('&from=2020-03-01&to=2020-03-01')).toEqual(['late on the 1st', 'first thing on the 1st']);
    expect(await names('&from=2020-03-01')).toEqual(['first thing on the 2nd', 'late on the 1st', 'first thing on the 1st']);
    expect(await names('&to=2020-02-29')).toEqual(['late on the 29th']);
    expect(await names('&from=2020-03-02&to=2020-03-02')).toEqual(['first thing on the 2nd']);
    expect(await names('&from=2020-03-03')).toEqual([]);
    // Paging stays by id within the days.
    const first = await json(await api('GET', '/changes?subject=account&subject_id=2000000000&from=2020-03-01&limit=1'));
    expect(first.changes.map((c: Json) => c.after.name)).toEqual(['first thing on the 2nd']);
    expect(await names(`&from=2020-03-01&before=${first.next_before}`)).toEqual(['late on the 1st', 'first thing on the 1st']);
    for (const bad of ['from=2020-02-30', 'to=yesterday', 'from=2020-3-1']) {
      const res = await api('GET', `/changes?${bad}`);
      expect(res.status, bad).toBe(400);
      expect((await json(res)).error, bad).toBe(`${bad.split('=')[0]} must be a date YYYY-MM-DD`);
    }
  });
});
