import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import { rowsOf } from '../src/db/database';
import { GENERIC_FAULT } from '../src/http/errors';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { SdkOAuthProvider } from './support/mcp-oauth';
import { describeEachDatabase, type Harness } from './support/harness';

const MCP_URL = 'http://localhost:38081/mcp';

/** The SDK's own client, its requests answered by our app (the real Hono app, real database). */
function sdkTransport(h: Harness, options: { token?: string; authProvider?: OAuthClientProvider } = {}) {
  return new StreamableHTTPClientTransport(new URL(MCP_URL), {
    requestInit: options.token ? { headers: { authorization: `Bearer ${options.token}` } } : undefined,
    authProvider: options.authProvider,
    fetch: (url, init) => Promise.resolve(h.app.request(String(url), init as RequestInit)),
  });
}

async function connect(h: Harness, token: string): Promise<Client> {
  const client = new Client({ name: 'ledger-tests', version: '1.0.0' });
  await client.connect(sdkTransport(h, { token }));
  return client;
}

type Result = CallToolResult & { structuredContent?: Record<string, unknown> };

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Result> {
  return (await client.callTool({ name, arguments: args })) as Result;
}

function errorText(result: Result): string {
  expect(result.isError, JSON.stringify(result)).toBe(true);
  const [first] = result.content;
  return first?.type === 'text' ? first.text : '';
}

const TOOLS = [
  'create_account',
  'create_budget',
  'create_person',
  'create_schedule',
  'delete_transaction',
  'get_budget_report',
  'get_person_statement',
  'get_reconciliation',
  'get_report',
  'get_settings',
  'get_transaction',
  'import_statement',
  'list_accounts',
  'list_attachments',
  'list_budgets',
  'list_changes',
  'list_due',
  'list_people',
  'list_schedules',
  'list_transactions',
  'move_money',
  'post_due',
  'preview_statement',
  'reconcile_account',
  'record_money_in',
  'record_money_out',
  'record_transaction',
  'rename_account',
  'restore_transaction',
  'search_transactions',
  'update_transaction',
  'who_owes',
];

