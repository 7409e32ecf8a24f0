import { sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import { compactDayTotals } from '../src/book/day-totals';
import { rowsOf, type Db } from '../src/db/database';
import { describeEachDatabase, type Harness } from './support/harness';
import { json } from './support/http';

// D7, issue 31 item 5: the fold of account_day_totals beside DELETE /accounts, in a database of
// this file's own (so that the fold reads the table's rows in the order they were written).

/** A transaction held open until `release` is called: `ready` once `body` has run inside it. */
function heldTransaction(db: Db, body: (tx: Db) => Promise<void>) {
  let release!: () => void;
  let ready!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const readyNow = new Promise<void>((r) => (ready = r));
  const done = db.transaction(async (tx) => {
    await body(tx);
    ready();
    await released;
  });
  return { ready: readyNow, release, done };
}

/** Until `n` backends of this database wait on a lock, or 10 s. */
async function waitForLockWaits(h: Harness, n: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const [row] = rowsOf<{ n: number }>(await h.db.execute(sql`
      select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`));
    if (row!.n >= n) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`fewer than ${n} backends waited on a lock`);
}

describeEachDatabase('account_day_totals: a fold beside an account deleted (issue 31 item 5, D7)', (h) => {
  let token: string;
  const api = (method: string, path: string, body?: unknown) => h.call(token, method, path, body);
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    ({ token } = await h.userWithToken('races@day-totals.example'));
    for (const [name, kind] of [['Scratch', 'expense'], ['Bank', 'asset'], ['Other', 'expense']] as const) {
      ids[name] = (await json(await api('POST', '/accounts', { name, kind }))).id;
    }
  });

  it('an account emptied while a fold is under way is deleted (204), its day rows go with it, and the fold succeeds', { timeout: 30_000 }, async () => {
    const post = async (account: number, on: string, cents: number) => {
      const res = await api('POST', '/transactions', {
        occurred_on: on, description: `Race ${cents}`,
        entries: [{ account_id: account, amount_cents: cents }, { account_id: ids.Bank, amount_cents: -cents }],
      });
      expect(res.status).toBe(201);
      return (await json(res)).id as number;
    };
    // Scratch's rows come first in the table, then Other's: the fold reaches Scratch's first.
    const scratch = [await post(ids.Scratch!, '2026-03-01', 10), await post(ids.Scratch!, '2026-03-01', 20)];
    await post(ids.Other!, '2026-03-02', 30);
    await post(ids.Other!, '2026-03-02', 40);

    // Something holds one of Other's rows (another fold, say), so that the fold waits there.
    const holder = heldTransaction(h.db, async (tx) => {
      await tx.execute(sql`select 1 from account_day_totals where account_id = ${ids.Other} for update`);
    });
    await holder.ready;
    // Scratch's transactions deleted, not yet committed when the fold reads the table.
    const emptying = heldTransaction(h.db, async (tx) => {
      await tx.execute(sql`delete from transactions where id in (${scratch[0]}, ${scratch[1]})`);
    });
    await emptying.ready;
    const fold = compactDayTotals(h.db);
    await waitForLockWaits(h, 1);
    // The delete commits: Scratch has no entries, and DELETE /accounts goes ahead.
    emptying.release();
    await emptying.done;
    const deleted = api('DELETE', `/accounts/${ids.Scratch}`);
    await waitForLockWaits(h, 2);
    holder.release();
    await holder.done;
    const res = await deleted;
    expect(res.status, await res.clone().text()).toBe(204);
    // The fold went through too (issue 36 item 7): it waited on Other's rows, not failed. Its
    // snapshot predates the delete's commit: Scratch's two rows of 03-01 became one, as did
    // Other's two of 03-02 and Bank's two on each day (8 removed, 4 written).
    await expect(fold).resolves.toEqual({ removed: 8, written: 4 });
    const [left] = rowsOf<{ n: number }>(await h.db.execute(sql`select count(*)::int as n from account_day_totals where account_id = ${ids.Scratch}`));
    expect(left!.n).toBe(0);
  });
});
