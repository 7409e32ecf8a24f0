import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from './support/harness';
import { json } from './support/http';

// Issue 40 (D27) on both databases: who owes, and since when. Payments settle the oldest charges
// first (FIFO): hand-computed cases with partial payments, payments in advance, entries after
// as_of, ties on one day; and a fast-check property against a plain model of FIFO settlement.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

/** One entry on a person's account: a charge (> 0) or a payment (< 0), on a day. */
interface Move {
  on: string;
  cents: number;
}

/** The model: D27's rule read literally, in Node. */
function model(moves: readonly (Move & { order: number })[], asOf: string): { balance: number; since: string | null } {
  const upTo = moves.filter((m) => m.on <= asOf);
  const balance = upTo.reduce((sum, m) => sum + m.cents, 0);
  if (balance <= 0) return { balance, since: null };
  let paid = upTo.filter((m) => m.cents < 0).reduce((sum, m) => sum - m.cents, 0);
  const charges = upTo.filter((m) => m.cents > 0).sort((a, b) => (a.on < b.on ? -1 : a.on > b.on ? 1 : a.order - b.order));
  for (const charge of charges) {
    // A charge is settled while what was paid covers it whole; the first one not covered is overdue since its day.
    if (paid >= charge.cents) paid -= charge.cents;
    else return { balance, since: charge.on };
  }
  throw new Error('a positive balance has a charge not settled');
}