describeEachDatabase('MCP endpoint /mcp (D8)', (h) => {
  let token: string;
  let client: Client;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    ({ token } = await h.userWithToken('assistant-owner@example.com'));
    client = await connect(h, token);
    for (const [name, kind] of [
      ['Bank', 'asset'],
      ['Cash box', 'asset'],
      ['Salary', 'income'],
      ['Groceries', 'expense'],
    ] as const) {
      const res = await h.call(token, 'POST', '/accounts', { name, kind });
      ids[name] = ((await res.json()) as { id: number }).id;
    }
  });

  it('without a token answers the spec 401 with the WWW-Authenticate challenge that starts OAuth', async () => {
    const res = await h.request('/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      'Bearer resource_metadata="http://localhost:38081/.well-known/oauth-protected-resource"',
    );
    expect(await res.json()).toEqual({ error: 'authentication required' });
  });

  it('answers GET and DELETE with 405 (stateless transport)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await h.call(token, method, '/mcp');
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('lists the D8 tools, each with a description and input and output schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.description, tool.name).toBeTruthy();
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
    }
  });

  it('D18: every input schema says additionalProperties false; reads are read-only and idempotent, delete_transaction destructive; no listChanged', async () => {
    const { tools } = await client.listTools();
    for (const tool of tools) {
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
      expect(tool.annotations, tool.name).toBeDefined();
    }
    const annotations = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
    for (const read of ['list_accounts', 'get_settings', 'list_transactions', 'get_report', 'get_transaction', 'list_changes', 'search_transactions']) {
      expect(annotations[read], read).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    }
    expect(annotations.delete_transaction).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(annotations.record_transaction).toMatchObject({ readOnlyHint: false, idempotentHint: false });
    expect(client.getServerCapabilities()?.tools?.listChanged).not.toBe(true);
  });

  it('D18: an argument a tool does not take is refused by name, and nothing is written', async () => {
    const before = await h.call(token, 'GET', '/transactions');
    const beforeList = await before.text();
    const misspelt = await call(client, 'record_money_out', { from_acount_id: 1, to_account_id: 2, amount_cents: 100, description: 'typo' });
    expect(errorText(misspelt)).toBe('record_money_out takes no argument "from_acount_id"');
    const extra = await call(client, 'list_accounts', { verbose: true });
    expect(errorText(extra)).toBe('list_accounts takes no argument "verbose"');
    expect(await (await h.call(token, 'GET', '/transactions')).text()).toBe(beforeList);
  });

  it('D18: the D15 tools answer as their HTTP twins', async () => {
    const accountsList = (await (await h.call(token, 'GET', '/accounts')).json()) as { id: number; name: string; kind: string }[];
    const [first, second] = accountsList;
    const created = await call(client, 'record_transaction', {
      occurred_on: '2026-05-05',
      description: 'Twin check',
      entries: [{ account_id: first!.id, amount_cents: 700 }, { account_id: second!.id, amount_cents: -700 }],
    });
    const id = (created.structuredContent as { id: number }).id;
    const viaHttp = await (await h.call(token, 'GET', `/transactions/${id}`)).json();
    expect((await call(client, 'get_transaction', { id })).structuredContent).toEqual(viaHttp);
    const updated = await call(client, 'update_transaction', {
      id,
      occurred_on: '2026-05-06',
      description: 'Twin check, corrected',
      entries: [{ account_id: first!.id, amount_cents: 800 }, { account_id: second!.id, amount_cents: -800 }],
    });
    expect(updated.structuredContent).toEqual(await (await h.call(token, 'GET', `/transactions/${id}`)).json());
    const searched = await call(client, 'search_transactions', { q: 'TWIN CHECK' });
    expect(searched.structuredContent).toEqual({ transactions: await (await h.call(token, 'GET', '/transactions?q=twin%20check&limit=50')).json() });
    expect((await call(client, 'delete_transaction', { id })).isError).toBeFalsy();
    const restored = await call(client, 'restore_transaction', { id });
    expect(restored.structuredContent).toEqual(await (await h.call(token, 'GET', `/transactions/${id}`)).json());
    expect(errorText(await call(client, 'restore_transaction', { id }))).toBe('the transaction exists');
    const spare = (await (await h.call(token, 'POST', '/accounts', { name: 'MCP spare', kind: 'expense' })).json()) as { id: number };
    const renamed = await call(client, 'rename_account', { id: spare.id, name: 'MCP spare, renamed' });
    expect(renamed.structuredContent).toEqual({ id: spare.id, name: 'MCP spare, renamed', kind: 'expense' });
    const changes = await call(client, 'list_changes', { subject: 'transaction', subject_id: id, limit: 10 });
    expect(changes.structuredContent).toEqual(await (await h.call(token, 'GET', `/changes?subject=transaction&subject_id=${id}&limit=10`)).json());
    expect((changes.structuredContent as { changes: { action: string }[] }).changes.map((c) => c.action)).toEqual(['restore', 'delete', 'update', 'create']);
    expect(errorText(await call(client, 'get_transaction', { id: 1999999 }))).toBe('no such transaction');
  });

  it('advertises the arguments of the valibot schemas that check them (D8), though the SDK does not enforce them', async () => {
    const input = Object.fromEntries((await client.listTools()).tools.map((t) => [t.name, t.inputSchema]));
    expect(input.record_transaction).toMatchObject({
      type: 'object',
      required: ['description', 'entries'],
      properties: {
        occurred_on: { type: 'string' },
        description: { type: 'string', minLength: 1 },
        entries: {
          type: 'array',
          minItems: 2,
          maxItems: 100,
          items: { required: ['account_id', 'amount_cents'], properties: { amount_cents: { type: 'integer' } } },
        },
      },
    });
    expect(input.record_money_in).toMatchObject({
      required: ['from_account_id', 'to_account_id', 'amount_cents', 'description'],
      properties: { amount_cents: { type: 'integer', minimum: 1, maximum: 10 ** 15 }, to_account_id: { type: 'integer' } },
    });
    expect(input.get_report?.properties).toMatchObject({
      report: { enum: ['balances', 'balance_sheet', 'income_statement', 'monthly'] },
      as_of: { type: 'string' },
    });
    expect(input.create_account?.properties).toMatchObject({ kind: { enum: ['asset', 'liability', 'equity', 'income', 'expense'] } });
  });

  it('get_report advertises the D7 shape of each report as its structured output (D7, D8)', async () => {
    const tool = (await client.listTools()).tools.find((t) => t.name === 'get_report')!;
    type Shape = { type?: string; required?: string[]; properties?: Record<string, Shape>; items?: Shape };
    const properties = tool.outputSchema?.properties as Record<string, Shape & { anyOf?: Shape[] }>;
    expect(properties.report).toMatchObject({ enum: ['balances', 'balance_sheet', 'income_statement', 'monthly'] });
    const [balances, sheet, statement, monthly] = properties.result!.anyOf!;
    expect(balances!.required).toEqual(['as_of', 'accounts', 'totals']);
    expect(balances!.properties!.accounts!.items!.required).toEqual(['id', 'name', 'kind', 'balance_cents']);
    expect(balances!.properties!.totals!.required).toEqual(['asset', 'liability', 'equity', 'income', 'expense']);
    expect(sheet!.required).toEqual(['as_of', 'assets', 'liabilities', 'equity', 'net_income_cents', 'balanced']);
    expect(sheet!.properties!.assets!.required).toEqual(['lines', 'total_cents']);
    expect(sheet!.properties!.assets!.properties!.lines!.items!.required).toEqual(['id', 'name', 'balance_cents']);
    expect(statement!.required).toEqual(['from', 'to', 'income', 'expenses', 'net_cents']);
    expect(monthly!.type).toBe('array');
    expect(monthly!.items!.required).toEqual(['month', 'income_cents', 'expense_cents', 'net_cents']);
  });

  it('words every tool description in the book style of the instance (D12)', async () => {
    const descriptions = async () =>
      Object.fromEntries((await client.listTools()).tools.map((t) => [t.name, t.description ?? '']));
    const personal = await descriptions();
    expect(personal.record_money_in).toMatch(/^Money in:/);
    expect(personal.record_money_out).toMatch(/^Money out:/);
    expect(personal.move_money).toMatch(/^Move money:/);
    expect(personal.get_report).toContain('"balance_sheet" (What we have and owe');
    expect(personal.get_report).toContain('"income_statement" (Money in and out');
    for (const name of ['list_accounts', 'create_account']) {
      expect(personal[name]).toContain(
        'asset: Accounts (money we have); liability: What we owe; equity: Starting balances; income: Income; expense: Spending categories',
      );
    }

    expect((await h.call(token, 'PUT', '/settings', { book_style: 'club' })).status).toBe(200);
    try {
      const club = await descriptions();
      expect(club.record_money_in).toMatch(/^Record income:/);
      // Issue 37 item 8 (D12): "receipt" is the file (D22), never money in.
      expect(club.record_money_in).not.toMatch(/receipt/i);
      expect(club.record_money_out).toMatch(/^Record a payment:/);
      expect(club.move_money).toMatch(/^Transfer between funds:/);
      expect(club.get_report).toContain('"balance_sheet" (Statement of funds');
      expect(club.get_report).toContain('"income_statement" (Income and expenditure');
      for (const name of ['list_accounts', 'create_account']) {
        expect(club[name]).toContain(
          'asset: Funds (bank, cash box); liability: What the club owes; equity: Reserves; ' +
            'income: Income (dues, donations, events); expense: Payments (venue, kit, events)',
        );
      }
      // No household wording is left in any description of a club's tools.
      const householdWords = [
        'what we have and owe',
        'money in and out',
        'money we have',
        'what we owe',
        'starting balances',
        'spending',
        'money in:',
        'money out:',
        'move money',
        'salary',
        'groceries',
      ];
      for (const [name, text] of Object.entries(club)) {
        for (const words of householdWords) expect(text.toLowerCase(), `${name} says "${words}" in club style`).not.toContain(words);
      }
    } finally {
      await h.call(token, 'PUT', '/settings', { book_style: 'personal' });
    }
  });

  it('record_money_in: to +amount, from −amount, today by default, authored by the token user', async () => {
    const result = await call(client, 'record_money_in', {
      to_account_id: ids.Bank,
      from_account_id: ids.Salary,
      amount_cents: 250_000,
      description: 'November salary',
    });
    expect(result.isError).toBeFalsy();
    const { id } = result.structuredContent as { id: number };
    const [tx] = (await (await h.call(token, 'GET', '/transactions')).json()) as any[];
    expect(tx).toEqual({
      id,
      occurred_on: new Date().toISOString().slice(0, 10),
      description: 'November salary',
      created_by_email: 'assistant-owner@example.com',
      entries: [
        { account_id: ids.Bank, account_name: 'Bank', amount_cents: 250_000 },
        { account_id: ids.Salary, account_name: 'Salary', amount_cents: -250_000 },
      ],
    });
  });

  it('record_money_out and move_money: from −amount, to +amount (D8, D13)', async () => {
    const out = await call(client, 'record_money_out', {
      from_account_id: ids.Bank,
      to_account_id: ids.Groceries,
      amount_cents: 4_550,
      occurred_on: '2026-03-02',
      description: 'Market',
    });
    const move = await call(client, 'move_money', {
      from_account_id: ids.Bank,
      to_account_id: ids['Cash box'],
      amount_cents: 10_000,
      occurred_on: '2026-03-03',
      description: 'Float for the fair',
    });
    const all = (await (await h.call(token, 'GET', '/transactions')).json()) as any[];
    const entriesOf = (id: number) => all.find((t) => t.id === id).entries.map((e: any) => [e.account_id, e.amount_cents]);
    expect(entriesOf((out.structuredContent as { id: number }).id)).toEqual(
      expect.arrayContaining([
        [ids.Bank, -4_550],
        [ids.Groceries, 4_550],
      ]),
    );
    expect(entriesOf((move.structuredContent as { id: number }).id)).toEqual(
      expect.arrayContaining([
        [ids.Bank, -10_000],
        [ids['Cash box'], 10_000],
      ]),
    );
  });

  it('record_transaction posts a split; list_transactions honours limit and dates', async () => {
    const split = await call(client, 'record_transaction', {
      occurred_on: '2026-03-04',
      description: 'Split',
      entries: [
        { account_id: ids.Groceries, amount_cents: 700 },
        { account_id: ids['Cash box'], amount_cents: 300 },
        { account_id: ids.Bank, amount_cents: -1_000 },
      ],
    });
    expect(split.isError).toBeFalsy();
    const listed = await call(client, 'list_transactions', { from: '2026-03-03', to: '2026-03-04', limit: 1 });
    const { transactions } = listed.structuredContent as { transactions: { description: string; entries: unknown[] }[] };
    expect(transactions.map((t) => t.description)).toEqual(['Split']);
    expect(transactions[0]!.entries).toHaveLength(3);
  });

  /** Everything a refused call could have changed: accounts, transactions and their entries. */
  const books = async () => ({
    accounts: await (await h.call(token, 'GET', '/accounts')).json(),
    transactions: await (await h.call(token, 'GET', '/transactions')).json(),
  });

  /** The HTTP API's own refusal of the same request: its status and its `{error}` text. */
  const httpRefusal = async (method: string, path: string, body?: unknown) => {
    const res = await h.call(token, method, path, body);
    expect(res.status, `${method} ${path} ${JSON.stringify(body)}`).toBeGreaterThanOrEqual(400);
    return ((await res.json()) as { error: string }).error;
  };

  it('D8: record_transaction refuses with the message of POST /transactions, not the SDK text; nothing changes', async () => {
    const before = await books();
    /** Bank gets `debit`, `other` (Salary) gets `credit`. */
    const entries = (debit: unknown, credit: unknown, other = ids.Salary) => [
      { account_id: ids.Bank, amount_cents: debit },
      { account_id: other, amount_cents: credit },
    ];
    const valid = { occurred_on: '2026-03-05', description: 'Refused', entries: entries(5, -5) };
    const { description: _, ...withoutDescription } = valid;
    const cases: [string, Record<string, unknown>, string][] = [
      ['float amount', { ...valid, entries: entries(1.5, -1.5) }, 'entry 1: amount_cents must be an integer'],
      ['string amount', { ...valid, entries: entries(5, '-5') }, 'entry 2: amount_cents must be an integer'],
      ['missing description', withoutDescription, 'description is required'],
      ['blank description', { ...valid, description: '   ' }, 'description is required'],
      ['unbalanced', { ...valid, entries: entries(5, -4) }, 'entries must sum to zero: 2 entries sum to 1'],
      ['unknown account', { ...valid, entries: entries(5, -5, 999_999) }, 'an entry names an account that does not exist'],
      ['bad date', { ...valid, occurred_on: '2026-02-30' }, 'occurred_on must be a date YYYY-MM-DD'],
      ['one entry', { ...valid, entries: valid.entries.slice(0, 1) }, 'a transaction needs at least 2 entries'],
      ['entries not a list', { ...valid, entries: 'Bank 5, Salary -5' }, 'entries must be an array'],
    ];
    for (const [rule, args, message] of cases) {
      expect(await httpRefusal('POST', '/transactions', args), rule).toBe(message);
      expect(errorText(await call(client, 'record_transaction', args)), rule).toBe(message);
    }
    expect(await books()).toEqual(before);
  });

  it('D8: money in, money out and move refuse in the words of the HTTP API; nothing changes', async () => {
    const before = await books();
    const valid = { from_account_id: ids.Bank, to_account_id: ids.Groceries, amount_cents: 5, description: 'Refused' };
    const { description: _, ...withoutDescription } = valid;
    const { to_account_id: __, ...withoutTo } = valid;
    const amount = 'amount_cents must be an integer from 1 to 1000000000000000';
    const cases: [string, Record<string, unknown>, string][] = [
      ['float amount', { ...valid, amount_cents: 1.5 }, amount],
      ['string amount', { ...valid, amount_cents: '5' }, amount],
      ['zero amount', { ...valid, amount_cents: 0 }, amount],
      ['negative amount', { ...valid, amount_cents: -5 }, amount],
      ['amount over the D6 limit', { ...valid, amount_cents: 10 ** 15 + 1 }, amount],
      ['missing description', withoutDescription, 'description is required'],
      ['blank description', { ...valid, description: ' ' }, 'description is required'],
      ['missing account', withoutTo, 'to_account_id is required'],
      ['fractional account', { ...valid, from_account_id: 1.5 }, 'from_account_id must be an integer'],
      ['unknown account', { ...valid, to_account_id: 999_999 }, 'an entry names an account that does not exist'],
      ['bad date', { ...valid, occurred_on: '2026-13-01' }, 'occurred_on must be a date YYYY-MM-DD'],
    ];
    for (const tool of ['record_money_in', 'record_money_out', 'move_money']) {
      for (const [rule, args, message] of cases) {
        expect(errorText(await call(client, tool, args)), `${tool}: ${rule}`).toBe(message);
      }
    }
    expect(await books()).toEqual(before);
  });

  it('D8: the other tools refuse with the message of their HTTP route; nothing changes', async () => {
    const before = await books();
    for (const id of [0, 1.5, 2 ** 31, 999_999]) {
      const http = await httpRefusal('DELETE', `/transactions/${id}`);
      expect(errorText(await call(client, 'delete_transaction', { id })), `id ${id}`).toBe(http);
    }
    expect(errorText(await call(client, 'delete_transaction', { id: '7' }))).toBe('the transaction id must be a positive integer');
    expect(errorText(await call(client, 'delete_transaction', {}))).toBe('id is required');

    const accountBodies = [
      { name: 'Bank', kind: 'asset' },
      { name: 'Odd', kind: 'Asset' },
      { name: 'No kind' },
      { name: 'x'.repeat(101), kind: 'asset' },
    ];
    for (const body of accountBodies) {
      const http = await httpRefusal('POST', '/accounts', body);
      expect(errorText(await call(client, 'create_account', body)), JSON.stringify(body)).toBe(http);
    }

    expect(errorText(await call(client, 'list_transactions', { from: '2026-02-30' }))).toBe(
      await httpRefusal('GET', '/transactions?from=2026-02-30'),
    );
    for (const limit of [0, 1.5, 501, '10']) {
      expect(errorText(await call(client, 'list_transactions', { limit })), `limit ${limit}`).toBe('limit must be an integer from 1 to 500');
    }

    expect(errorText(await call(client, 'get_report', { report: 'balances', as_of: '2026-02-30' }))).toBe(
      await httpRefusal('GET', '/reports/balances?as_of=2026-02-30'),
    );
    expect(errorText(await call(client, 'get_report', { report: 'monthly', from: '2026-13-01' }))).toBe(
      await httpRefusal('GET', '/reports/monthly?from=2026-13-01'),
    );
    expect(errorText(await call(client, 'get_report', { report: 'cash_flow' }))).toBe(
      'report must be one of balances, balance_sheet, income_statement, monthly',
    );
    expect(errorText(await call(client, 'get_report', {}))).toBe('report is required');
    expect(await books()).toEqual(before);
  });

  it('get_report answers each report as the HTTP route does; delete_transaction deletes', async () => {
    for (const [report, path] of [
      ['balances', '/reports/balances?as_of=2026-12-31'],
      ['balance_sheet', '/reports/balance-sheet?as_of=2026-12-31'],
    ] as const) {
      const result = await call(client, 'get_report', { report, as_of: '2026-12-31' });
      expect(result.structuredContent).toEqual({ report, result: await (await h.call(token, 'GET', path)).json() });
    }
    for (const [report, path] of [
      ['income_statement', '/reports/income-statement?from=2026-01-01&to=2026-12-31'],
      ['monthly', '/reports/monthly?from=2026-01-01&to=2026-12-31'],
    ] as const) {
      const result = await call(client, 'get_report', { report, from: '2026-01-01', to: '2026-12-31' });
      expect(result.structuredContent).toEqual({ report, result: await (await h.call(token, 'GET', path)).json() });
    }
    const listed = (await call(client, 'list_transactions', {})).structuredContent as { transactions: { id: number }[] };
    const victim = listed.transactions[0]!.id;
    expect((await call(client, 'delete_transaction', { id: victim })).structuredContent).toEqual({ deleted: victim });
    expect((await h.call(token, 'DELETE', `/transactions/${victim}`)).status).toBe(404);
  });

  it('text-direction controls: create_account and record_transaction refuse a name or description carrying one (isError, the HTTP message); nothing stored', async () => {
    const before = await books();
    for (const hex of ['202E', '202A', '2066', '2069', '200E', '200F', '061C', '2028', '2029']) {
      const ch = String.fromCodePoint(Number.parseInt(hex, 16));
      const account = { name: `Evil${ch}lanif`, kind: 'asset' };
      expect(errorText(await call(client, 'create_account', account)), `U+${hex}`).toBe(
        'name must not contain text-direction control characters or line separators',
      );
      expect(await httpRefusal('POST', '/accounts', account), `U+${hex}`).toBe(
        'name must not contain text-direction control characters or line separators',
      );
      const transaction = {
        occurred_on: '2026-03-06',
        description: `Paid${ch}321`,
        entries: [
          { account_id: ids.Bank, amount_cents: 5 },
          { account_id: ids.Salary, amount_cents: -5 },
        ],
      };
      expect(errorText(await call(client, 'record_transaction', transaction)), `U+${hex}`).toBe(
        'description must not contain text-direction control characters or line separators',
      );
      const money = { from_account_id: ids.Bank, to_account_id: ids.Groceries, amount_cents: 5, description: `x${ch}y` };
      expect(errorText(await call(client, 'record_money_out', money)), `U+${hex}`).toBe(
        'description must not contain text-direction control characters or line separators',
      );
    }
    expect(await books()).toEqual(before);
  });

  it('get_settings and list_accounts return structured content', async () => {
    expect((await call(client, 'get_settings', {})).structuredContent).toEqual({ book_style: 'personal', currency: 'EUR', closed_through: null });
    const { accounts } = (await call(client, 'list_accounts', {})).structuredContent as { accounts: unknown[] };
    expect(accounts).toEqual(await (await h.call(token, 'GET', '/accounts')).json());
  });
});

