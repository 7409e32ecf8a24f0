import { sql } from 'drizzle-orm';
import { Hono } from 'hono';
import { beforeAll, expect, it } from 'vitest';
import { rowsOf, sqlState } from '../src/db/database';
import type { AppEnv } from '../src/http/context';
import { databaseRefusal } from '../src/db/refusals';
import { answerError } from '../src/http/errors';
import { CLI_ACTOR } from '../src/book/changes';
import { insertTransaction } from '../src/book/transactions';
import { removeUser } from '../src/identity/users';
import { describeEachDatabase } from './support/harness';
import { json } from './support/http';

// Spec: Ledger routes (full tier), Resources, error rules 1–2; D6 limits, D13.

/** Characters that make text display reversed, reordered or broken across lines (bidi controls, marks, separators). */
const DISPLAY_CONTROLS = ['202A', '202B', '202C', '202D', '202E', '2066', '2067', '2068', '2069', '200E', '200F', '061C', '2028', '2029'].map(
  (hex) => [`U+${hex}`, String.fromCodePoint(Number.parseInt(hex, 16))] as const,
);

describeEachDatabase('accounts (spec: Account; D6, D13)', (h) => {
  let token: string;
  beforeAll(async () => {
    ({ token } = await h.userWithToken('accounts@example.com'));
  });
  const list = async () => json<{ id: number; name: string; kind: string }[]>(await h.call(token, 'GET', '/accounts'));

  it('POST creates 201 {id, name, kind} with the name trimmed; GET orders by kind then name', async () => {
    const created = await h.call(token, 'POST', '/accounts', { name: '  Savings  ', kind: 'asset' });
    expect(created.status).toBe(201);
    expect(await json(created)).toEqual({ id: expect.any(Number), name: 'Savings', kind: 'asset' });
    for (const [name, kind] of [['Salary', 'income'], ['bank', 'asset'], ['Rent', 'expense'], ['Card', 'liability'], ['Opening', 'equity'], ['Cash', 'asset']]) {
      expect((await h.call(token, 'POST', '/accounts', { name, kind })).status).toBe(201);
    }
    expect((await list()).map((a) => `${a.kind}:${a.name}`)).toEqual([
      'asset:bank', 'asset:Cash', 'asset:Savings', 'liability:Card', 'equity:Opening', 'income:Salary', 'expense:Rent',
    ]);
  });

  it('refuses blank names, duplicates, bad kinds and names over 100 characters with 400 and changes nothing', async () => {
    const before = await list();
    const refusals: [unknown, string | RegExp][] = [
      [{ name: '   ', kind: 'asset' }, 'name is required'],
      [{ kind: 'asset' }, 'name is required'],
      [{ name: 'Savings', kind: 'asset' }, 'an account with that name already exists'],
      [{ name: ' Savings ', kind: 'income' }, 'an account with that name already exists'],
      [{ name: 'X', kind: 'Asset' }, /^kind must be one of/],
      [{ name: 'X', kind: 'cash' }, /^kind must be one of/],
      [{ name: 'X' }, 'kind is required'],
      [{ name: 'x'.repeat(101), kind: 'asset' }, 'name has at most 100 characters'],
      [{ name: 42, kind: 'asset' }, 'name is required'],
    ];
    for (const [body, message] of refusals) {
      const res = await h.call(token, 'POST', '/accounts', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const { error } = await json<{ error: string }>(res);
      if (typeof message === 'string') expect(error).toBe(message);
      else expect(error).toMatch(message);
    }
    expect((await h.call(token, 'POST', '/accounts', { name: 'y'.repeat(100), kind: 'asset' })).status).toBe(201);
    expect((await list()).length).toBe(before.length + 1);
  });

  it('an account name with a text-direction control character or line separator is 400 with a clear message; nothing stored', async () => {
    const before = await list();
    for (const [what, ch] of DISPLAY_CONTROLS) {
      for (const name of [`Evil${ch}lanif`, `Rent ${ch}${ch} paid`]) {
        const res = await h.call(token, 'POST', '/accounts', { name, kind: 'asset' });
        expect(res.status, what).toBe(400);
        expect(await json(res), what).toEqual({ error: 'name must not contain text-direction control characters or line separators' });
      }
    }
    expect(await list()).toEqual(before);
  });
});

describeEachDatabase('settings (spec: Settings; error rule 6)', (h) => {
  it('GET is personal at first; PUT club answers 200 and sticks; other values are plain-text 422 and change nothing', async () => {
    const { token } = await h.userWithToken('settings@example.com');
    expect(await json(await h.call(token, 'GET', '/settings'))).toEqual({ book_style: 'personal', currency: 'EUR', closed_through: null });
    const put = await h.call(token, 'PUT', '/settings', { book_style: 'club' });
    expect(put.status).toBe(200);
    expect(await json(put)).toEqual({ book_style: 'club', currency: 'EUR', closed_through: null });
    for (const body of [{ book_style: 'Club' }, { book_style: 'family' }, { book_style: 42 }, {}]) {
      const res = await h.call(token, 'PUT', '/settings', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      // D20, D27: PUT is a patch of book_style, currency, closed_through and sepa; an empty one changes nothing.
      expect(await res.text()).toBe('book_style' in body ? 'book_style must be "club" or "personal"' : 'give book_style, currency, closed_through or sepa');
    }
    expect((await h.call(token, 'PUT', '/settings', '{"book_style":')).status).toBe(400);
    expect(await json(await h.call(token, 'GET', '/settings'))).toEqual({ book_style: 'club', currency: 'EUR', closed_through: null });
  });
});

describeEachDatabase('transactions (spec: Transaction, Entry; error rules 1–2; D6)', (h) => {
  let token: string;
  let userId: number;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    ({ token, userId } = await h.userWithToken('poster@example.com'));
    for (const [name, kind] of [['Bank', 'asset'], ['Salary', 'income'], ['Food', 'expense']] as const) {
      ids[name] = (await json(await h.call(token, 'POST', '/accounts', { name, kind }))).id;
    }
  });

  const post = (body: unknown, as = token) => h.call(as, 'POST', '/transactions', body);
  const tx = (occurred_on: string, description: string, pairs: [number, number][]) => ({
    occurred_on,
    description,
    entries: pairs.map(([account_id, amount_cents]) => ({ account_id, amount_cents })),
  });
  const count = async () => Number(rowsOf<{ n: string }>(await h.db.execute(sql`select count(*) as n from transactions`))[0]!.n);

  it('POST 201 {id}; GET returns it with entries in entry-id order, account names and the author', async () => {
    const res = await post(tx('2026-01-15', '  Pay day  ', [[ids.Bank!, 250_000], [ids.Salary!, -250_000]]));
    expect(res.status).toBe(201);
    const { id } = await json<{ id: number }>(res);
    expect(await json(await h.call(token, 'GET', '/transactions?from=2026-01-15&to=2026-01-15'))).toEqual([
      {
        id,
        occurred_on: '2026-01-15',
        description: 'Pay day',
        created_by_email: 'poster@example.com',
        entries: [
          { account_id: ids.Bank, account_name: 'Bank', amount_cents: 250_000 },
          { account_id: ids.Salary, account_name: 'Salary', amount_cents: -250_000 },
        ],
      },
    ]);
  });

  it('entries come back in entry-id order, which is the posted order: not account id, name or amount order', async () => {
    // The accounts were created Bank, Salary, Food: by id Bank < Salary < Food; by name Bank, Food, Salary.
    expect(ids.Bank!).toBeLessThan(ids.Salary!);
    expect(ids.Salary!).toBeLessThan(ids.Food!);
    // Posted Food, Bank, Salary: neither by id, nor by name, nor by amount (either way), nor reversed.
    const posted: [number, number][] = [[ids.Food!, 300], [ids.Bank!, -500], [ids.Salary!, 200]];
    const { id } = await json<{ id: number }>(await post(tx('2026-01-20', 'Three lines', posted)));
    const [found] = await json<any[]>(await h.call(token, 'GET', '/transactions?from=2026-01-20&to=2026-01-20'));
    expect(found.id).toBe(id);
    expect(found.entries).toEqual([
      { account_id: ids.Food, account_name: 'Food', amount_cents: 300 },
      { account_id: ids.Bank, account_name: 'Bank', amount_cents: -500 },
      { account_id: ids.Salary, account_name: 'Salary', amount_cents: 200 },
    ]);
    const entryIds = rowsOf<{ id: number }>(await h.db.execute(sql`select id from entries where transaction_id = ${id} order by id`));
    expect(entryIds).toHaveLength(3);
  });

  it('refuses every invalid body with 400 {error} and stores nothing (rule 1, D6)', async () => {
    const before = await count();
    const ok = [[ids.Bank!, 100], [ids.Food!, -100]] as [number, number][];
    const cases: [unknown, string | RegExp][] = [
      [tx('2026-01-01', '   ', ok), 'description is required'],
      [{ description: 'x', entries: tx('2026-01-01', 'x', ok).entries }, 'occurred_on is required'],
      [{ occurred_on: '2026-01-01', entries: tx('2026-01-01', 'x', ok).entries }, 'description is required'],
      [{ occurred_on: '2026-01-01', description: 'x' }, 'entries is required'],
      [{ ...tx('2026-01-01', 'x', ok), entries: [{ account_id: ids.Bank }, { account_id: ids.Food, amount_cents: -1 }] }, 'entry 1: amount_cents is required'],
      ['"just a string"', 'the request body must be a JSON object'],
      [tx('2026-02-30', 'x', ok), 'occurred_on must be a date YYYY-MM-DD'],
      [tx('2026-13-01', 'x', ok), 'occurred_on must be a date YYYY-MM-DD'],
      [tx('2026-1-1', 'x', ok), 'occurred_on must be a date YYYY-MM-DD'],
      [tx('2026-01-01', 'x', []), 'a transaction needs at least 2 entries'],
      [tx('2026-01-01', 'x', [[ids.Bank!, 0]]), 'a transaction needs at least 2 entries'],
      [tx('2026-01-01', 'x', [[ids.Bank!, 100], [ids.Food!, -90], [ids.Salary!, -5]]), 'entries must sum to zero: 3 entries sum to 5'],
      [tx('2026-01-01', 'x', [[ids.Bank!, 1.5], [ids.Food!, -1.5]]), 'entry 1: amount_cents must be an integer'],
      [{ ...tx('2026-01-01', 'x', ok), entries: [{ account_id: ids.Bank, amount_cents: '100' }, { account_id: ids.Food, amount_cents: -100 }] }, 'entry 1: amount_cents must be an integer'],
      [tx('2026-01-01', 'x', [[ids.Bank!, 10 ** 15 + 1], [ids.Food!, -(10 ** 15 + 1)]]), /^entry 1: amount_cents must be between/],
      [tx('2026-01-01', 'x', Array.from({ length: 101 }, (_, i) => [ids.Bank!, i === 100 ? -100 : 1] as [number, number])), 'a transaction has at most 100 entries'],
      [tx('2026-01-01', 'd'.repeat(501), ok), 'description has at most 500 characters'],
      [tx('2026-01-01', 'x', [[999_999, 100], [ids.Food!, -100]]), 'an entry names an account that does not exist'],
    ];
    for (const [body, message] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body).slice(0, 120)).toBe(400);
      const { error } = await json<{ error: string }>(res);
      if (typeof message === 'string') expect(error).toBe(message);
      else expect(error).toMatch(message);
    }
    expect(await count()).toBe(before);
    const limits = [
      tx('2026-01-02', 'd'.repeat(500), [[ids.Bank!, 10 ** 15], [ids.Food!, -(10 ** 15)]]),
      // 500 four-byte characters that barely compress: the description is a key column of the list
      // index, whose entries must stay under PostgreSQL's 2,704-byte btree limit.
      tx('2026-01-02', Array.from({ length: 500 }, (_, i) => String.fromCodePoint(0x1f300 + ((i * 7919) % 1280))).join(''), ok),
      tx('2026-01-02', 'hundred', Array.from({ length: 100 }, (_, i) => [ids.Bank!, i === 99 ? -99 : 1] as [number, number])),
    ];
    for (const body of limits) expect((await post(body)).status).toBe(201);
    const big = await json<any[]>(await h.call(token, 'GET', '/transactions?from=2026-01-02&to=2026-01-02'));
    expect(big.find((t) => t.description.length === 500).entries.map((e: any) => e.amount_cents)).toEqual([10 ** 15, -(10 ** 15)]);
    expect(big.some((t) => t.description === limits[1]!.description)).toBe(true);
  });

  it('a description with a text-direction control character or line separator is 400 with a clear message; nothing stored', async () => {
    const before = await count();
    const ok = [[ids.Bank!, 100], [ids.Food!, -100]] as [number, number][];
    for (const [what, ch] of DISPLAY_CONTROLS) {
      const res = await post(tx('2026-01-04', `Paid ${ch}321 to Bob`, ok));
      expect(res.status, what).toBe(400);
      expect(await json(res), what).toEqual({ error: 'description must not contain text-direction control characters or line separators' });
    }
    expect(await count()).toBe(before);
  });

  /**
   * An app whose POST /direct and POST /oauth/direct insert `body` straight through the repository
   * function, past every validator (as a missed check would), answered by the real error mapper.
   */
  function insertingPastValidation(body: ReturnType<typeof tx>): Hono<AppEnv> {
    const app = new Hono<AppEnv>();
    app.use((c, next) => {
      c.set('config', h.config);
      c.set('log', h.log);
      return next();
    });
    const direct = async () => ({ id: await insertTransaction(h.db, body, { ...CLI_ACTOR, userId }) });
    app.post('/direct', async (c) => c.json(await direct(), 201));
    app.post('/oauth/direct', async (c) => c.json(await direct(), 201));
    app.onError(answerError);
    return app;
  }

  it('a transaction our validation passes but the balance trigger refuses is a 400 through the error mapper (rule 2)', async () => {
    const before = await count();
    const unbalanced = tx('2026-01-03', 'Trigger', [[ids.Bank!, 5], [ids.Food!, -4]]);
    const error = await insertTransaction(h.db, unbalanced, { ...CLI_ACTOR, userId }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    const app = insertingPastValidation(unbalanced);
    const res = await app.request('/direct', { method: 'POST' });
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({ error: expect.stringMatching(/^transaction \d+ does not balance: 2 entries sum to 1$/) });
    expect(await count()).toBe(before);
  });

  it('a NUL character that reached the database would be a 400 in the route\'s shape, not a fault (rule 2 backstop)', async () => {
    const before = await count();
    const withNul = tx('2026-01-03', 'a\u0000b', [[ids.Bank!, 5], [ids.Food!, -5]]);
    const app = insertingPastValidation(withNul);
    const plain = await app.request('/direct', { method: 'POST' });
    expect(plain.status).toBe(400);
    expect(await json(plain)).toEqual({ error: 'text must not contain NUL characters' });
    const oauth = await app.request('/oauth/direct', { method: 'POST' });
    expect(oauth.status).toBe(400);
    expect(oauth.headers.get('cache-control')).toBe('no-store');
    expect(await json(oauth)).toEqual({ error: 'invalid_request', error_description: 'text must not contain NUL characters' });
    expect(await count()).toBe(before);
  });

  it('lists newest first (date, then id), filters from/to inclusively, refuses bad dates', async () => {
    for (const [date, description] of [['2025-12-31', 'old'], ['2026-02-01', 'feb a'], ['2026-02-01', 'feb b'], ['2026-03-01', 'march']] as const) {
      expect((await post(tx(date, description, [[ids.Bank!, 1], [ids.Food!, -1]]))).status).toBe(201);
    }
    const described = async (query: string) => (await json<any[]>(await h.call(token, 'GET', `/transactions${query}`))).map((t) => t.description);
    const all = await json<any[]>(await h.call(token, 'GET', '/transactions'));
    const sorted = [...all].sort((a, b) => (a.occurred_on === b.occurred_on ? b.id - a.id : a.occurred_on < b.occurred_on ? 1 : -1));
    expect(all.map((t) => t.id)).toEqual(sorted.map((t) => t.id));
    expect(await described('?from=2026-02-01&to=2026-02-01')).toEqual(['feb b', 'feb a']);
    expect(await described('?from=2026-02-01&to=2026-03-01')).toEqual(['march', 'feb b', 'feb a']);
    expect(await described('?to=2025-12-31')).toEqual(['old']);
    expect(await described('?from=2026-03-01')).toEqual(['march']);
    expect(await described('?from=2026-03-02&to=2026-03-01')).toEqual([]);
    for (const bad of ['?from=2026-02-30', '?to=yesterday', '?from=2026-1-1']) {
      const res = await h.call(token, 'GET', `/transactions${bad}`);
      expect(res.status, bad).toBe(400);
      expect(await json(res)).toEqual({ error: expect.any(String) });
    }
  });

  it('DELETE answers 204 and removes the entries; unknown 404, malformed 400', async () => {
    const { id } = await json(await post(tx('2026-04-01', 'to delete', [[ids.Bank!, 7], [ids.Food!, -7]])));
    expect((await h.call(token, 'DELETE', `/transactions/${id}`)).status).toBe(204);
    const left = rowsOf<{ n: string }>(await h.db.execute(sql`select count(*) as n from entries where transaction_id = ${id}`));
    expect(Number(left[0]!.n)).toBe(0);
    const again = await h.call(token, 'DELETE', `/transactions/${id}`);
    expect(again.status).toBe(404);
    expect(await json(again)).toEqual({ error: 'no such transaction' });
    expect((await h.call(token, 'DELETE', '/transactions/99999999999')).status).toBe(404);
    expect((await h.call(token, 'DELETE', '/transactions/abc')).status).toBe(400);
  });

  it('created_by_email becomes null when the author is removed; the transaction stays', async () => {
    const author = await h.userWithToken('leaving@example.com');
    const { id } = await json(await post(tx('2026-05-01', 'by a leaver', [[ids.Bank!, 3], [ids.Food!, -3]]), author.token));
    await removeUser(h.db, 'leaving@example.com');
    const [found] = await json<any[]>(await h.call(token, 'GET', '/transactions?from=2026-05-01&to=2026-05-01'));
    expect(found).toMatchObject({ id, created_by_email: null });
  });

  it('concurrent posts: every 201 is stored with its own id, every refusal stores nothing, every transaction balances', async () => {
    const before = await count();
    const bodies = Array.from({ length: 30 }, (_, i) =>
      i % 3 === 2
        ? tx('2026-06-01', `bad ${i}`, [[ids.Bank!, i + 1], [ids.Food!, -i]])
        : tx('2026-06-01', `good ${i}`, [[ids.Bank!, i + 1], [ids.Food!, -(i + 1)]]),
    );
    const answers = await Promise.all(bodies.map((b) => post(b)));
    const created = answers.filter((r) => r.status === 201);
    expect(created.length).toBe(20);
    expect(answers.filter((r) => r.status === 400).length).toBe(10);
    const newIds = await Promise.all(created.map(async (r) => (await json<{ id: number }>(r)).id));
    expect(new Set(newIds).size).toBe(20);
    expect(await count()).toBe(before + 20);
    const unbalanced = rowsOf(
      await h.db.execute(sql`
        select t.id from transactions t left join entries e on e.transaction_id = t.id
        group by t.id having count(e.id) < 2 or coalesce(sum(e.amount_cents), 0) <> 0`),
    );
    expect(unbalanced).toEqual([]);
  });

  it('concurrent inserts past our own check: the trigger refuses every unbalanced one with P0001 (400 through the mapper), nothing partial is stored', async () => {
    const before = await count();
    const bodies = Array.from({ length: 24 }, (_, i) =>
      i % 2 === 1
        ? tx('2026-07-01', `trigger bad ${i}`, [[ids.Bank!, i + 2], [ids.Food!, -1], [ids.Salary!, -i]])
        : tx('2026-07-01', `trigger good ${i}`, [[ids.Bank!, i + 2], [ids.Food!, -1], [ids.Salary!, -(i + 1)]]),
    );
    const outcomes = await Promise.allSettled(bodies.map((b) => insertTransaction(h.db, b, { ...CLI_ACTOR, userId })));
    outcomes.forEach((outcome, i) => {
      if (i % 2 === 0) {
        expect(outcome.status, bodies[i]!.description).toBe('fulfilled');
        return;
      }
      expect(outcome.status, bodies[i]!.description).toBe('rejected');
      const reason = (outcome as PromiseRejectedResult).reason;
      expect(sqlState(reason), bodies[i]!.description).toBe('P0001');
      expect(databaseRefusal(reason)?.message).toMatch(/^transaction \d+ does not balance: 3 entries sum to 1$/);
    });
    expect(await count()).toBe(before + 12);
    const stored = rowsOf<{ description: string; n: string; total: string }>(
      await h.db.execute(sql`
        select t.description, count(e.id) as n, coalesce(sum(e.amount_cents), 0) as total
        from transactions t left join entries e on e.transaction_id = t.id
        where t.occurred_on = '2026-07-01' group by t.id, t.description`),
    );
    expect(stored.map((r) => r.description).sort()).toEqual(bodies.filter((_, i) => i % 2 === 0).map((b) => b.description).sort());
    for (const row of stored) expect([Number(row.n), Number(row.total)], row.description).toEqual([3, 0]);
  });
});