describeEachDatabase('issue 40: who owes, FIFO (D27)', (h) => {
  let token: string;
  const ids: Record<string, number> = {};
  const api = (method: string, path: string, body?: unknown) => h.call(token, method, path, body);
  const expectStatus = async (res: Response, status: number) => {
    expect(res.status, await res.clone().text()).toBe(status);
    return json(res);
  };
  const person = async (name: string) => expectStatus(await api('POST', '/people', { name }), 201);
  /** Posts the moves in order (transaction ids ascending in that order). */
  const post = async (p: Json, moves: readonly Move[]) => {
    for (const m of moves) {
      await expectStatus(await api('POST', '/transactions', {
        occurred_on: m.on,
        description: m.cents > 0 ? `Dues ${m.on}` : `Paid ${m.on}`,
        entries: [{ account_id: p.account_id, amount_cents: m.cents }, { account_id: m.cents > 0 ? ids.Dues : ids.Bank, amount_cents: -m.cents }],
      }), 201);
    }
  };
  const report = async (asOf: string) => expectStatus(await api('GET', `/reports/people?as_of=${asOf}`), 200);
  const lineOf = async (asOf: string, p: Json) => (await report(asOf)).people.find((l: Json) => l.id === p.id) ?? null;

  beforeAll(async () => {
    ({ token } = await h.userWithToken('who-owes@people.example'));
    for (const [name, kind] of [['Bank', 'asset'], ['Dues', 'income']] as const) {
      ids[name] = (await expectStatus(await api('POST', '/accounts', { name, kind }), 201)).id;
    }
  });

  it('D27: an empty book owes nothing; every figure of the shape', async () => {
    expect(await report('2030-01-01')).toEqual({ as_of: '2030-01-01', people: [], owed_to_book_cents: 0, owed_by_book_cents: 0 });
    const today = await expectStatus(await api('GET', '/reports/people'), 200);
    expect(today.as_of).toBe(new Date().toISOString().slice(0, 10));
    const res = await api('GET', '/reports/people?as_of=2025-02-30');
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatch(/as_of must be a date/);
  });

  it('D27: hand-computed FIFO — a partial payment settles the oldest charge, then part of the next; as_of cuts entries after it', async () => {
    const anna = await person('FIFO Anna');
    // 5.00 on 1 Jan, 1 Feb and 1 Mar; 7.00 paid on 10 Feb: January is settled, February half.
    await post(anna, [{ on: '2025-01-01', cents: 500 }, { on: '2025-02-01', cents: 500 }, { on: '2025-02-10', cents: -700 }, { on: '2025-03-01', cents: 500 }]);
    expect(await lineOf('2024-12-31', anna)).toBeNull();
    expect(await lineOf('2025-01-15', anna)).toEqual({ id: anna.id, name: 'FIFO Anna', balance_cents: 500, overdue_cents: 500, overdue_since: '2025-01-01' });
    expect(await lineOf('2025-02-05', anna)).toMatchObject({ balance_cents: 1000, overdue_since: '2025-01-01' });
    expect(await lineOf('2025-02-10', anna)).toMatchObject({ balance_cents: 300, overdue_cents: 300, overdue_since: '2025-02-01' });
    expect(await lineOf('2025-03-31', anna)).toMatchObject({ balance_cents: 800, overdue_cents: 800, overdue_since: '2025-02-01' });
    // 3.00 more on 1 Apr settles February whole: owed since March.
    await post(anna, [{ on: '2025-04-01', cents: -300 }]);
    expect(await lineOf('2025-04-01', anna)).toMatchObject({ balance_cents: 500, overdue_since: '2025-03-01' });
    // A payment after as_of settles nothing yet.
    expect(await lineOf('2025-03-31', anna)).toMatchObject({ balance_cents: 800, overdue_since: '2025-02-01' });
  });

  it('D27: paid in advance — below zero the book owes (overdue 0, no date); the advance settles the charges that follow; zero balances are left out', async () => {
    const bernd = await person('FIFO Bernd');
    await post(bernd, [{ on: '2025-01-01', cents: -1000 }, { on: '2025-02-01', cents: 500 }, { on: '2025-03-01', cents: 500 }, { on: '2025-04-01', cents: 500 }]);
    expect(await lineOf('2025-02-15', bernd)).toEqual({ id: bernd.id, name: 'FIFO Bernd', balance_cents: -500, overdue_cents: 0, overdue_since: null });
    expect(await lineOf('2025-03-15', bernd)).toBeNull();
    expect(await lineOf('2025-04-01', bernd)).toMatchObject({ balance_cents: 500, overdue_since: '2025-04-01' });
  });

  it('D27: charges on one day settle in the order posted; a refund is a payment; totals are both ≥ 0 and the list is by name', async () => {
    const carla = await person('FIFO Carla');
    await post(carla, [{ on: '2025-05-01', cents: 300 }, { on: '2025-05-01', cents: 400 }, { on: '2025-05-20', cents: -300 }, { on: '2025-06-01', cents: 200 }]);
    // 3.00 paid settles the first of the two charges of 1 May whole; the second is open: still 1 May.
    expect(await lineOf('2025-06-30', carla)).toMatchObject({ balance_cents: 600, overdue_since: '2025-05-01' });
    await post(carla, [{ on: '2025-06-10', cents: -400 }]);
    expect(await lineOf('2025-06-30', carla)).toMatchObject({ balance_cents: 200, overdue_since: '2025-06-01' });
    const all = await report('2025-06-30');
    expect(all.people.map((p: Json) => p.name)).toEqual(['FIFO Anna', 'FIFO Bernd', 'FIFO Carla']);
    expect(all.people.map((p: Json) => p.balance_cents)).toEqual([500, 500, 200]);
    expect(all.owed_to_book_cents).toBe(1200);
    expect(all.owed_by_book_cents).toBe(0);
    const february = await report('2025-02-15');
    expect(february.people.map((p: Json) => [p.name, p.balance_cents])).toEqual([['FIFO Anna', 300], ['FIFO Bernd', -500]]);
    expect(february.owed_to_book_cents).toBe(300);
    expect(february.owed_by_book_cents).toBe(500);
  });

  it('D27 (property): for random charges and payments, balance_cents, overdue_cents and overdue_since equal the FIFO model at every as_of', async () => {
    const day = fc.integer({ min: 0, max: 20 }).map((d) => new Date(Date.UTC(2026, 0, 1 + d)).toISOString().slice(0, 10));
    // Mostly whole euros from 1 to 3, now and then any cents: payments often settle a run of charges exactly (the edge of FIFO).
    const amount = fc.oneof({ arbitrary: fc.integer({ min: 1, max: 3 }).map((e) => e * 100), weight: 4 }, { arbitrary: fc.integer({ min: 1, max: 999 }), weight: 1 });
    const move = fc.record({ on: day, cents: fc.oneof(amount, amount.map((a) => -a)) });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(move, { minLength: 1, maxLength: 8 }), fc.array(day, { minLength: 1, maxLength: 3 }), async (moves, asOfs) => {
        const p = await person(`Property ${h.backend} ${++run}`);
        await post(p, moves);
        for (const asOf of asOfs) {
          const want = model(moves.map((m, order) => ({ ...m, order })), asOf);
          const line = await lineOf(asOf, p);
          if (want.balance === 0) expect(line, asOf).toBeNull();
          else {
            expect(line, `${JSON.stringify(moves)} as of ${asOf}`).toEqual({
              id: p.id, name: p.name, balance_cents: want.balance, overdue_cents: Math.max(want.balance, 0), overdue_since: want.since,
            });
          }
        }
      }),
      { numRuns: 40 },
    );
  }, 240_000);
});