describeEachDatabase('MCP Origin check (D18: servers must validate Origin against DNS rebinding)', (h) => {
  let token: string;

  beforeAll(async () => {
    ({ token } = await h.userWithToken('origin-owner@example.com'));
  });

  /** A raw JSON-RPC tools/call of list_accounts on /mcp, with the given extra headers. */
  function toolCall(headers: Record<string, string>, method = 'POST'): Promise<Response> {
    return h.request('/mcp', {
      method,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: method === 'POST'
        ? JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_accounts', arguments: {} } })
        : undefined,
    });
  }

  it('D18: a request with Origin WEB_ORIGIN, API_ORIGIN or no Origin at all is served (a bearer tool call succeeds)', async () => {
    for (const origin of [h.config.webOrigin, h.config.apiOrigin, undefined]) {
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (origin) headers.origin = origin;
      const res = await toolCall(headers);
      expect(res.status, String(origin)).toBe(200);
      const body = (await res.json()) as { result?: { isError?: boolean; structuredContent?: { accounts?: unknown } } };
      expect(body.result?.isError, String(origin)).toBeFalsy();
      expect(Array.isArray(body.result?.structuredContent?.accounts), String(origin)).toBe(true);
    }
  });

  it('D18: any other Origin is 403 {"error":"origin not allowed"}, with or without a token, on every method, before authentication', async () => {
    const foreign = [
      'http://evil.example',
      'http://localhost:38081.evil.example',
      'null',
      'http://localhost:38082',
      'https://localhost:38081',
      'http://localhost:38081/',
      'http://127.0.0.1:38081',
    ];
    for (const origin of foreign) {
      for (const method of ['POST', 'GET', 'DELETE']) {
        for (const credential of [{ authorization: `Bearer ${token}` }, {}] as Record<string, string>[]) {
          const what = `${method} from ${origin} ${'authorization' in credential ? 'with' : 'without'} a token`;
          const res = await toolCall({ origin, ...credential }, method);
          expect(res.status, what).toBe(403);
          expect(await res.text(), what).toBe('{"error":"origin not allowed"}');
          expect(res.headers.get('access-control-allow-origin'), what).toBeNull();
          expect(res.headers.get('www-authenticate'), what).toBeNull();
        }
      }
    }
  });
});

