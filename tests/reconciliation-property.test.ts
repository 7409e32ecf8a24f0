import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { rowsOf } from '../src/db/database';
import { describeEachDatabase } from './support/harness';
import { json } from './support/http';

// D20 (property): reconciled means fixed, and the reconciled balance is the statement's. Random
// sequences of posts to a bank account (asset) and a card (liability), corrections of amount,
// date or description, deletes, reconciliations (a right statement balance or a wrong one, on a
// random statement date, every unreconciled entry up to it or a listed subset) and undos (of the
// latest, or of an earlier one, which is refused). A model of the book predicts each answer; after
// every step, for each account: the reconciled balance the API reports equals the natural-sign sum
// of the reconciled entries read straight from the database, equals the last reconciliation's
// statement balance (0 with none), and every reconciled entry is still there exactly as it was
// reconciled (id, transaction, account, amount, date), and no other entry is marked.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;
type Side = 'bank' | 'card';

const DAY0 = Date.UTC(2026, 0, 1);
const dateOf = (day: number) => new Date(DAY0 + (day - 1) * 86_400_000).toISOString().slice(0, 10);
const money = (cents: number) => `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;

const side = fc.constantFrom<Side>('bank', 'card');
const day = fc.integer({ min: 1, max: 60 });
const cents = fc.integer({ min: 1, max: 50_000 });
const mostly = fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) });
const command = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('post' as const), side, day, cents, out: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('correct' as const), pick: fc.nat(), ofReconciled: mostly,
      change: fc.constantFrom('amount', 'date', 'description', 'all'), cents, day,
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), pick: fc.nat(), ofReconciled: mostly }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('reconcile' as const), side, day,
      // Mostly a statement date on or after the last one (by day % 20 days), otherwise the random day itself.
      ahead: mostly,
      // A wrong statement balance some of the time, by this many cents (never 0).
      wrongBy: fc.oneof(
        { weight: 2, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.integer({ min: -5_000, max: 5_000 }).filter((n) => n !== 0) },
      ),
      // Some of the time, transaction_ids: the eligible transactions this bit mask picks.
      listed: fc.option(fc.nat(), { freq: 2 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('undo' as const), side, earlier: fc.boolean() }) },
);

/** A transaction as the model knows it: its lines (the bank or card line first), date, description. */
interface ModelTransaction {
  id: number;
  side: Side;
  day: number;
  description: string;
  /** The amount on the bank or card account, as stored (debit positive); the other line is its negative. */
  amount: number;
  counter: number;
}
interface FrozenEntry {
  id: number;
  transaction_id: number;
  account_id: number;
  amount_cents: number;
  occurred_on: string;
  reconciliation_id: number;
}
interface ModelReconciliation {
  id: number;
  side: Side;
  day: number;
  statement: number;
  entries: FrozenEntry[];
}

describeEachDatabase('reconciled balances and reconciled entries under random sequences (D20, property)', (h) => {
  let token: string;
  let run = 0;
  const outcomes: Record<string, number> = {};
  const api = (method: string, path: string, body?: unknown) => h.call(token, method, path, body);

  beforeAll(async () => {
    ({ token } = await h.userWithToken('property@reconcile.example'));
  });

  it('after every step the reconciled balance agrees three ways and no reconciled entry changed or disappeared', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 8, maxLength: 25, size: 'max' }), async (commands) => {
        run++;
        // Fresh accounts for each sequence: the bank and card, and what their money comes from and goes to.
        const account: Record<Side | 'expense' | 'income', number> = {} as never;
        for (const [key, kind] of [['bank', 'asset'], ['card', 'liability'], ['expense', 'expense'], ['income', 'income']] as const) {
          const res = await api('POST', '/accounts', { name: `${key} ${run}`, kind });
          expect(res.status).toBe(201);
          account[key] = (await json(res)).id;
        }
        /** Natural sign (D6) of a stored sum on the bank (asset) or the card (liability). */
        const natural = (s: Side, stored: number) => (s === 'bank' ? stored : 0 - stored);
        const live: ModelTransaction[] = [];
        const reconciliations: ModelReconciliation[] = [];
        const reconciledBy = new Map<number, ModelReconciliation>();
        const latest = (s: Side) => reconciliations.filter((r) => r.side === s).at(-1);
        const body = (t: ModelTransaction) => ({
          occurred_on: dateOf(t.day),
          description: t.description,
          entries: [
            { account_id: account[t.side], amount_cents: t.amount },
            { account_id: t.counter, amount_cents: -t.amount },
          ],
        });

        const storedEntries = async (where: ReturnType<typeof sql>): Promise<FrozenEntry[]> =>
          rowsOf<Json>(await h.db.execute(sql`
            select id::text, transaction_id, account_id, amount_cents::text, occurred_on::text, reconciliation_id
            from entries where ${where} order by entries.id`)).map((r) => ({
            id: Number(r.id), transaction_id: Number(r.transaction_id), account_id: Number(r.account_id),
            amount_cents: Number(r.amount_cents), occurred_on: r.occurred_on, reconciliation_id: Number(r.reconciliation_id),
          }));

        async function checkInvariants(context: string): Promise<void> {
          for (const s of ['bank', 'card'] as const) {
            const status = await json(await api('GET', `/accounts/${account[s]}/reconciliation`));
            const [row] = rowsOf<{ total: string }>(await h.db.execute(sql`
              select coalesce(sum(amount_cents), 0)::text as total from entries where account_id = ${account[s]} and reconciliation_id is not null`));
            const fromDatabase = natural(s, Number(row!.total));
            const last = latest(s);
            expect(status.reconciled_balance_cents, `${context}: ${s} reconciled balance vs the database`).toBe(fromDatabase);
            expect(status.reconciled_balance_cents, `${context}: ${s} reconciled balance vs the last statement`).toBe(last?.statement ?? 0);
            expect(status.last?.id ?? null, `${context}: ${s} last reconciliation`).toBe(last?.id ?? null);
            if (last) expect(status.last.statement_balance_cents, context).toBe(last.statement);
          }
          // Every reconciled entry exactly as it was reconciled, and nothing else marked.
          const marked = await storedEntries(sql`account_id in (${account.bank}, ${account.card}) and reconciliation_id is not null`);
          const frozen = reconciliations.flatMap((r) => r.entries).sort((a, b) => a.id - b.id);
          expect(marked, `${context}: the reconciled entries`).toEqual(frozen);
        }

        /** A live transaction: mostly (when there is one) a reconciled one, the ones the locks protect. */
        const pickLive = (pick: number, ofReconciled: boolean): ModelTransaction | undefined => {
          const reconciled = live.filter((t) => reconciledBy.has(t.id));
          const from = ofReconciled && reconciled.length > 0 ? reconciled : live;
          return from.length > 0 ? from[pick % from.length] : undefined;
        };
        const describeStep = (i: number, c: Json) => `run ${run} step ${i} ${JSON.stringify(c)}`;
        for (const [i, c] of commands.entries()) {
          const context = describeStep(i, c);
          const count = (what: string) => (outcomes[what] = (outcomes[what] ?? 0) + 1);
          switch (c.op) {
            case 'post': {
              const t: ModelTransaction = {
                id: 0, side: c.side, day: c.day, description: `Step ${i} of run ${run}`,
                // Money out of the bank or onto the card is a credit on it; money in (a deposit, a card payment) a debit.
                amount: c.out ? -c.cents : c.cents, counter: c.out ? account.expense : account.income,
              };
              const res = await api('POST', '/transactions', body(t));
              expect(res.status, context).toBe(201);
              t.id = (await json(res)).id;
              live.push(t);
              count('post');
              break;
            }
            case 'correct': {
              const t = pickLive(c.pick, c.ofReconciled);
              if (!t) break;
              const wanted: ModelTransaction = { ...t };
              if (c.change === 'amount' || c.change === 'all') wanted.amount = Math.sign(t.amount) * c.cents;
              if (c.change === 'date' || c.change === 'all') wanted.day = c.day;
              if (c.change === 'description' || c.change === 'all') wanted.description = `${t.description} (corrected at step ${i})`;
              const changesFigures = wanted.amount !== t.amount || wanted.day !== t.day;
              const res = await api('PUT', `/transactions/${t.id}`, body(wanted));
              if (reconciledBy.has(t.id) && changesFigures) {
                expect(res.status, context).toBe(409);
                expect(await json(res), context).toEqual({ error: 'the transaction is reconciled' });
                count('correction refused');
              } else {
                expect(res.status, `${context}: ${await res.clone().text()}`).toBe(200);
                Object.assign(t, wanted);
                count(reconciledBy.has(t.id) ? 'reconciled description corrected' : 'correction');
              }
              break;
            }
            case 'delete': {
              const t = pickLive(c.pick, c.ofReconciled);
              if (!t) break;
              const res = await api('DELETE', `/transactions/${t.id}`);
              if (reconciledBy.has(t.id)) {
                expect(res.status, context).toBe(409);
                expect(await json(res), context).toEqual({ error: 'the transaction is reconciled' });
                count('delete refused');
              } else {
                expect(res.status, context).toBe(204);
                live.splice(live.indexOf(t), 1);
                count('delete');
              }
              break;
            }
            case 'reconcile': {
              const last = latest(c.side);
              const statementDay = c.ahead && last ? Math.min(60, last.day + (c.day % 20)) : c.day;
              const eligible = live.filter((t) => t.side === c.side && !reconciledBy.has(t.id) && t.day <= statementDay).sort((a, b) => a.id - b.id);
              const chosen = c.listed === null ? eligible : eligible.filter((_, k) => k < 30 && ((c.listed as number) >> k) & 1);
              const reconciledSoFar = reconciliations.filter((r) => r.side === c.side).reduce((sum, r) => sum + r.entries.reduce((s, e) => s + e.amount_cents, 0), 0);
              const right = natural(c.side, reconciledSoFar + chosen.reduce((sum, t) => sum + t.amount, 0));
              const statement = right + (c.wrongBy ?? 0);
              const request: Json = { statement_date: dateOf(statementDay), statement_balance_cents: statement };
              if (c.listed !== null) request.transaction_ids = chosen.map((t) => t.id);
              const res = await api('POST', `/accounts/${account[c.side]}/reconciliations`, request);
              const answer = await json(res);
              if (last && statementDay < last.day) {
                expect(res.status, context).toBe(400);
                expect(answer.error, context).toBe(`statement_date is before the account's last reconciliation, through ${dateOf(last.day)}`);
                count('reconciliation before the last');
              } else if (c.wrongBy !== null) {
                expect(res.status, context).toBe(409);
                expect(answer, context).toEqual({
                  error: `the statement says ${money(statement)} but the reconciled entries come to ${money(right)}`,
                  difference_cents: c.wrongBy,
                });
                count('reconciliation with a difference');
              } else {
                expect(res.status, `${context}: ${JSON.stringify(answer)}`).toBe(201);
                expect(answer, context).toMatchObject({
                  account_id: account[c.side], statement_date: dateOf(statementDay), statement_balance_cents: statement,
                  transaction_ids: chosen.map((t) => t.id),
                });
                // What was marked is exactly the chosen transactions' lines on the account, as the model has them.
                const entries = await storedEntries(sql`reconciliation_id = ${answer.id}`);
                // (Entry ids follow posting and correction order, not the transactions' ids.)
                expect(entries.map((e) => [e.transaction_id, e.account_id, e.amount_cents, e.occurred_on]).sort((a, b) => Number(a[0]) - Number(b[0])), context)
                  .toEqual(chosen.map((t) => [t.id, account[c.side], t.amount, dateOf(t.day)]));
                const made: ModelReconciliation = { id: answer.id, side: c.side, day: statementDay, statement, entries };
                reconciliations.push(made);
                for (const t of chosen) reconciledBy.set(t.id, made);
                count('reconciliation');
              }
              break;
            }
            case 'undo': {
              const mine = reconciliations.filter((r) => r.side === c.side);
              if (mine.length === 0) break;
              if (c.earlier && mine.length >= 2) {
                const earlier = mine[0]!;
                const res = await api('DELETE', `/reconciliations/${earlier.id}`);
                expect(res.status, context).toBe(409);
                expect(await json(res), context).toEqual({ error: "only the account's latest reconciliation can be undone" });
                count('undo of an earlier one refused');
                break;
              }
              const undone = mine.at(-1)!;
              const res = await api('DELETE', `/reconciliations/${undone.id}`);
              expect(res.status, context).toBe(204);
              reconciliations.splice(reconciliations.indexOf(undone), 1);
              for (const [id, r] of reconciledBy) if (r === undone) reconciledBy.delete(id);
              count('undo');
              break;
            }
          }
          await checkInvariants(context);
        }
      }),
      // Shrinking replays whole sequences: bounded, so that a failure is reported, not a timeout.
      // A fixed seed: 15 random sequences once produced no refused correction (the control below
      // failed by chance in CI); these sequences reconcile, refuse and undo on every run.
      { numRuns: 15, seed: 20_261_126, interruptAfterTimeLimit: 60_000, markInterruptAsFailure: true },
    );
    console.info(`reconciliation property [${h.backend}]:`, outcomes);
    // The control: the sequences reconciled, refused and undid, so the invariants were checked where they matter.
    for (const what of ['reconciliation', 'reconciliation with a difference', 'undo']) {
      expect(outcomes[what] ?? 0, what).toBeGreaterThan(0);
    }
    expect((outcomes['correction refused'] ?? 0) + (outcomes['delete refused'] ?? 0), 'refusals of a reconciled transaction').toBeGreaterThan(0);
  });
});
