import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeUser } from '../src/identity/users';
import { bookRequests } from './support/book';
import { describeEachDatabase } from './support/harness';
import { json } from './support/http';

// D20: reconciliation (an account proved against a statement, its entries then fixed by value) and
// closed periods (nothing dated on or before closed_through changes), both enforced by the
// database for every writer: HTTP, MCP and a bare SQL statement alike. Also D6: account names are
// unique without regard to case.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

describeEachDatabase('reconciliation and closed periods (D20)', (h) => {
  let token: string;
  let ids: Record<string, number>;
  let mcp: Client;
  const email = 'treasurer@reconcile.example';

  const { api, move: tx, post } = bookRequests(h, () => token, () => ids);
  const changeCount = async () => (await json(await api('GET', '/changes?limit=500'))).changes.length as number;
  const latestChange = async () => (await json(await api('GET', '/changes?limit=1'))).changes[0];
  const reconcile = (account: string, body: unknown) => api('POST', `/accounts/${ids[account]}/reconciliations`, body);
  const status = async (account: string, asOf?: string) =>
    json(await api('GET', `/accounts/${ids[account]}/reconciliation${asOf ? `?as_of=${asOf}` : ''}`));
  const tool = async (name: string, args: Record<string, unknown>): Promise<Json> => mcp.callTool({ name, arguments: args });

  beforeAll(async () => {
    ({ token } = await h.userWithToken(email));
    ids = {};
    for (const [name, kind] of [
      ['Bank', 'asset'], ['Savings', 'asset'], ['Visa card', 'liability'], ['Opening', 'equity'], ['Food', 'expense'], ['Dues', 'income'],
    ] as const) {
      ids[name] = (await json(await api('POST', '/accounts', { name, kind }))).id;
    }
    mcp = new Client({ name: 'reconciliation-tests', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL('http://localhost:38081/mcp'), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
        fetch: (url, init) => Promise.resolve(h.app.request(String(url), init as RequestInit)),
      }),
    );
  });
  afterAll(() => mcp?.close());

  describe('reconciling (D20)', () => {
    let opening: number;
    let dues: number;
    let groceries: number;
    let late: number;

    beforeAll(async () => {
      opening = await post(tx('Opening balance', 100_000, '2026-01-01', 'Opening', 'Bank'));
      dues = await post(tx('Dues 2026 Anna Schmidt', 6_000, '2026-01-10', 'Dues', 'Bank'));
      groceries = await post(tx('Groceries', 2_550, '2026-01-20', 'Bank', 'Food'));
      late = await post(tx('After the statement', 1_000, '2026-02-05', 'Bank', 'Food'));
    });

    it('until an account is reconciled, it is as the spec says: no reconciliation, everything unreconciled', async () => {
      expect(await json(await api('GET', `/accounts/${ids.Bank}/reconciliations`))).toEqual([]);
      const s = await status('Bank', '2026-01-31');
      expect(s).toEqual({
        account_id: ids.Bank,
        last: null,
        reconciled_balance_cents: 0,
        book_balance_cents: 103_450,
        unreconciled: [
          { transaction_id: opening, occurred_on: '2026-01-01', description: 'Opening balance', amount_cents: 100_000 },
          { transaction_id: dues, occurred_on: '2026-01-10', description: 'Dues 2026 Anna Schmidt', amount_cents: 6_000 },
          { transaction_id: groceries, occurred_on: '2026-01-20', description: 'Groceries', amount_cents: -2_550 },
        ],
      });
      // The unpaged list stays exactly the spec's: no `reconciled` key.
      const [listed] = await json(await api('GET', '/transactions?from=2026-01-20&to=2026-01-20'));
      expect(Object.keys(listed).sort()).toEqual(['created_by_email', 'description', 'entries', 'id', 'occurred_on']);
    });

    it('a statement the entries do not come to is 409 with difference_cents, and nothing changes', async () => {
      const before = await changeCount();
      const res = await reconcile('Bank', { statement_date: '2026-01-31', statement_balance_cents: 103_500 });
      expect(res.status).toBe(409);
      expect(await json(res)).toEqual({ error: 'the statement says 1035.00 but the reconciled entries come to 1034.50', difference_cents: 50 });
      expect((await status('Bank')).reconciled_balance_cents).toBe(0);
      expect(await json(await api('GET', `/accounts/${ids.Bank}/reconciliations`))).toEqual([]);
      expect(await changeCount()).toBe(before);
    });

    it('400 for a listed transaction with no entry on the account, one dated after the statement, a bad body; 404 for no account', async () => {
      const other = await post(tx('Not the bank', 500, '2026-01-05', 'Dues', 'Savings'));
      const cases: [unknown, string][] = [
        [{ statement_date: '2026-01-31', statement_balance_cents: 0, transaction_ids: [other] }, `transaction ${other} has no entry on the account`],
        [{ statement_date: '2026-01-31', statement_balance_cents: 0, transaction_ids: [1_999_999] }, 'transaction 1999999 has no entry on the account'],
        [{ statement_date: '2026-01-31', statement_balance_cents: 0, transaction_ids: [late] }, `transaction ${late} is dated after the statement date 2026-01-31`],
        [{ statement_date: '2026-02-30', statement_balance_cents: 0 }, 'statement_date must be a date YYYY-MM-DD'],
        [{ statement_date: '2026-01-31', statement_balance_cents: 1.5 }, 'statement_balance_cents must be an integer'],
        [{ statement_date: '2026-01-31', statement_balance_cents: '100' }, 'statement_balance_cents must be an integer'],
        [{ statement_date: '2026-01-31' }, 'statement_balance_cents'],
        [{ statement_date: '2026-01-31', statement_balance_cents: 0, extra: 1 }, 'extra'],
      ];
      for (const [body, message] of cases) {
        const res = await reconcile('Bank', body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect((await json(res)).error).toContain(message);
      }
      expect((await api('POST', '/accounts/1999999/reconciliations', { statement_date: '2026-01-31', statement_balance_cents: 0 })).status).toBe(404);
      expect((await api('GET', '/accounts/1999999/reconciliation')).status).toBe(404);
      expect((await api('GET', '/accounts/1999999/reconciliations')).status).toBe(404);
      expect((await api('GET', `/accounts/${ids.Bank}/reconciliation?as_of=yesterday`)).status).toBe(400);
      expect((await api('DELETE', '/reconciliations/abc')).status).toBe(400);
      expect((await api('DELETE', '/reconciliations/1999999')).status).toBe(404);
      await api('DELETE', `/transactions/${other}`);
    });

    it('201 reconciles every unreconciled entry up to the date at once, with its change record; the register and the paged list say so', async () => {
      const res = await reconcile('Bank', { statement_date: '2026-01-31', statement_balance_cents: 103_450 });
      expect(res.status, await res.clone().text()).toBe(201);
      const made = await json(res);
      expect(made).toMatchObject({
        account_id: ids.Bank, statement_date: '2026-01-31', statement_balance_cents: 103_450,
        transaction_ids: [opening, dues, groceries].sort((a, b) => a - b), created_by_email: email,
      });
      expect(made.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(await latestChange()).toMatchObject({ subject: 'reconciliation', subject_id: made.id, action: 'create', before: null, after: made, actor_email: email, via: 'token' });
      expect(await json(await api('GET', `/accounts/${ids.Bank}/reconciliations`))).toEqual([made]);
      const s = await status('Bank', '2026-02-28');
      expect(s).toMatchObject({ last: made, reconciled_balance_cents: 103_450, book_balance_cents: 102_450 });
      expect(s.unreconciled.map((u: Json) => u.transaction_id)).toEqual([late]);

      const register = await json(await api('GET', `/reports/accounts/${ids.Bank}/register?from=2026-01-01&to=2026-02-28`));
      expect(register.entries.map((e: Json) => [e.transaction_id, e.reconciled])).toEqual([[opening, true], [dues, true], [groceries, true], [late, false]]);
      const paged = await json(await api('GET', '/transactions?limit=10&from=2026-01-01&to=2026-02-28'));
      expect(Object.fromEntries(paged.map((t: Json) => [t.id, t.reconciled]))).toMatchObject({ [opening]: true, [dues]: true, [groceries]: true, [late]: false });
    });

    it('a reconciled transaction is fixed: DELETE, a new date, a new amount or account are 409 over HTTP and MCP; the description alone may change', async () => {
      const before = await changeCount();
      const original = await json(await api('GET', `/transactions/${groceries}`));
      const put = (body: unknown) => api('PUT', `/transactions/${groceries}`, body);
      const refusals = [
        await api('DELETE', `/transactions/${groceries}`),
        await put(tx('Groceries', 2_550, '2026-01-21', 'Bank', 'Food')),
        await put(tx('Groceries', 2_551, '2026-01-20', 'Bank', 'Food')),
        await put(tx('Groceries', 2_550, '2026-01-20', 'Savings', 'Food')),
        // The same entries in another order are other entries (by value, in order).
        await put({ occurred_on: '2026-01-20', description: 'Groceries', entries: [...original.entries].reverse().map((e: Json) => ({ account_id: e.account_id, amount_cents: e.amount_cents })) }),
      ];
      for (const res of refusals) {
        expect(res.status).toBe(409);
        expect(await json(res)).toEqual({ error: 'the transaction is reconciled' });
      }
      for (const [name, args] of [
        ['delete_transaction', { id: groceries }],
        ['update_transaction', { id: groceries, ...tx('Groceries', 9_999, '2026-01-20', 'Bank', 'Food') }],
      ] as const) {
        const result = await tool(name, args);
        expect(result.isError, name).toBe(true);
        expect(result.content[0].text).toBe('the transaction is reconciled');
      }
      expect(await json(await api('GET', `/transactions/${groceries}`))).toEqual(original);
      expect(await changeCount()).toBe(before);

      // MCP too: the description alone may change.
      const described = await tool('update_transaction', { id: groceries, ...tx('Groceries (MCP)', 2_550, '2026-01-20', 'Bank', 'Food') });
      expect(described.isError).toBeFalsy();
      expect(described.structuredContent.description).toBe('Groceries (MCP)');
      const renamed = await put(tx('Groceries at the market', 2_550, '2026-01-20', 'Bank', 'Food'));
      expect(renamed.status, await renamed.clone().text()).toBe(200);
      expect((await json(renamed)).description).toBe('Groceries at the market');
      expect((await status('Bank')).reconciled_balance_cents).toBe(103_450);
      const register = await json(await api('GET', `/reports/accounts/${ids.Bank}/register?from=2026-01-20&to=2026-01-20`));
      expect(register.entries).toEqual([expect.objectContaining({ transaction_id: groceries, reconciled: true, description: 'Groceries at the market' })]);
    });

    it('the lock is the database\'s: a bare SQL statement cannot change or delete a reconciled entry either', async () => {
      const attempts = [
        sql`update entries set amount_cents = amount_cents + 1 where transaction_id = ${groceries}`,
        sql`delete from entries where transaction_id = ${groceries}`,
        sql`update transactions set occurred_on = '2026-01-19' where id = ${groceries}`,
        sql`delete from transactions where id = ${groceries}`,
      ];
      for (const attempt of attempts) {
        await expect(h.db.transaction(async (t) => { await t.execute(attempt); })).rejects.toSatisfy((e: Json) => {
          for (let c = e; c; c = c.cause) if (c.code) return c.code === 'LR001';
          return false;
        });
      }
    });

    it('a statement date before the last reconciliation, or an already reconciled transaction, is 400', async () => {
      const early = await reconcile('Bank', { statement_date: '2026-01-30', statement_balance_cents: 103_450 });
      expect(early.status).toBe(400);
      expect((await json(early)).error).toBe("statement_date is before the account's last reconciliation, through 2026-01-31");
      const again = await reconcile('Bank', { statement_date: '2026-02-28', statement_balance_cents: 103_450, transaction_ids: [dues] });
      expect(again.status).toBe(400);
      expect((await json(again)).error).toBe(`transaction ${dues} is already reconciled`);
    });

    it('only the latest reconciliation can be undone: 409 for an earlier one, 204 unreconciles, with its change record', async () => {
      const second = await json(await reconcile('Bank', { statement_date: '2026-02-28', statement_balance_cents: 102_450, transaction_ids: [late] }));
      expect(second.transaction_ids).toEqual([late]);
      const [newest, first] = await json(await api('GET', `/accounts/${ids.Bank}/reconciliations`));
      expect(newest.id).toBe(second.id);
      const refused = await api('DELETE', `/reconciliations/${first.id}`);
      expect(refused.status).toBe(409);
      expect(await json(refused)).toEqual({ error: "only the account's latest reconciliation can be undone" });

      expect((await api('DELETE', `/reconciliations/${second.id}`)).status).toBe(204);
      expect(await latestChange()).toMatchObject({ subject: 'reconciliation', subject_id: second.id, action: 'delete', before: second, after: null });
      expect((await status('Bank', '2026-02-28')).unreconciled.map((u: Json) => u.transaction_id)).toEqual([late]);
      // Unreconciled again: the spec's answers come back.
      const moved = await api('PUT', `/transactions/${late}`, tx('After the statement', 1_000, '2026-02-06', 'Bank', 'Food'));
      expect(moved.status).toBe(200);
      expect((await api('DELETE', `/reconciliations/${second.id}`)).status).toBe(404);
    });

    it('a card (liability) is reconciled in natural sign: its debt positive', async () => {
      await post(tx('Hardware store', 35_000, '2026-01-03', 'Visa card', 'Food'));
      await post(tx('Paid the card', 20_000, '2026-01-25', 'Bank', 'Visa card'));
      const s = await status('Visa card', '2026-01-31');
      expect(s.book_balance_cents).toBe(15_000);
      expect(s.unreconciled.map((u: Json) => u.amount_cents)).toEqual([35_000, -20_000]);
      const wrongWay = await reconcile('Visa card', { statement_date: '2026-01-31', statement_balance_cents: -15_000 });
      expect(wrongWay.status).toBe(409);
      expect((await json(wrongWay)).difference_cents).toBe(-30_000);
      const res = await reconcile('Visa card', { statement_date: '2026-01-31', statement_balance_cents: 15_000 });
      expect(res.status, await res.clone().text()).toBe(201);
      expect((await status('Visa card')).reconciled_balance_cents).toBe(15_000);
    });

    it('removing the author of a reconciled transaction is never refused (its created_by becomes null)', async () => {
      const other = 'helper@reconcile.example';
      const { token: theirs } = await h.userWithToken(other);
      const res = await h.call(theirs, 'POST', '/transactions', tx('Posted by a helper', 700, '2026-03-01', 'Dues', 'Savings'));
      const id = (await json(res)).id;
      const reconciled = await reconcile('Savings', { statement_date: '2026-03-31', statement_balance_cents: 700 });
      expect(reconciled.status, await reconciled.clone().text()).toBe(201);
      await removeUser(h.db, other);
      expect((await json(await api('GET', `/transactions/${id}`))).created_by_email).toBeNull();
    });
  });

  describe('closed periods (D20)', () => {
    let closedTx: number;

    beforeAll(async () => {
      closedTx = await post(tx('Hall rent 2025', 30_000, '2025-12-15', 'Bank', 'Food'));
    });

    it('GET /settings has currency and closed_through; PUT is a patch; anything else is 422 and changes nothing', async () => {
      expect(await json(await api('GET', '/settings'))).toEqual({ book_style: 'personal', currency: 'EUR', closed_through: null });
      const usd = await api('PUT', '/settings', { currency: 'USD' });
      expect(await json(usd)).toEqual({ book_style: 'personal', currency: 'USD', closed_through: null });
      expect(await latestChange()).toMatchObject({ subject: 'settings', before: { currency: 'EUR' }, after: { currency: 'USD' } });
      const before = await changeCount();
      for (const body of [{}, { currency: 'JPY' }, { currency: 'usd' }, { currency: 'EURO' }, { closed_through: '2025-02-30' }, { closed_through: 20251231 }, { book_style: 'family' }]) {
        const res = await api('PUT', '/settings', body);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      }
      expect(await changeCount()).toBe(before);
      expect(await json(await api('PUT', '/settings', { currency: 'EUR' }))).toMatchObject({ currency: 'EUR' });
    });

    it('closing the books refuses creating, correcting, deleting and restoring anything dated on or before it: 409 over HTTP, MCP and SQL', async () => {
      const deletedFirst = await post(tx('Deleted before closing', 100, '2025-11-01', 'Bank', 'Food'));
      expect((await api('DELETE', `/transactions/${deletedFirst}`)).status).toBe(204);
      const open = await post(tx('January', 100, '2026-01-02', 'Bank', 'Food'));

      const closing = await api('PUT', '/settings', { closed_through: '2025-12-31' });
      expect(await json(closing)).toMatchObject({ closed_through: '2025-12-31' });
      expect(await latestChange()).toMatchObject({ subject: 'settings', before: { closed_through: null }, after: { closed_through: '2025-12-31' } });

      const before = await changeCount();
      const message = { error: 'the books are closed through 2025-12-31' };
      const refusals = {
        create: await api('POST', '/transactions', tx('Late entry', 100, '2025-12-31', 'Bank', 'Food')),
        correct: await api('PUT', `/transactions/${closedTx}`, tx('Hall rent 2025', 30_100, '2025-12-15', 'Bank', 'Food')),
        describe: await api('PUT', `/transactions/${closedTx}`, tx('Hall rent, December', 30_000, '2025-12-15', 'Bank', 'Food')),
        moveOut: await api('PUT', `/transactions/${closedTx}`, tx('Hall rent 2025', 30_000, '2026-01-15', 'Bank', 'Food')),
        moveIn: await api('PUT', `/transactions/${open}`, tx('January', 100, '2025-12-31', 'Bank', 'Food')),
        delete: await api('DELETE', `/transactions/${closedTx}`),
        restore: await api('POST', `/transactions/${deletedFirst}/restore`),
      };
      for (const [what, res] of Object.entries(refusals)) {
        expect(res.status, what).toBe(409);
        expect(await json(res), what).toEqual(message);
      }
      for (const [name, args] of [
        ['delete_transaction', { id: closedTx }],
        ['update_transaction', { id: closedTx, ...tx('Hall rent, by MCP', 30_000, '2025-12-15', 'Bank', 'Food') }],
        ['restore_transaction', { id: deletedFirst }],
      ] as const) {
        const result = await tool(name, args);
        expect(result.isError, name).toBe(true);
        expect(result.content[0].text, name).toBe(message.error);
      }
      const viaMcp = await tool('record_money_out', { from_account_id: ids.Bank, to_account_id: ids.Food, amount_cents: 100, description: 'By MCP', occurred_on: '2025-06-01' });
      expect(viaMcp.isError).toBe(true);
      expect(viaMcp.content[0].text).toBe(message.error);
      await expect(h.db.transaction(async (t) => { await t.execute(sql`update entries set amount_cents = -amount_cents where transaction_id = ${closedTx}`); }))
        .rejects.toSatisfy((e: Json) => { for (let c = e; c; c = c.cause) if (c.code) return c.code === 'LR002'; return false; });
      expect(await changeCount()).toBe(before);
      expect((await json(await api('GET', `/transactions/${closedTx}`))).description).toBe('Hall rent 2025');

      // The day after is open.
      expect((await api('POST', '/transactions', tx('New year', 100, '2026-01-01', 'Bank', 'Food'))).status).toBe(201);

      // Reopening, with its record, lets the correction through.
      const reopened = await api('PUT', '/settings', { closed_through: null });
      expect(await json(reopened)).toMatchObject({ closed_through: null });
      expect(await latestChange()).toMatchObject({ subject: 'settings', before: { closed_through: '2025-12-31' }, after: { closed_through: null } });
      expect((await api('PUT', `/transactions/${closedTx}`, tx('Hall rent, December', 30_000, '2025-12-15', 'Bank', 'Food'))).status).toBe(200);
    });
  });

  describe('account names are unique without regard to case (D6)', () => {
    it('a case twin is 400 on create and rename; a case variant of its own name is a rename', async () => {
      const box = await json(await api('POST', '/accounts', { name: 'Cash box', kind: 'asset' }));
      const twin = await api('POST', '/accounts', { name: 'cash BOX', kind: 'asset' });
      expect(twin.status).toBe(400);
      expect(await json(twin)).toEqual({ error: 'an account with that name already exists' });
      const other = await json(await api('POST', '/accounts', { name: 'Petty cash', kind: 'asset' }));
      const rename = await api('PUT', `/accounts/${other.id}`, { name: 'CASH BOX' });
      expect(rename.status).toBe(400);
      const own = await api('PUT', `/accounts/${box.id}`, { name: 'Cash Box' });
      expect(await json(own)).toEqual({ id: box.id, name: 'Cash Box', kind: 'asset' });
    });
  });
});
