import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, expect, it } from 'vitest';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { bookRequests } from './support/book';
import { describeEachDatabase, type Harness } from './support/harness';
import { json } from './support/http';

// D15: corrections (a transaction read, edited, deleted and restored; an account renamed, its kind
// fixed, deleted when unused), search and paging of the list, and the change log every write
// records in its own database transaction: over a session, a token and MCP alike.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const PASSWORD = 'correct horse battery staple';

describeEachDatabase('corrections and the change log (D15)', (h) => {
  let token: string;
  let email: string;
  let ids: Record<string, number>;
  const browser = () => new Browser(h);
  let person: Browser;

  const { api, move, post } = bookRequests(h, () => token, () => ids);
  const changes = async (query = '') => (await json(await api('GET', `/changes?limit=500${query}`))).changes as Json[];
  const latest = async () => (await changes())[0];

  const tx = (description: string, cents: number, on = '2026-03-01', from = 'Bank', to = 'Food') => move(description, cents, on, from, to);

  beforeAll(async () => {
    email = 'treasurer@corrections.example';
    ({ token } = await h.userWithToken(email, PASSWORD));
    person = browser();
    await person.signIn(email, PASSWORD, new SoftwareAuthenticator());
    ids = {};
    for (const [name, kind] of [['Bank', 'asset'], ['Cash', 'asset'], ['Food', 'expense'], ['Dues', 'income']] as const) {
      ids[name] = (await json(await api('POST', '/accounts', { name, kind }))).id;
    }
  });

  it('GET /transactions/{id} is the list\'s read shape; unknown is 404, a bad id 400', async () => {
    const id = await post(tx('Groceries', 1250));
    const one = await json(await api('GET', `/transactions/${id}`));
    const [listed] = await json(await api('GET', '/transactions?from=2026-03-01&to=2026-03-01'));
    expect(one).toEqual(listed);
    expect(one).toMatchObject({ id, created_by_email: email, entries: [{ account_name: 'Food', amount_cents: 1250 }, { account_name: 'Bank', amount_cents: -1250 }] });
    const missing = await api('GET', '/transactions/2000000');
    expect(missing.status).toBe(404);
    expect(await json(missing)).toEqual({ error: 'no such transaction' });
    expect((await api('GET', '/transactions/abc')).status).toBe(400);
  });

  it('PUT /transactions/{id} replaces date, words and entries at once; id and author stay; the record holds before and after', async () => {
    const id = await post(tx('Lunch', 3000, '2026-03-02'));
    const before = await json(await api('GET', `/transactions/${id}`));
    const res = await api('PUT', `/transactions/${id}`, tx('Lunch with Sam', 3500, '2026-03-03', 'Cash', 'Food'));
    expect(res.status).toBe(200);
    const after = await json(res);
    expect(after).toEqual(await json(await api('GET', `/transactions/${id}`)));
    expect(after).toMatchObject({ id, occurred_on: '2026-03-03', description: 'Lunch with Sam', created_by_email: email });
    expect(after.entries.map((e: Json) => [e.account_name, e.amount_cents])).toEqual([['Food', 3500], ['Cash', -3500]]);
    const record = await latest();
    expect(record).toMatchObject({ subject: 'transaction', subject_id: id, action: 'update', actor_email: email, via: 'token', client_id: 'ledger-cli' });
    expect(record.before).toEqual(before);
    expect(record.after).toEqual(after);
  });

  it('a refused edit changes nothing and records nothing: unbalanced, unknown account, unknown transaction', async () => {
    const id = await post(tx('Bus', 250));
    const before = await json(await api('GET', `/transactions/${id}`));
    const count = (await changes()).length;
    const unbalanced = { ...tx('Bus', 250), entries: [{ account_id: ids.Food!, amount_cents: 250 }, { account_id: ids.Bank!, amount_cents: -249 }] };
    const r1 = await api('PUT', `/transactions/${id}`, unbalanced);
    expect(r1.status).toBe(400);
    expect(await json(r1)).toEqual({ error: 'entries must sum to zero: 2 entries sum to 1' });
    const r2 = await api('PUT', `/transactions/${id}`, { ...tx('Bus', 250), entries: [{ account_id: 1999999, amount_cents: 250 }, { account_id: ids.Bank!, amount_cents: -250 }] });
    expect(r2.status).toBe(400);
    expect((await api('PUT', '/transactions/1999999', tx('Nothing', 1))).status).toBe(404);
    expect(await json(await api('GET', `/transactions/${id}`))).toEqual(before);
    expect((await changes()).length).toBe(count);
  });

  it('delete then restore: the same id, date, words, author and entries; restoring a live one is 409, a never-deleted one 404', async () => {
    const id = await post(tx('Concert tickets', 4200));
    const original = await json(await api('GET', `/transactions/${id}`));
    expect((await api('DELETE', `/transactions/${id}`)).status).toBe(204);
    expect(await latest()).toMatchObject({ subject: 'transaction', subject_id: id, action: 'delete', before: original, after: null });
    const restored = await api('POST', `/transactions/${id}/restore`);
    expect(restored.status).toBe(201);
    expect(await json(restored)).toEqual(original);
    expect(await json(await api('GET', `/transactions/${id}`))).toEqual(original);
    expect(await latest()).toMatchObject({ action: 'restore', subject_id: id, before: null, after: original });
    const again = await api('POST', `/transactions/${id}/restore`);
    expect(again.status).toBe(409);
    expect(await json(again)).toEqual({ error: 'the transaction exists' });
    expect((await api('POST', '/transactions/1999999/restore')).status).toBe(404);
  });

  it('a restore naming an account that is gone is 400 and changes nothing', async () => {
    const temp = (await json(await api('POST', '/accounts', { name: 'Temporary', kind: 'expense' }))).id;
    const id = await post({ occurred_on: '2026-03-05', description: 'Short-lived', entries: [{ account_id: temp, amount_cents: 100 }, { account_id: ids.Bank!, amount_cents: -100 }] });
    expect((await api('DELETE', `/transactions/${id}`)).status).toBe(204);
    expect((await api('DELETE', `/accounts/${temp}`)).status).toBe(204);
    const count = (await changes()).length;
    const res = await api('POST', `/transactions/${id}/restore`);
    expect(res.status).toBe(400);
    expect((await api('GET', `/transactions/${id}`)).status).toBe(404);
    expect((await changes()).length).toBe(count);
  });

  it('accounts: rename, fix the kind, refuse a duplicate or an empty patch, delete only when unused (409 otherwise)', async () => {
    const id = (await json(await api('POST', '/accounts', { name: 'Petty', kind: 'expense' }))).id;
    const renamed = await api('PUT', `/accounts/${id}`, { name: 'Petty cash', kind: 'asset' });
    expect(renamed.status).toBe(200);
    expect(await json(renamed)).toEqual({ id, name: 'Petty cash', kind: 'asset' });
    expect(await latest()).toMatchObject({ subject: 'account', subject_id: id, action: 'update', before: { id, name: 'Petty', kind: 'expense' }, after: { id, name: 'Petty cash', kind: 'asset' } });
    expect(await json(await api('PUT', `/accounts/${id}`, { name: 'Bank' }))).toEqual({ error: 'an account with that name already exists' });
    expect(await json(await api('PUT', `/accounts/${id}`, {}))).toEqual({ error: 'give a name, a kind or both' });
    expect((await api('PUT', '/accounts/1999999', { name: 'Ghost' })).status).toBe(404);
    const used = await api('DELETE', `/accounts/${ids.Bank}`);
    expect(used.status).toBe(409);
    expect(await json(used)).toEqual({ error: 'the account has entries' });
    expect((await api('DELETE', `/accounts/${id}`)).status).toBe(204);
    expect(await latest()).toMatchObject({ subject: 'account', subject_id: id, action: 'delete', before: { id, name: 'Petty cash', kind: 'asset' }, after: null });
    expect((await api('DELETE', `/accounts/${id}`)).status).toBe(404);
  });

  it('the record names the actor: a session (no client), a token (its client), MCP (the token it came with); settings too', async () => {
    const bySession = await person.request('/transactions', { method: 'POST', json: tx('By the web app', 100) });
    expect(bySession.status).toBe(201);
    expect(await latest()).toMatchObject({ actor_email: email, via: 'session', client_id: null, action: 'create' });
    expect((await person.request('/settings', { method: 'PUT', json: { book_style: 'club' } })).status).toBe(200);
    expect(await latest()).toMatchObject({ subject: 'settings', subject_id: null, action: 'update', before: { book_style: 'personal' }, after: { book_style: 'club' }, via: 'session' });
    const client = new Client({ name: 'corrections-tests', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://localhost:38081/mcp'), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
        fetch: (url, init) => Promise.resolve(h.app.request(String(url), init as RequestInit)),
      }),
    );
    const result = (await client.callTool({ name: 'record_money_in', arguments: { from_account_id: ids.Dues, to_account_id: ids.Bank, amount_cents: 2500, description: 'Dues by MCP' } })) as Json;
    await client.close();
    const created = result.structuredContent.id;
    const record = await latest();
    expect(record).toMatchObject({ subject: 'transaction', subject_id: created, action: 'create', actor_email: email, via: 'token', client_id: 'ledger-cli' });
    expect(record.after).toEqual(await json(await api('GET', `/transactions/${created}`)));
    expect((await person.request('/settings', { method: 'PUT', json: { book_style: 'personal' } })).status).toBe(200);
  });

  it('GET /changes pages newest first with next_before, filters by subject and id, and refuses a bad limit', async () => {
    const all = await changes();
    expect(all.map((c: Json) => c.id)).toEqual([...all.map((c: Json) => c.id)].sort((a: number, b: number) => b - a));
    const first = await json(await api('GET', '/changes?limit=2'));
    expect(first.changes).toEqual(all.slice(0, 2));
    const second = await json(await api('GET', `/changes?limit=2&before=${first.next_before}`));
    expect(second.changes).toEqual(all.slice(2, 4));
    const accountsOnly = await changes('&subject=account');
    expect(accountsOnly.length).toBeGreaterThan(0);
    expect(accountsOnly.every((c: Json) => c.subject === 'account')).toBe(true);
    const bank = await changes(`&subject=account&subject_id=${ids.Bank}`);
    expect(bank.map((c: Json) => c.action)).toEqual(['create']);
    expect((await api('GET', '/changes?limit=501')).status).toBe(400);
    expect((await api('GET', '/changes?subject=people')).status).toBe(400);
    const last = await json(await api('GET', `/changes?limit=500&before=${all.at(-1).id}`));
    expect(last).toEqual({ changes: [], next_before: null });
  });

  it('folding the log from empty gives back the accounts, the transactions and the settings as they are', async () => {
    const log = (await changes()).reverse();
    const state = { account: new Map<number, Json>(), transaction: new Map<number, Json>(), settings: { book_style: 'personal' } as Json };
    for (const c of log) {
      if (c.subject === 'settings') state.settings = c.after;
      else if (c.after === null) state[c.subject as 'account' | 'transaction'].delete(c.subject_id);
      else state[c.subject as 'account' | 'transaction'].set(c.subject_id, c.after);
    }
    const accounts = await json(await api('GET', '/accounts'));
    expect([...state.account.values()].sort((a, b) => a.id - b.id)).toEqual([...accounts].sort((a: Json, b: Json) => a.id - b.id));
    const transactions = await json(await api('GET', '/transactions'));
    // A rename after a post changes the account_name the list shows: fold with today's names.
    const names = new Map(accounts.map((a: Json) => [a.id, a.name]));
    const folded = [...state.transaction.values()].map((t) => ({ ...t, entries: t.entries.map((e: Json) => ({ ...e, account_name: names.get(e.account_id) })) }));
    expect(folded.sort((a, b) => a.id - b.id)).toEqual([...transactions].sort((a: Json, b: Json) => a.id - b.id));
    expect(state.settings).toEqual(await json(await api('GET', '/settings')));
  });

  it('search and paging: q (any case, % and _ literal), account_id, limit with Next-Cursor through the whole list in its order', async () => {
    await post(tx('100% Cotton shirt', 1999, '2026-04-01'));
    await post(tx('Cotton_candy', 300, '2026-04-02'));
    const q = await json(await api('GET', `/transactions?q=${encodeURIComponent('COTTON')}`));
    expect(q.map((t: Json) => t.description)).toEqual(['Cotton_candy', '100% Cotton shirt']);
    expect((await json(await api('GET', `/transactions?q=${encodeURIComponent('100%')}`))).map((t: Json) => t.description)).toEqual(['100% Cotton shirt']);
    expect(await json(await api('GET', `/transactions?q=${encodeURIComponent('n_s')}`))).toEqual([]);
    const onCash = await json(await api('GET', `/transactions?account_id=${ids.Cash}`));
    expect(onCash.length).toBeGreaterThan(0);
    expect(onCash.every((t: Json) => t.entries.some((e: Json) => e.account_id === ids.Cash))).toBe(true);
    const whole = await json(await api('GET', '/transactions'));
    const pages: Json[] = [];
    let cursor: string | null = null;
    do {
      const res: Response = await api('GET', `/transactions?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      pages.push(...(await json(res)));
      cursor = res.headers.get('next-cursor');
    } while (cursor);
    // The paged form also says whether each transaction is reconciled (D15, D20) and how many
    // receipts it has (D22); none is reconciled or has a receipt here.
    expect(pages).toEqual(whole.map((t: Json) => ({ ...t, reconciled: false, attachments: 0 })));
    expect((await api('GET', '/transactions?cursor=garbage')).status).toBe(400);
    expect((await api('GET', '/transactions?limit=1001')).status).toBe(400);
    // Without the new parameters, no Next-Cursor and the spec's answer.
    expect((await api('GET', '/transactions')).headers.get('next-cursor')).toBeNull();
  });

  it('two edits of one transaction at once both land, in order in the log; an edit racing a delete is 404 or a whole edit', async () => {
    const id = await post(tx('Raced', 100));
    const [a, b] = await Promise.all([api('PUT', `/transactions/${id}`, tx('Raced A', 111)), api('PUT', `/transactions/${id}`, tx('Raced B', 222))]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const edits = (await changes(`&subject=transaction&subject_id=${id}`)).reverse();
    expect(edits.map((c: Json) => c.action)).toEqual(['create', 'update', 'update']);
    // Each edit's before is the previous one's after: they ran one after the other.
    expect(edits[2].before).toEqual(edits[1].after);
    expect(await json(await api('GET', `/transactions/${id}`))).toEqual(edits[2].after);
    for (let i = 0; i < 5; i++) {
      const victim = await post(tx(`Victim ${i}`, 100 + i));
      const [edit, del] = await Promise.all([api('PUT', `/transactions/${victim}`, tx(`Edited ${i}`, 500 + i)), api('DELETE', `/transactions/${victim}`)]);
      expect([200, 404]).toContain(edit.status);
      expect(del.status).toBe(204);
      expect((await api('GET', `/transactions/${victim}`)).status).toBe(404);
    }
  });
});
