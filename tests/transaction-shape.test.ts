import { beforeAll, expect, it } from 'vitest';
import { bookRequests } from './support/book';
import { describeEachDatabase } from './support/harness';
import { json } from './support/http';

// Issue 36 item 7 (spec: Transaction; D15): the Transaction's JSON is written in four places — the
// read shape (src/book/transactions.ts `transactionJson`: the single read, the search, a correction's
// change record), the list's concatenation (`listItems`, a short range joined by day and the cursor's
// rows), the create's change record (`insertStatement`, jsonb) and an import's (built in TypeScript,
// src/book/imports/booking.ts). Every way of reading one transaction must give the same object: a
// key added, renamed or ordered differently in one copy fails here. And issue 36 item 6: a short
// range's day is joined newest id first, as the cursor's rows are.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const DAY = '2026-06-15';
const AWKWARD = ['plain', 'with "quotes" and \\backslashes\\', 'Müller café ✓ 😀 日本語', '<script>&amp;</script>'];

describeEachDatabase('one Transaction shape (issue 36 item 7)', (h) => {
  let token: string;
  const ids: Record<string, number> = {};
  const { api, move, post } = bookRequests(h, () => token, () => ids);
  const posted: number[] = [];

  beforeAll(async () => {
    ({ token } = await h.userWithToken('shape@transactions.example'));
    for (const [name, kind] of [['Bank "main"', 'asset'], ['Müller café ✓', 'expense'], ['Suspense', 'expense']] as const) {
      ids[name] = (await json(await api('POST', '/accounts', { name, kind }))).id;
    }
    // Several on one day (the short range joins them), one of three entries, the rest of two.
    for (const [i, description] of AWKWARD.entries()) posted.push(await post(move(description, 100 + i, DAY, 'Bank "main"', 'Müller café ✓')));
    posted.push(await post({
      occurred_on: DAY, description: 'three entries',
      entries: [{ account_id: ids['Müller café ✓'], amount_cents: 30 }, { account_id: ids.Suspense, amount_cents: 20 }, { account_id: ids['Bank "main"'], amount_cents: -50 }],
    }));
    // One corrected (its change record's `after` is the read shape), one imported.
    expect((await api('PUT', `/transactions/${posted[0]}`, move('plain, corrected', 111, DAY, 'Bank "main"', 'Müller café ✓'))).status).toBe(200);
    const imported = await api('POST', '/imports', {
      account_id: ids['Bank "main"'], format: 'csv', unmatched_account_id: ids.Suspense,
      csv: { date_column: 'Date', description_column: 'Description', amount_column: 'Amount', date_format: 'YYYY-MM-DD', decimal: '.' },
      content: `Date,Description,Amount\n${DAY},"Imported ""line"" ✓",-12.34\n`,
    });
    expect(imported.status, await imported.clone().text()).toBe(201);
    const transactionIds = ((await json(imported)) as Json).transaction_ids as number[] | undefined;
    posted.push(...(transactionIds ?? (await json(await api('GET', `/transactions?from=${DAY}&to=${DAY}`))).map((t: Json) => t.id).filter((id: number) => !posted.includes(id))));
  });

  it('the single read, the list (short range and cursor), the search (plain and paged) and the change records give one object per transaction', async () => {
    const byId = (list: Json[]) => new Map<number, Json>(list.map((t) => [t.id, t]));
    const shortRange = byId(await json(await api('GET', `/transactions?from=${DAY}&to=${DAY}`)));
    const cursor = byId(await json(await api('GET', '/transactions')));
    const search = byId(await json(await api('GET', `/transactions?q=&from=${DAY}&to=${DAY}&account_id=${ids['Bank "main"']}`)));
    const paged = byId(await json(await api('GET', `/transactions?account_id=${ids['Bank "main"']}&limit=100`)));
    expect(posted.length).toBe(AWKWARD.length + 2);
    for (const id of posted) {
      const single = await json(await api('GET', `/transactions/${id}`));
      const records = (await json(await api('GET', `/changes?subject=transaction&subject_id=${id}&limit=500`))).changes as Json[];
      const latest = records[0]!.after;
      const { reconciled, attachments, ...pagedShape } = paged.get(id);
      const shapes = { shortRange: shortRange.get(id), cursor: cursor.get(id), search: search.get(id), paged: pagedShape, changeRecord: latest };
      for (const [where, shape] of Object.entries(shapes)) expect(shape, `transaction ${id}: ${where} differs from GET /transactions/${id}`).toEqual(single);
      // The texts written by PostgreSQL's json (not jsonb) keep the keys in the spec's order, the same in each.
      for (const where of ['shortRange', 'cursor', 'search', 'paged'] as const) {
        expect(Object.keys(shapes[where]), `${where}: key order`).toEqual(Object.keys(single));
        expect(shapes[where].entries.map((e: Json) => Object.keys(e)), `${where}: entry key order`).toEqual(single.entries.map((e: Json) => Object.keys(e)));
      }
      expect(typeof reconciled).toBe('boolean');
      expect(attachments).toBe(0);
      // The create's own record, before any correction, has the shape too.
      const created = records.at(-1)!;
      expect(created.action).toBe('create');
      expect(Object.keys(created.after).sort()).toEqual(Object.keys(single).sort());
      expect(created.after.entries.map((e: Json) => Object.keys(e).sort())).toEqual(single.entries.map((e: Json) => Object.keys(e).sort()));
    }
  });

  it('issue 36 item 6: a short range joins each day newest id first, as the whole list does', async () => {
    const shortRange = (await json(await api('GET', `/transactions?from=${DAY}&to=${DAY}`))) as Json[];
    const onDay = ((await json(await api('GET', '/transactions'))) as Json[]).filter((t) => t.occurred_on === DAY).map((t) => t.id);
    expect(shortRange.map((t) => t.id)).toEqual([...posted].sort((a, b) => b - a));
    expect(shortRange.map((t) => t.id)).toEqual(onDay);
  });
});
