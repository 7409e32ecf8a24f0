import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, type Harness } from './support/harness';

// Issue 39 (D26, with D8/D18/D24's rules): the budget tools list_budgets, get_budget_report and
// create_budget, through the real MCP SDK client, each answering what its HTTP twin answers
// (GET /budgets, GET /reports/budget, POST /budgets) and refusing in the route's words without
// writing; their descriptions in D12's book-style words ("budget" personal, "plan" club).

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;
type Result = CallToolResult & { structuredContent?: Record<string, any> };

const MCP_URL = 'http://localhost:38081/mcp';

const BUDGET_TOOLS: Record<string, { properties: string[]; required: string[]; readOnly: boolean }> = {
  list_budgets: { properties: [], required: [], readOnly: true },
  get_budget_report: { properties: ['budget_id', 'as_of'], required: ['budget_id'], readOnly: true },
  create_budget: { properties: ['name', 'from', 'to', 'lines'], required: ['name', 'from', 'to', 'lines'], readOnly: false },
};

async function connect(h: Harness, token: string): Promise<Client> {
  const client = new Client({ name: 'ledger-budget-tests', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(MCP_URL), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      fetch: (url, init) => Promise.resolve(h.app.request(String(url), init as RequestInit)),
    }),
  );
  return client;
}

