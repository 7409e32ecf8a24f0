import { beforeAll, describe, expect, it } from 'vitest';
import { bookRequests } from './support/book';
import { describeEachDatabase } from './support/harness';
import { json } from './support/http';

// Issue 36 item 6 (D20, D7): a read made of several statements reads one snapshot. The
// reconciliation status (`last` and the reconciled balance) and the register (its opening balance
// and its lines) each answer as of one moment, however writes interleave with them. Each test
// reads while a writer changes the book in a loop and checks a figure that every committed state
// keeps; read in two snapshots, a write landing between the two statements breaks it.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

/** Runs `write` in a loop until `reads` reads of `read` are done; the reads' answers, and how many writes ran. */
async function readWhileWriting<T>(reads: number, read: () => Promise<T>, write: (i: number) => Promise<void>): Promise<{ seen: T[]; writes: number }> {
  let done = false;
  let writes = 0;
  const writer = (async () => {
    while (!done) await write(writes++);
  })();
  const readers = Array.from({ length: 3 }, async () => {
    const seen: T[] = [];
    for (let i = 0; i < reads / 3; i++) seen.push(await read());
    return seen;
  });
  try {
    return { seen: (await Promise.all(readers)).flat(), writes };
  } finally {
    done = true;
    await writer;
  }
}

describeEachDatabase('reads of one snapshot (issue 36 item 6)', (h) => {
  let token: string;
  const ids: Record<string, number> = {};
  const { api, move, post } = bookRequests(h, () => token, () => ids);

  beforeAll(async () => {
    ({ token } = await h.userWithToken('snapshot@reads.example'));
    for (const [name, kind] of [['Bank', 'asset'], ['Register bank', 'asset'], ['Opening', 'equity'], ['Food', 'expense']] as const) {
      ids[name] = (await json(await api('POST', '/accounts', { name, kind }))).id;
    }
  });

  it('D20: the reconciliation status says `last` and the reconciled balance of one moment, while reconciliations are made and undone', { timeout: 60_000 }, async () => {
    await post(move('Opening balance', 50_000, '2026-01-02', 'Opening', 'Bank'));
    await post(move('Groceries', 1_234, '2026-01-10', 'Bank', 'Food'));
    const path = `/accounts/${ids.Bank}/reconciliation?as_of=2026-01-31`;
    const statement = (await json(await api('GET', path))).book_balance_cents as number;
    // Every committed state: either no reconciliation and nothing reconciled, or the one made with
    // the book's balance, everything up to the statement date reconciled.
    const { seen, writes } = await readWhileWriting(
      300,
      async () => {
        const res = await api('GET', path);
        expect(res.status).toBe(200);
        return (await json(res)) as Json;
      },
      async () => {
        const made = await api('POST', `/accounts/${ids.Bank}/reconciliations`, { statement_date: '2026-01-31', statement_balance_cents: statement });
        expect(made.status, await made.clone().text()).toBe(201);
        expect((await api('DELETE', `/reconciliations/${(await json(made)).id}`)).status).toBe(204);
      },
    );
    const torn = seen.filter((s) => s.reconciled_balance_cents !== (s.last === null ? 0 : s.last.statement_balance_cents));
    console.info(`reconciliation status [${h.backend}]: ${seen.length} reads during ${writes} reconcile-and-undo rounds, ${torn.length} torn`);
    expect(writes).toBeGreaterThan(5);
    expect(torn.map((s) => ({ last: s.last?.statement_balance_cents ?? null, reconciled: s.reconciled_balance_cents }))).toEqual([]);
  });

  it("D7: the register's opening balance and its lines are of one moment, while a transaction moves across the period's first day", { timeout: 60_000 }, async () => {
    await post(move('Opening balance', 10_000, '2026-01-02', 'Opening', 'Register bank'));
    const moving = await post(move('Moving', 700, '2026-01-20', 'Register bank', 'Food'));
    const path = `/reports/accounts/${ids['Register bank']}/register?from=2026-02-01&to=2026-02-28`;
    // Wherever the transaction is dated (before the period or in it), the balance at the period's end is the same.
    const { seen, writes } = await readWhileWriting(
      300,
      async () => {
        const res = await api('GET', path);
        expect(res.status).toBe(200);
        return (await json(res)) as Json;
      },
      async (i) => {
        const res = await api('PUT', `/transactions/${moving}`, move('Moving', 700, i % 2 === 0 ? '2026-02-10' : '2026-01-20', 'Register bank', 'Food'));
        expect(res.status, await res.clone().text()).toBe(200);
      },
    );
    const torn = seen.filter((r) => r.closing_balance_cents !== 9_300);
    console.info(`register [${h.backend}]: ${seen.length} reads during ${writes} moves, ${torn.length} torn`);
    expect(writes).toBeGreaterThan(5);
    expect(torn.map((r) => ({ opening: r.opening_balance_cents, lines: r.entries.length, closing: r.closing_balance_cents }))).toEqual([]);
  });
});