describeEachDatabase('MCP tool faults (error rule 3, D8)', (h) => {
  it('an unexpected error inside a tool is logged and answered with the generic sentence, never its SQL text', async () => {
    const { token } = await h.userWithToken('fault-finder@example.com');
    const client = await connect(h, token);
    const account = async (name: string, kind: string) =>
      ((await (await h.call(token, 'POST', '/accounts', { name, kind })).json()) as { id: number }).id;
    const bank = await account('Bank', 'asset');
    const salary = await account('Salary', 'income');
    // A real fault, not a refusal: the tables the queries name are gone (this database is this
    // block's own). The reports read account_day_totals (issue 31 item 5), the rest entries.
    await h.db.execute(sql`alter table entries rename to entries_elsewhere`);
    await h.db.execute(sql`alter table account_day_totals rename to account_day_totals_elsewhere`);

    const calls: [string, Record<string, unknown>][] = [
      ['record_money_in', { to_account_id: bank, from_account_id: salary, amount_cents: 5, description: 'Pay' }],
      ['get_report', { report: 'balances' }],
      ['list_transactions', {}],
    ];
    for (const [tool, args] of calls) {
      const result = await call(client, tool, args);
      expect(errorText(result), tool).toBe(GENERIC_FAULT);
      expect(JSON.stringify(result), tool).not.toMatch(/entries|relation|select|insert|query/i);
    }

    const faults = h.logs.filter((l) => l.event === 'mcp.fault');
    expect(faults.map((l) => [l.level, l.fields.tool])).toEqual(calls.map(([tool]) => ['error', tool]));
    expect(JSON.stringify(faults[0]!.fields), 'the detail goes to the log').toMatch(/entries/);
    const [written] = rowsOf<{ n: number }>(await h.db.execute(sql`select count(*)::int as n from transactions`));
    expect(written!.n).toBe(0);
    await client.close();
  });
});