describeEachDatabase('issue 39 (D26): the budget tools over MCP', (h) => {
  let token: string;
  let client: Client;
  const ids: Record<string, number> = {};

  const call = async (name: string, args: Record<string, unknown>): Promise<Result> => (await client.callTool({ name, arguments: args })) as Result;
  const ok = async (name: string, args: Record<string, unknown>): Promise<Json> => {
    const result = await call(name, args);
    expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
    expect(JSON.parse((result.content[0] as { text: string }).text), `${name}: the text is the structured content`).toEqual(result.structuredContent);
    return result.structuredContent;
  };
  const refusal = async (name: string, args: Record<string, unknown>): Promise<string> => {
    const result = await call(name, args);
    expect(result.isError, `${name} ${JSON.stringify(args)}: ${JSON.stringify(result)}`).toBe(true);
    expect(result.structuredContent, name).toBeUndefined();
    return (result.content[0] as { text: string }).text;
  };
  const http = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await h.call(token, method, path, body);
    return { status: res.status, body: res.status === 204 ? null : await res.json() };
  };
  /** Everything a refused create could have written: the budgets and the change log. */
  const written = async () => ({ budgets: (await http('GET', '/budgets')).body, changes: (await http('GET', '/changes?subject=budget')).body });

  beforeAll(async () => {
    ({ token } = await h.userWithToken('budgets-mcp@example.com'));
    client = await connect(h, token);
    for (const [name, kind] of [['Bank', 'asset'], ['Salary', 'income'], ['Gifts', 'income'], ['Groceries', 'expense'], ['Rent', 'expense']] as const) {
      ids[name] = (await http('POST', '/accounts', { name, kind })).body.id;
    }
    const post = async (occurred_on: string, account: string, amount: number) =>
      expect((await http('POST', '/transactions', {
        occurred_on,
        description: `${account} ${occurred_on}`,
        entries: [{ account_id: ids[account], amount_cents: amount }, { account_id: ids.Bank, amount_cents: -amount }],
      })).status).toBe(201);
    await post('2026-01-05', 'Salary', -300_000);
    await post('2026-01-10', 'Groceries', 45_000);
    await post('2026-02-03', 'Rent', 90_000);
    await post('2026-02-12', 'Groceries', 30_000);
    await post('2026-03-20', 'Gifts', -5_000);
  });

  it('D26, D18: the three tools are listed with exactly their arguments, strict input schemas, output schemas and read-only annotations on the reads', async () => {
    const tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
    for (const [name, want] of Object.entries(BUDGET_TOOLS)) {
      const tool = tools.get(name)!;
      expect(tool, name).toBeDefined();
      expect(tool.title, name).toBeTruthy();
      expect(tool.inputSchema.type, name).toBe('object');
      expect(tool.inputSchema.additionalProperties, name).toBe(false);
      expect(Object.keys(tool.inputSchema.properties ?? {}).sort(), name).toEqual([...want.properties].sort());
      expect([...(tool.inputSchema.required ?? [])].sort(), name).toEqual([...want.required].sort());
      expect(tool.outputSchema?.type, name).toBe('object');
      expect(tool.annotations?.readOnlyHint, name).toBe(want.readOnly);
      if (want.readOnly) expect(tool.annotations, name).toMatchObject({ idempotentHint: true });
      else expect(tool.annotations, name).toMatchObject({ destructiveHint: false, idempotentHint: false });
    }
    const line = (tools.get('create_budget')!.inputSchema.properties as Json).lines.items;
    expect(line.properties.per.enum).toEqual(['month', 'period']);
    expect([...line.required].sort()).toEqual(['account_id', 'amount_cents', 'per']);
    expect(tools.get('get_budget_report')!.inputSchema.properties).toMatchObject({ budget_id: { type: 'integer' }, as_of: { type: 'string' } });
    expect(await refusal('list_budgets', { year: 2026 })).toBe('list_budgets takes no argument "year"');
    expect(await refusal('get_budget_report', { id: 1 })).toBe('get_budget_report takes no argument "id"');
  });

  it('D26: create_budget answers what POST /budgets answers, list_budgets what GET /budgets answers, get_budget_report what GET /reports/budget answers', async () => {
    const input = {
      name: 'Household 2026',
      from: '2026-01',
      to: '2026-06',
      lines: [
        { account_id: ids.Salary, amount_cents: 300_000, per: 'month' },
        { account_id: ids.Groceries, amount_cents: 40_000, per: 'month', rollover: true },
        { account_id: ids.Rent, amount_cents: 100_000, per: 'period' },
      ],
    };
    const made = await ok('create_budget', input);
    const stored = (await http('GET', `/budgets/${made.id}`)).body;
    expect(made, 'the answer is the stored budget, as GET /budgets/{id} reads it').toEqual(stored);
    const twin = await http('POST', '/budgets', { ...input, name: 'Household 2026 (HTTP)' });
    expect(twin.status).toBe(201);
    expect({ ...made, id: 0, name: '' }, 'the same body through HTTP gives the same budget').toEqual({ ...twin.body, id: 0, name: '' });
    expect(made.lines.map((l: Json) => [l.account_name, l.kind, l.per, l.rollover])).toEqual([
      ['Salary', 'income', 'month', false],
      ['Groceries', 'expense', 'month', true],
      ['Rent', 'expense', 'period', false],
    ]);
    const change = (await http('GET', `/changes?subject=budget&subject_id=${made.id}`)).body.changes;
    expect(change.map((c: Json) => [c.action, c.after?.id]), 'D15: one change record, as the route writes').toEqual([['create', made.id]]);

    const listed = await ok('list_budgets', {});
    expect(listed).toEqual({ budgets: (await http('GET', '/budgets')).body });
    expect(listed.budgets.map((b: Json) => b.id)).toEqual([made.id, twin.body.id]);

    for (const as_of of ['2025-12-31', '2026-02-15', '2026-07-01']) {
      const report = await ok('get_budget_report', { budget_id: made.id, as_of });
      expect(report, `as_of ${as_of}`).toEqual((await http('GET', `/reports/budget?id=${made.id}&as_of=${as_of}`)).body);
    }
    const today = await ok('get_budget_report', { budget_id: made.id });
    expect(today, 'as_of defaults to today as the route does').toEqual((await http('GET', `/reports/budget?id=${made.id}`)).body);
    // The figures are the book's: not both sides of a wrong answer.
    const report = await ok('get_budget_report', { budget_id: made.id, as_of: '2026-02-15' });
    expect(report.lines.map((l: Json) => [l.account_name, l.planned_cents, l.actual_cents, l.planned_to_date_cents])).toEqual([
      ['Salary', 1_800_000, 300_000, 600_000],
      ['Groceries', 240_000, 75_000, 80_000],
      ['Rent', 100_000, 90_000, 100_000],
    ]);
    expect(report.unbudgeted).toEqual([{ account_id: ids.Gifts, account_name: 'Gifts', kind: 'income', actual_cents: 5_000 }]);
  });

  it('D8, D26: a bad argument is refused with the HTTP twin\'s message and writes nothing', async () => {
    const base = { name: 'Refused', from: '2026-01', to: '2026-12', lines: [] as Json[] };
    const before = await written();
    const bad: Record<string, unknown>[] = [
      { ...base, lines: [{ account_id: ids.Bank, amount_cents: 1_000, per: 'month' }] },
      { ...base, lines: [{ account_id: ids.Rent, amount_cents: 1_000, per: 'month' }, { account_id: ids.Rent, amount_cents: 5, per: 'period' }] },
      { ...base, lines: [{ account_id: 999_999, amount_cents: 1_000, per: 'month' }] },
      { ...base, lines: [{ account_id: ids.Rent, amount_cents: 1_000, per: 'period', rollover: true }] },
      { ...base, lines: [{ account_id: ids.Rent, amount_cents: -1, per: 'month' }] },
      { ...base, from: '2026-12', to: '2026-01' },
      { ...base, from: '2026-01', to: '2029-01' },
      { ...base, from: '2026-13' },
      { ...base, name: '   ' },
      { ...base, name: 'household 2026' },
      { name: 'No lines', from: '2026-01', to: '2026-02' },
    ];
    for (const args of bad) {
      const route = await http('POST', '/budgets', args);
      expect(route.status, JSON.stringify(args)).toBe(400);
      expect(await refusal('create_budget', args), JSON.stringify(args)).toBe(route.body.error);
    }
    expect(await refusal('create_budget', { ...base, owner: 'me' })).toBe('create_budget takes no argument "owner"');
    expect(await written(), 'nothing was written by any refusal').toEqual(before);

    const some = before.budgets[0].id;
    expect(await refusal('get_budget_report', { budget_id: 1_999_999 })).toBe((await http('GET', '/reports/budget?id=1999999')).body.error);
    expect(await refusal('get_budget_report', { budget_id: 1_999_999 })).toBe('no such budget');
    expect(await refusal('get_budget_report', { budget_id: some, as_of: '2026-02-30' })).toBe(
      (await http('GET', `/reports/budget?id=${some}&as_of=2026-02-30`)).body.error,
    );
    expect(await refusal('get_budget_report', { budget_id: 0 })).toBe('budget_id must be a positive integer');
    expect(await refusal('get_budget_report', { budget_id: String(some) })).toBe('budget_id must be a positive integer');
    expect(await refusal('get_budget_report', { budget_id: 1.5 })).toBe('budget_id must be a positive integer');
  });

  it('D12: the descriptions say "budget" in a personal book and "plan" in a club\'s, with no household words there', async () => {
    const listed = async () => new Map((await client.listTools()).tools.map((t) => [t.name, t]));
    const personal = await listed();
    expect(personal.get('list_budgets')!.title).toBe('List budgets');
    expect(personal.get('create_budget')!.title).toBe('Create a budget');
    expect(personal.get('create_budget')!.description).toMatch(/^Create a budget: /);
    expect(personal.get('create_budget')!.description).toContain('income (Income) or expense (Spending categories) account');
    expect(personal.get('get_budget_report')!.description).toMatch(/^Read a budget /);
    expect((await http('PUT', '/settings', { book_style: 'club' })).status).toBe(200);
    try {
      const club = await listed();
      expect(club.get('list_budgets')!.title).toBe('List plans');
      expect(club.get('create_budget')!.title).toBe('Create a plan');
      expect(club.get('get_budget_report')!.title).toBe('Compare a plan with what happened');
      expect(club.get('list_budgets')!.description).toMatch(/^List the plans, /);
      expect(club.get('create_budget')!.description).toMatch(/^Create a plan: /);
      expect(club.get('create_budget')!.description).toContain('income (Income (dues, donations, events)) or expense (Payments (venue, kit, events)) account');
      expect(club.get('get_budget_report')!.description).toMatch(/^Read a plan /);
      for (const name of Object.keys(BUDGET_TOOLS)) {
        const { title, description } = club.get(name)!;
        // The argument and field names (budget_id, unbudgeted) are the protocol's, not wording.
        const words = `${title} ${description}`.toLowerCase().replace(/budget_id|list_budgets|unbudgeted/g, '');
        expect(words, `${name} says "budget" in club style`).not.toMatch(/budget/);
        for (const household of ['what we owe', 'money we have', 'salary', 'groceries', 'spending', 'spend ']) {
          expect(words, `${name} says "${household}" in club style`).not.toContain(household);
        }
      }
    } finally {
      await http('PUT', '/settings', { book_style: 'personal' });
    }
  });
});
