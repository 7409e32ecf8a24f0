import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { describeEachDatabase } from './support/harness';

// Issue 4/7 item 2 (D15): the change log is complete by construction. Random sequences of
// creates, edits, deletes, restores, renames and settings changes, each sent over a token, a
// cookie session or MCP, many of them refused; after each sequence, folding the whole log from an
// empty book gives back the accounts, transactions and settings exactly, and every refused request
// left no record.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;
type Channel = 'token' | 'session' | 'mcp';

const KINDS = ['asset', 'liability', 'equity', 'income', 'expense'] as const;

/** A command, with indexes into the ids seen so far (or a fresh one), so that many name real rows. */
const command = fc.oneof(
  fc.record({ op: fc.constant('create_account' as const), name: fc.constantFrom('A', 'B', 'C', 'D', 'E', 'F'), kind: fc.constantFrom(...KINDS) }),
  fc.record({ op: fc.constant('rename_account' as const), pick: fc.nat(), name: fc.constantFrom('A', 'B', 'G', 'H') }),
  fc.record({ op: fc.constant('delete_account' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('post' as const), from: fc.nat(), to: fc.nat(), cents: fc.integer({ min: 1, max: 10_000 }), off: fc.constantFrom(0, 0, 0, 1), day: fc.integer({ min: 1, max: 28 }) }),
  fc.record({ op: fc.constant('edit' as const), pick: fc.nat(), from: fc.nat(), to: fc.nat(), cents: fc.integer({ min: 1, max: 10_000 }), off: fc.constantFrom(0, 0, 1) }),
  fc.record({ op: fc.constant('delete' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('restore' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('settings' as const), style: fc.constantFrom('club', 'personal') }),
);
const step = fc.record({ channel: fc.constantFrom<Channel>('token', 'session', 'mcp'), command });

describeEachDatabase('the change log folds back to the book (D15, property)', (h) => {
  let token: string;
  let person: Browser;
  let client: Client;

  beforeAll(async () => {
    ({ token } = await h.userWithToken('folder@changes.example', 'correct horse battery staple'));
    person = new Browser(h);
    await person.signIn('folder@changes.example', 'correct horse battery staple', new SoftwareAuthenticator());
    client = new Client({ name: 'fold-tests', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://localhost:38081/mcp'), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
        fetch: (url, init) => Promise.resolve(h.app.request(String(url), init as RequestInit)),
      }),
    );
  });
  afterAll(() => client?.close());

  /** One HTTP request over a token or the session; the status and the parsed body. */
  async function http(channel: 'token' | 'session', method: string, path: string, body?: unknown): Promise<{ ok: boolean; body: Json }> {
    const res = channel === 'token' ? await h.call(token, method, path, body) : await person.request(path, { method, json: body });
    expect(res.status, `${method} ${path}`).toBeLessThan(500);
    const text = await res.text();
    return { ok: res.status < 300, body: text ? JSON.parse(text) : undefined };
  }

  async function tool(name: string, args: Record<string, unknown>): Promise<{ ok: boolean; body: Json }> {
    const result = (await client.callTool({ name, arguments: args })) as Json;
    return { ok: !result.isError, body: result.structuredContent };
  }

  const get = async (path: string) => (await http('token', 'GET', path)).body;
  const log = async (): Promise<Json[]> => {
    const all: Json[] = [];
    for (let before: number | null | undefined; before !== null; ) {
      const page = await get(`/changes?limit=500${before ? `&before=${before}` : ''}`);
      all.push(...page.changes);
      before = page.next_before;
    }
    return all.reverse();
  };

  /** Sends one command over its channel; true when it was done, false when it was refused. */
  async function send(channel: Channel, c: Json, accounts: number[], transactions: number[]): Promise<boolean> {
    const pick = (list: number[], i: number) => (list.length ? list[i % list.length]! : 1_999_999);
    const lines = (from: number, to: number, cents: number, off: number) => [
      { account_id: pick(accounts, to), amount_cents: cents },
      { account_id: pick(accounts, from), amount_cents: -(cents - off) },
    ];
    const mcp = channel === 'mcp';
    const via = channel === 'mcp' ? 'token' : channel;
    switch (c.op) {
      case 'create_account':
        return (mcp ? await tool('create_account', { name: c.name, kind: c.kind }) : await http(via, 'POST', '/accounts', { name: c.name, kind: c.kind })).ok;
      case 'rename_account': {
        const id = pick(accounts, c.pick);
        return (mcp ? await tool('rename_account', { id, name: c.name }) : await http(via, 'PUT', `/accounts/${id}`, { name: c.name })).ok;
      }
      case 'delete_account':
        return (await http(via, 'DELETE', `/accounts/${pick(accounts, c.pick)}`)).ok;
      case 'post': {
        const body = { occurred_on: `2026-02-${String(c.day).padStart(2, '0')}`, description: `post ${c.cents}`, entries: lines(c.from, c.to, c.cents, c.off) };
        return (mcp ? await tool('record_transaction', body) : await http(via, 'POST', '/transactions', body)).ok;
      }
      case 'edit': {
        const id = pick(transactions, c.pick);
        const body = { occurred_on: '2026-02-14', description: `edit ${c.cents}`, entries: lines(c.from, c.to, c.cents, c.off) };
        return (mcp ? await tool('update_transaction', { id, ...body }) : await http(via, 'PUT', `/transactions/${id}`, body)).ok;
      }
      case 'delete': {
        const id = pick(transactions, c.pick);
        return (mcp ? await tool('delete_transaction', { id }) : await http(via, 'DELETE', `/transactions/${id}`)).ok;
      }
      case 'restore': {
        const id = pick(transactions, c.pick);
        return (mcp ? await tool('restore_transaction', { id }) : await http(via, 'POST', `/transactions/${id}/restore`)).ok;
      }
      case 'settings':
        return (await http(via, 'PUT', '/settings', { book_style: c.style })).ok;
    }
    throw new Error(`unknown command ${c.op}`);
  }

  it('any sequence over token, session and MCP: the folded log is the book, and refusals leave no record', async () => {
    const everyTransaction = new Set<number>();
    const outcomes = { done: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        for (const { channel, command: c } of steps) {
          const accounts = ((await get('/accounts')) as Json[]).map((a) => a.id);
          for (const t of (await get('/transactions')) as Json[]) everyTransaction.add(t.id);
          const before = (await get('/changes?limit=1')).changes[0]?.id ?? 0;
          const done = await send(channel, c, accounts, [...everyTransaction]);
          outcomes[done ? 'done' : 'refused'] += 1;
          const newest = (await get('/changes?limit=2')).changes.filter((r: Json) => r.id > before);
          // Exactly one record per change, none for a refusal.
          expect(newest.length, `${channel} ${JSON.stringify(c)} ${done ? 'done' : 'refused'}`).toBe(done ? 1 : 0);
        }
        const state = { account: new Map<number, Json>(), transaction: new Map<number, Json>(), settings: { book_style: 'personal', currency: 'EUR', closed_through: null } as Json };
        for (const r of await log()) {
          if (r.subject === 'settings') state.settings = r.after;
          else if (r.after === null) state[r.subject as 'account' | 'transaction'].delete(r.subject_id);
          else state[r.subject as 'account' | 'transaction'].set(r.subject_id, r.after);
        }
        const accounts = (await get('/accounts')) as Json[];
        const byId = (a: Json, b: Json) => a.id - b.id;
        expect([...state.account.values()].sort(byId)).toEqual([...accounts].sort(byId));
        // A rename after a post changes the account_name a transaction shows: fold with today's names.
        const names = new Map(accounts.map((a) => [a.id, a.name]));
        const folded = [...state.transaction.values()].map((t) => ({ ...t, entries: t.entries.map((e: Json) => ({ ...e, account_name: names.get(e.account_id) })) }));
        expect(folded.sort(byId)).toEqual([...((await get('/transactions')) as Json[])].sort(byId));
        expect(state.settings).toEqual(await get('/settings'));
      }),
      { numRuns: 12 },
    );
    // The control: the sequences did change the book, and were refused too.
    expect(outcomes.done, JSON.stringify(outcomes)).toBeGreaterThan(5);
    expect(outcomes.refused, JSON.stringify(outcomes)).toBeGreaterThan(5);
  }, 120_000);
});
