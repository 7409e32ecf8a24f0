import { sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import { cursorRowsWithoutJit, rowsOf, type Db } from '../src/db/database';
import { CLI_ACTOR } from '../src/book/changes';
import { insertTransaction, LIST_BATCH_ROWS, listByteChunks, listChunks, listTransactionsJson, type TransactionRange } from '../src/book/transactions';
import { removeUser } from '../src/identity/users';
import { describeEachDatabase } from './support/harness';

// Issue 31 item 4: GET /transactions reads its list through a cursor, one JSON text per
// transaction written by concatenation (each account's part once, from a jsonb object), a short
// range joined day by day, and streams a list longer than a batch. The bytes must be exactly those
// PostgreSQL wrote before (json_build_object and json_agg, the whole list as one value):
// `reference` below is that statement, kept as it was.

async function reference(db: Db, range: TransactionRange, limit?: number): Promise<string> {
  const result = await db.execute(sql`
    select coalesce(json_agg(json_build_object(
      'id', t.id, 'occurred_on', t.occurred_on, 'description', t.description,
      'created_by_email', u.email, 'entries', coalesce((
        select json_agg(json_build_object('account_id', e.account_id, 'account_name', a.name, 'amount_cents', e.amount_cents) order by e.id)
        from entries e join accounts a on a.id = e.account_id
        where e.transaction_id = t.id
      ), '[]'::json)) order by t.occurred_on desc, t.id desc), '[]'::json)::text as list
    from (
      select * from transactions
      where occurred_on >= coalesce(${range.from ?? null}::date, '-infinity'::date)
        and occurred_on <= coalesce(${range.to ?? null}::date, 'infinity'::date)
      order by occurred_on desc, id desc
      limit ${limit ?? null}::integer
    ) t left join users u on u.id = t.created_by`);
  return rowsOf<{ list: string }>(result)[0]!.list;
}

/** Text PostgreSQL's escape_json and JSON.stringify must agree on, character for character. */
const AWKWARD = [
  'plain',
  'with "quotes" and \\backslashes\\ and /slashes/',
  'controls \u0001\u0007\b\f\n\r\t\u001f end',
  'DEL \u007f, NBSP \u00a0, line separators \u2028 \u2029',
  'Müller café ✓ 😀 日本語',
  '</script><b>&amp;</b>',
  "it's 100% _fine_",
];

describeEachDatabase('GET /transactions: the same bytes, read through a cursor and streamed (issue 31 item 4)', (h) => {
  let token: string;
  const accountIds: number[] = [];
  beforeAll(async () => {
    ({ token } = await h.userWithToken('list@example.com'));
    const leaving = await h.userWithToken('leaving@example.com');
    for (const [name, kind] of [['Bank "main"', 'asset'], ['Cash \\ box', 'asset'], ['Épicerie 😀', 'expense'], ['Salary', 'income']]) {
      const res = await h.call(token, 'POST', '/accounts', { name, kind });
      expect(res.status, name).toBe(201);
      accountIds.push(((await res.json()) as { id: number }).id);
    }
    const [bank, cash, food, salary] = accountIds as [number, number, number, number];
    let day = 0;
    for (const description of AWKWARD) {
      for (const [author, entries] of [
        [token, [{ account_id: bank, amount_cents: 1250 }, { account_id: salary, amount_cents: -1250 }]],
        [leaving.token, [{ account_id: food, amount_cents: 999_999_999_999_999 }, { account_id: cash, amount_cents: -999_999_999_999_000 }, { account_id: bank, amount_cents: -999 }]],
      ] as const) {
        const occurred_on = `2026-0${1 + (day % 3)}-${String(1 + (day % 28)).padStart(2, '0')}`;
        day += 5;
        const res = await h.call(author, 'POST', '/transactions', { occurred_on, description: 'awkward', entries });
        expect(res.status, description).toBe(201);
        // The routes refuse some of these characters; stored text may hold them all the same (older
        // books, imports), and the list must write them as PostgreSQL did.
        const { id } = (await res.json()) as { id: number };
        await h.db.execute(sql`update transactions set description = ${description} where id = ${id}`);
      }
    }
    await h.db.execute(sql`update accounts set name = ${'Salary\u2028line \u0001'} where id = ${accountIds[3]!}`);
    // An author's email is written once per transaction from its own text: awkward too.
    await h.db.execute(sql`update users set email = ${'list"\\\u2028😀@example.com'} where email = 'list@example.com'`);
    // Same day, several ids; a CLI post (no author); then the second user removed (created_by null).
    for (let i = 0; i < 3; i++) {
      await insertTransaction(h.db, { occurred_on: '2026-02-11', description: `same day ${i}`, entries: [{ account_id: cash, amount_cents: -5 }, { account_id: food, amount_cents: 5 }] }, { ...CLI_ACTOR, userId: null });
    }
    await removeUser(h.db, 'leaving@example.com');
  });

  const ranges: [TransactionRange, number | undefined][] = [
    [{}, undefined],
    [{ from: '2026-02-01' }, undefined],
    [{ to: '2026-02-11' }, undefined],
    [{ from: '2026-02-01', to: '2026-02-28' }, undefined],
    [{ from: '2026-02-11', to: '2026-02-11' }, undefined],
    [{ from: '2030-01-01' }, undefined],
    // Longer than SHORT_RANGE_DAYS: through the cursor, not the one value.
    [{ from: '2025-12-01', to: '2026-03-31' }, undefined],
    [{}, 3],
    [{ from: '2026-01-01', to: '2026-03-31' }, 1],
    // A short range joined by day: a limit that ends inside a day of several transactions.
    [{ from: '2026-02-01', to: '2026-02-28' }, 2],
    [{ from: '2026-02-11', to: '2026-02-11' }, 2],
    [{ from: '2026-01-01', to: '2026-03-31' }, 0],
    [{ to: '2026-02-11' }, 0],
  ];

  it('listTransactionsJson is byte for byte what PostgreSQL wrote, for every range and limit', async () => {
    for (const [range, limit] of ranges) {
      expect(await listTransactionsJson(h.db, range, limit), JSON.stringify({ range, limit })).toBe(await reference(h.db, range, limit));
    }
    expect(await listTransactionsJson(h.db, { from: '2030-01-01' })).toBe('[]');
  });

  it('in batches of any size the parts join to the same bytes, a part per batch', async () => {
    const whole = await reference(h.db, {});
    const count = (JSON.parse(whole) as unknown[]).length;
    for (const batch of [1, 2, 3, 7, 1000]) {
      const parts: string[] = [];
      for await (const part of listChunks(h.db, {}, undefined, batch)) parts.push(part);
      expect(parts.join(''), `batch ${batch}`).toBe(whole);
      if (batch <= 3) expect(parts.length).toBe(Math.ceil(count / batch));
      else if (batch === 1000) expect(parts).toEqual([whole]);
      // Every part but the last ends after a whole transaction: the text so far plus `]` parses.
      let sofar = '';
      for (const part of parts.slice(0, -1)) {
        sofar += part;
        expect(() => JSON.parse(`${sofar}]`)).not.toThrow();
      }
    }
  });

  it('the bytes the route sends are the UTF-8 of those bytes, in batches and inside a transaction', async () => {
    const bytesOf = async (db: Db, range: TransactionRange, limit?: number, batch?: number) => {
      const parts: Buffer[] = [];
      for await (const part of listByteChunks(db, range, limit, batch)) parts.push(part);
      return Buffer.concat(parts);
    };
    for (const [range, limit] of ranges) {
      const expected = Buffer.from(await reference(h.db, range, limit));
      expect((await bytesOf(h.db, range, limit)).equals(expected), JSON.stringify({ range, limit })).toBe(true);
      expect((await bytesOf(h.db, range, limit, 2)).equals(expected), JSON.stringify({ range, limit, batch: 2 })).toBe(true);
      await h.db.transaction(async (tx) => {
        expect((await bytesOf(tx, range, limit)).equals(expected), JSON.stringify({ range, limit, tx: true })).toBe(true);
      });
    }
  });

  it('the list is planned without JIT, in a transaction of its own that leaves nothing behind', async () => {
    // JIT compiled the whole book's plan for 200 to 330 ms before its first row (PostgreSQL 15).
    const inside: string[] = [];
    for await (const rows of cursorRowsWithoutJit<{ jit: string; ro: string }>(h.db, sql`select current_setting('jit') as jit, current_setting('transaction_read_only') as ro`, 10)) {
      inside.push(...rows.map((r) => `${r.jit} ${r.ro}`));
    }
    expect(inside).toEqual(['off on']);
    for await (const rows of cursorRowsWithoutJit<{ n: number }>(h.db, sql`select generate_series(1, 5) as n`, Infinity)) expect(rows.length).toBe(5);
    // The pool's connections keep the server's setting and take writes again.
    const settings = await Promise.all(Array.from({ length: 12 }, () => h.db.execute(sql`select current_setting('jit') as jit, current_setting('transaction_read_only') as ro`)));
    for (const result of settings) expect(rowsOf<{ ro: string }>(result)[0]!.ro).toBe('off');
    expect(new Set(settings.map((r) => rowsOf<{ jit: string }>(r)[0]!.jit)).size).toBe(1);
  });

  it('a failed statement gives its connection back, rolled back', async () => {
    for (let i = 0; i < 15; i++) {
      await expect((async () => {
        for await (const _ of cursorRowsWithoutJit(h.db, sql`select 1 / (n - 3) as x from generate_series(1, 5) n`, 1)) void _;
      })()).rejects.toThrow(/division by zero/);
    }
    // The pool (10 connections) still answers, outside any transaction.
    expect(rowsOf<{ ro: string }>(await h.db.execute(sql`select current_setting('transaction_read_only') as ro`))[0]!.ro).toBe('off');
    expect(await listTransactionsJson(h.db, {})).toBe(await reference(h.db, {}));
  });

  it('inside a transaction the list is read there, from its snapshot', async () => {
    await h.db.transaction(async (tx) => {
      expect(await listTransactionsJson(tx, { from: '2026-02-01', to: '2026-02-28' })).toBe(await reference(tx, { from: '2026-02-01', to: '2026-02-28' }));
      expect(await listTransactionsJson(tx, {})).toBe(await reference(tx, {}));
    });
  });

  it('stopping early closes the cursor and gives the connection back', async () => {
    for (let i = 0; i < 15; i++) {
      const parts = listChunks(h.db, {}, undefined, 2);
      await parts.next();
      await parts.return(undefined);
    }
    // The pool (10 connections) still answers: no cursor kept one.
    expect(await listTransactionsJson(h.db, {})).toBe(await reference(h.db, {}));
  });

  it('GET /transactions answers those bytes, JSON, for a range and for the whole book', async () => {
    for (const [query, range] of [
      ['', {}],
      ['?from=2026-02-01&to=2026-02-28', { from: '2026-02-01', to: '2026-02-28' }],
      ['?from=2030-01-01', { from: '2030-01-01' }],
    ] as const) {
      const res = await h.call(token, 'GET', `/transactions${query}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.text(), query).toBe(await reference(h.db, range));
    }
  });

  it('an author beyond the first thousand users is written as well (looked up by primary key)', async () => {
    await h.db.execute(sql`
      insert into users (email, password_hash) select 'filler' || g || '@example.com', 'x' from generate_series(1, 1000) g`);
    const late = await h.userWithToken('late"\\@example.com');
    const [bank, , , salary] = accountIds as [number, number, number, number];
    const res = await h.call(late.token, 'POST', '/transactions', {
      occurred_on: '2026-02-11', description: 'by a late user', entries: [{ account_id: bank, amount_cents: 7 }, { account_id: salary, amount_cents: -7 }],
    });
    expect(res.status).toBe(201);
    for (const range of [{ from: '2026-02-01', to: '2026-02-28' }, {}]) {
      const list = await listTransactionsJson(h.db, range);
      expect(list).toContain('"created_by_email" : "late\\"\\\\@example.com"');
      expect(list).toBe(await reference(h.db, range));
    }
    await h.db.execute(sql`delete from users where email like 'filler%@example.com'`);
  });

  it(`a book longer than a batch (${LIST_BATCH_ROWS} rows) is streamed, with the same bytes`, async () => {
    const [bank, , , salary] = accountIds as [number, number, number, number];
    const n = LIST_BATCH_ROWS + 500;
    await h.db.execute(sql`
      with headers as (
        insert into transactions (occurred_on, description)
        select date '2024-01-01' + (g % 400), 'bulk "' || g || E'"\\t' from generate_series(1, ${n}::int) g
        returning id, occurred_on
      )
      insert into entries (transaction_id, occurred_on, account_id, amount_cents)
      select h.id, h.occurred_on, a.account_id, a.amount from headers h
      cross join lateral (values (${bank}::int, 100), (${salary}::int, -100)) as a(account_id, amount)`);
    const res = await h.call(token, 'GET', '/transactions');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    // Streamed: no length known in advance, the body read part by part.
    expect(res.headers.get('content-length')).toBeNull();
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let reads = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      reads++;
      text += decoder.decode(value, { stream: true });
    }
    text += decoder.decode();
    expect(reads).toBeGreaterThan(1);
    expect(text).toBe(await reference(h.db, {}));
    // A month of it is one batch: one piece, as before.
    const month = await h.call(token, 'GET', '/transactions?from=2024-02-01&to=2024-02-29');
    expect(await month.text()).toBe(await reference(h.db, { from: '2024-02-01', to: '2024-02-29' }));
  });
});