/**
 * Issue 4/6: the SDK client's own OAuth: 401 → discovery → dynamic registration → authorize →
 * approval from a full session → token → tools/list. The "browser" step is a person approving with
 * a signed-in session; the SDK does every other request itself.
 */
describeEachDatabase('MCP through the SDK client OAuth flow (issue 4/6)', (h) => {
  it('registers, is approved by a signed-in person, exchanges the code and lists tools', async () => {
    await h.userWithToken('oauth-person@example.com', 'a long enough password');
    const person = new Browser(h);
    await person.signIn('oauth-person@example.com', 'a long enough password', new SoftwareAuthenticator());

    const provider = new SdkOAuthProvider({ redirectUrl: 'http://127.0.0.1:43210/callback', clientName: 'SDK test assistant' });
    const transport = sdkTransport(h, { authProvider: provider });
    const client = new Client({ name: 'ledger-oauth-tests', version: '1.0.0' });
    await expect(client.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);

    expect(provider.client?.client_id).toMatch(/^dyn_/);
    const url = provider.authorizationUrl!;
    expect(url.origin + url.pathname).toBe('http://localhost:38081/oauth/authorize');
    const authorize = await h.request(url.pathname + url.search);
    expect(authorize.status).toBe(303);
    expect(authorize.headers.get('location')).toBe(`http://localhost:38080/authorize${url.search}`);

    const approval = await person.post('/oauth/authorize/approve', { ...Object.fromEntries(url.searchParams), approve: true });
    expect(approval.status).toBe(200);
    const redirect = new URL(((await approval.json()) as { redirect: string }).redirect);
    expect(redirect.searchParams.get('state')).toBe(url.searchParams.get('state'));
    await transport.finishAuth(redirect.searchParams.get('code')!);
    expect(provider.saved?.access_token).toMatch(/^lg_/);

    const connected = new Client({ name: 'ledger-oauth-tests', version: '1.0.0' });
    await connected.connect(sdkTransport(h, { authProvider: provider }));
    expect((await connected.listTools()).tools.map((t) => t.name).sort()).toEqual(TOOLS);
    const created = (await connected.callTool({ name: 'create_account', arguments: { name: 'Via OAuth', kind: 'asset' } })) as Result;
    expect(created.structuredContent).toMatchObject({ name: 'Via OAuth', kind: 'asset' });
    await connected.close();
  });
});
