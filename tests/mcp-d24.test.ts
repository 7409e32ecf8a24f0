import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, type Harness } from './support/harness';

// D24: the tools over D16 (statements in) and D20–D22 (reconciliation, schedules, receipts), each
// answering what its HTTP twin answers and refusing with the route's message.

const MCP_URL = 'http://localhost:38081/mcp';
const MONTH_END = readFileSync(new URL('./fixtures/imports/camt053-month-end.xml', import.meta.url), 'utf8');
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

type Result = CallToolResult & { structuredContent?: Record<string, any> };
type Json = any;

async function connect(h: Harness, token: string): Promise<Client> {
  const client = new Client({ name: 'ledger-d24-tests', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(MCP_URL), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      fetch: (url, init) => Promise.resolve(h.app.request(String(url), init as RequestInit)),
    }),
  );
  return client;
}

function setUp(h: Harness, email: string) {
  const s = {} as { token: string; client: Client; ids: Record<string, number> };
  beforeAll(async () => {
    ({ token: s.token } = await h.userWithToken(email));
    s.client = await connect(h, s.token);
    s.ids = {};
    for (const [name, kind] of [
      ['Bank', 'asset'],
      ['Starting balances', 'equity'],
      ['Salary', 'income'],
      ['Groceries', 'expense'],
      ['To sort', 'expense'],
    ] as const) {
      s.ids[name] = ((await (await h.call(s.token, 'POST', '/accounts', { name, kind })).json()) as { id: number }).id;
    }
  });
  const call = async (name: string, args: Record<string, unknown>): Promise<Result> => (await s.client.callTool({ name, arguments: args })) as Result;
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
    const res = await h.call(s.token, method, path, body);
    return { status: res.status, body: res.status === 204 ? null : await res.json() };
  };
  return { s, call, ok, refusal, http };
}

const NEW_TOOLS: Record<string, { properties: string[]; required: string[]; readOnly: boolean }> = {
  get_reconciliation: { properties: ['account_id', 'as_of'], required: ['account_id'], readOnly: true },
  reconcile_account: {
    properties: ['account_id', 'statement_date', 'statement_balance_cents', 'transaction_ids'],
    required: ['account_id', 'statement_date', 'statement_balance_cents'],
    readOnly: false,
  },
  list_schedules: { properties: [], required: [], readOnly: true },
  create_schedule: {
    properties: ['description', 'entries', 'start_on', 'every', 'interval', 'until_on', 'mode'],
    required: ['description', 'entries', 'start_on', 'every', 'mode'],
    readOnly: false,
  },
  list_due: { properties: ['through'], required: [], readOnly: true },
  post_due: { properties: ['schedule_id', 'occurs_on'], required: ['schedule_id', 'occurs_on'], readOnly: false },
  list_attachments: { properties: ['transaction_id'], required: ['transaction_id'], readOnly: true },
  preview_statement: {
    properties: ['account_id', 'format', 'content', 'unmatched_account_id', 'csv', 'match_days', 'counter_accounts'],
    required: ['account_id', 'format', 'content', 'unmatched_account_id'],
    readOnly: true,
  },
  import_statement: {
    properties: ['account_id', 'format', 'content', 'unmatched_account_id', 'csv', 'match_days', 'counter_accounts', 'matches'],
    required: ['account_id', 'format', 'content', 'unmatched_account_id'],
    readOnly: false,
  },
};

describeEachDatabase('D24: the month-end by an assistant (statement → links → import → agree → reconcile)', (h) => {
  const { s, ok, http } = setUp(h, 'month-end@example.com');

  it('an MCP client handed a camt.053 file previews it, links the hand-entered lines, imports the rest, sees the statement agree and reconciles', async () => {
    const { Bank, Salary, Groceries } = s.ids as Record<string, number>;
    // The book before the statement: the opening balance, and two lines typed by hand during the month.
    await ok('record_transaction', {
      occurred_on: '2026-04-30',
      description: 'Opening balance',
      entries: [{ account_id: Bank, amount_cents: 100_000 }, { account_id: s.ids['Starting balances'], amount_cents: -100_000 }],
    });
    const groceries = (await ok('record_money_out', { from_account_id: Bank, to_account_id: Groceries, amount_cents: 4_550, occurred_on: '2026-05-01', description: 'Market' })).id;
    const salary = (await ok('record_money_in', { to_account_id: Bank, from_account_id: Salary, amount_cents: 250_000, occurred_on: '2026-05-03', description: 'May salary' })).id;

    const statement = { account_id: Bank, format: 'camt053', content: MONTH_END, unmatched_account_id: s.ids['To sort'] };
    const preview = await ok('preview_statement', statement);
    expect(preview, 'preview_statement answers what POST /imports/preview answers').toEqual((await http('POST', '/imports/preview', statement)).body);
    expect(preview.lines.map((l: Json) => [l.line, l.amount_cents, l.duplicate_of, l.match_of])).toEqual([
      [1, -4_550, null, groceries],
      [2, 250_000, null, salary],
      [3, -80_000, null, null],
      [4, -490, null, null],
    ]);
    expect(preview.statement).toEqual({ opening: { on: '2026-04-30', amount_cents: 100_000 }, closing: { on: '2026-05-31', amount_cents: 264_960 } });
    expect(preview).toMatchObject({ errors: [], book_closing_cents: 264_960, agrees: true });

    const matches = preview.lines.filter((l: Json) => l.match_of !== null).map((l: Json) => ({ line: l.line, transaction_id: l.match_of }));
    const imported = await ok('import_statement', { ...statement, matches });
    expect(imported).toMatchObject({ duplicates: [], errors: [], linked: [groceries, salary] });
    expect(imported.created).toHaveLength(2);
    const created = (await http('GET', `/transactions/${imported.created[0]}`)).body;
    expect(created).toMatchObject({ occurred_on: '2026-05-15', created_by_email: 'month-end@example.com' });

    const status = await ok('get_reconciliation', { account_id: Bank, as_of: '2026-05-31' });
    expect(status, 'get_reconciliation answers what GET /accounts/{id}/reconciliation answers').toEqual(
      (await http('GET', `/accounts/${Bank}/reconciliation?as_of=2026-05-31`)).body,
    );
    expect(status.book_balance_cents, "the book agrees with the statement's closing balance").toBe(preview.statement.closing.amount_cents);
    expect(status).toMatchObject({ last: null, reconciled_balance_cents: 0 });
    expect(status.unreconciled).toHaveLength(5);

    const reconciled = await ok('reconcile_account', { account_id: Bank, statement_date: '2026-05-31', statement_balance_cents: 264_960 });
    expect([reconciled], 'reconcile_account answers the Reconciliation GET /accounts/{id}/reconciliations lists').toEqual(
      (await http('GET', `/accounts/${Bank}/reconciliations`)).body,
    );
    expect(reconciled.transaction_ids).toHaveLength(5);
    expect(reconciled.created_by_email).toBe('month-end@example.com');
    expect(await ok('get_reconciliation', { account_id: Bank, as_of: '2026-05-31' })).toMatchObject({
      last: reconciled,
      reconciled_balance_cents: 264_960,
      book_balance_cents: 264_960,
      unreconciled: [],
    });
    // The statement imported again: every line a duplicate, nothing created.
    expect(await ok('import_statement', statement)).toEqual({ created: [], duplicates: [1, 2, 3, 4], errors: [] });
  });
});

describeEachDatabase('D24 tools: listed, twins of their routes, refused in the routes’ words', (h) => {
  const { s, call, ok, refusal, http } = setUp(h, 'd24-tools@example.com');

  it('D24, D18: each new tool is listed with a description, strict input schema of exactly its D24 arguments, an output schema and annotations', async () => {
    const tools = new Map((await s.client.listTools()).tools.map((t) => [t.name, t]));
    for (const [name, want] of Object.entries(NEW_TOOLS)) {
      const tool = tools.get(name)!;
      expect(tool, name).toBeDefined();
      expect(tool.description, name).toBeTruthy();
      expect(tool.inputSchema.type, name).toBe('object');
      expect(tool.inputSchema.additionalProperties, name).toBe(false);
      expect(Object.keys(tool.inputSchema.properties ?? {}).sort(), name).toEqual([...want.properties].sort());
      expect([...(tool.inputSchema.required ?? [])].sort(), name).toEqual([...want.required].sort());
      expect(tool.outputSchema?.type, name).toBe('object');
      expect(tool.annotations?.readOnlyHint, name).toBe(want.readOnly);
      if (want.readOnly) expect(tool.annotations, name).toMatchObject({ idempotentHint: true });
      else expect(tool.annotations?.destructiveHint, name).toBe(false);
    }
    expect(tools.get('import_statement')!.annotations?.idempotentHint, 'D16: importing the same file twice creates nothing').toBe(true);
    expect(tools.get('reconcile_account')!.annotations?.idempotentHint).toBe(false);
    expect(tools.get('preview_statement')!.inputSchema.properties).toMatchObject({ format: { enum: ['csv', 'ofx', 'camt053'] } });
    expect(tools.get('create_schedule')!.inputSchema.properties).toMatchObject({ every: { enum: ['week', 'month', 'year'] }, mode: { enum: ['post', 'remind'] } });
    expect(await refusal('list_schedules', { verbose: true })).toBe('list_schedules takes no argument "verbose"');
    expect(await refusal('post_due', { schedule_id: 1, occurs_on: '2026-01-01', occurred_on: '2026-01-02' })).toBe('post_due takes no argument "occurred_on"');
  });

  it('D12: the new descriptions follow the book style (club words, no household words)', async () => {
    const describe = async () => Object.fromEntries((await s.client.listTools()).tools.map((t) => [t.name, t.description ?? '']));
    expect((await describe()).list_schedules).toContain('money in such as a salary');
    expect((await http('PUT', '/settings', { book_style: 'club' })).status).toBe(200);
    try {
      const club = await describe();
      expect(club.list_schedules).toContain('income such as membership dues, payment such as venue hire');
      expect(club.get_reconciliation).toContain('Funds (bank, cash box)');
      for (const name of Object.keys(NEW_TOOLS)) {
        for (const words of ['what we owe', 'money we have', 'salary', 'groceries', 'spending']) {
          expect(club[name]!.toLowerCase(), `${name} says "${words}" in club style`).not.toContain(words);
        }
      }
    } finally {
      await http('PUT', '/settings', { book_style: 'personal' });
    }
  });

  it('D21: create_schedule → list_schedules → list_due → post_due round trip, each as its HTTP twin', async () => {
    const { Bank, Groceries } = s.ids as Record<string, number>;
    const input = {
      description: 'Vegetable box',
      entries: [{ account_id: Groceries, amount_cents: 2_400 }, { account_id: Bank, amount_cents: -2_400 }],
      start_on: '2026-01-10',
      every: 'month',
      mode: 'remind',
    };
    const schedule = await ok('create_schedule', input);
    expect(schedule).toEqual((await http('GET', `/schedules/${schedule.id}`)).body);
    expect(schedule).toMatchObject({ interval: 1, until_on: null, next_on: '2026-01-10', created_by_email: 'd24-tools@example.com' });
    expect(await ok('list_schedules', {})).toEqual({ schedules: (await http('GET', '/schedules')).body });

    const due = await ok('list_due', { through: '2026-03-31' });
    expect(due).toEqual({ due: (await http('GET', '/schedules/due?through=2026-03-31')).body });
    expect(due.due.map((d: Json) => d.occurs_on)).toEqual(['2026-01-10', '2026-02-10', '2026-03-10']);

    const posted = await ok('post_due', { schedule_id: schedule.id, occurs_on: '2026-02-10' });
    expect(posted).toEqual((await http('GET', `/transactions/${posted.id}`)).body);
    expect(posted).toMatchObject({ occurred_on: '2026-02-10', description: 'Vegetable box', created_by_email: 'd24-tools@example.com' });
    expect((await ok('list_due', { through: '2026-03-31' })).due.map((d: Json) => d.occurs_on)).toEqual(['2026-01-10', '2026-03-10']);
    const again = await http('POST', `/schedules/${schedule.id}/occurrences/2026-02-10/post`);
    expect(again.status).toBe(409);
    expect(await refusal('post_due', { schedule_id: schedule.id, occurs_on: '2026-02-10' })).toBe(again.body.error);
  });

  it('D22: list_attachments answers the metadata GET /transactions/{id}/attachments lists, never the bytes', async () => {
    const { Bank, Groceries } = s.ids as Record<string, number>;
    const tx = (await ok('record_money_out', { from_account_id: Bank, to_account_id: Groceries, amount_cents: 990, occurred_on: '2026-04-02', description: 'Receipt kept' })).id;
    expect(await ok('list_attachments', { transaction_id: tx })).toEqual({ attachments: [] });
    const upload = await h.request(`/transactions/${tx}/attachments?name=till.png`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'image/png' },
      body: PNG,
    });
    expect(upload.status).toBe(201);
    const listed = await call('list_attachments', { transaction_id: tx });
    expect(listed.structuredContent).toEqual({ attachments: (await http('GET', `/transactions/${tx}/attachments`)).body });
    expect(Object.keys(listed.structuredContent!.attachments[0]).sort()).toEqual(['content_type', 'created_at', 'created_by_email', 'id', 'name', 'sha256', 'size', 'transaction_id']);
    expect(JSON.stringify(listed)).not.toContain(PNG.toString('base64').slice(0, 24));
    expect(await refusal('list_attachments', { transaction_id: 1_999_999 })).toBe((await http('GET', '/transactions/1999999/attachments')).body.error);
  });

  it('D24: a refusal of each write tool is an isError result with the message of the HTTP route; nothing is written', async () => {
    const { Bank, Groceries } = s.ids as Record<string, number>;
    const book = async () => ({
      transactions: (await http('GET', '/transactions')).body,
      schedules: (await http('GET', '/schedules')).body,
      reconciliations: (await http('GET', `/accounts/${Bank}/reconciliations`)).body,
    });
    const before = await book();
    const bankNow = (await http('GET', `/accounts/${Bank}/reconciliation`)).body.book_balance_cents as number;

    // reconcile_account ↔ POST /accounts/{id}/reconciliations
    const statement = { statement_date: '2026-12-31', statement_balance_cents: bankNow + 1 };
    const off = await http('POST', `/accounts/${Bank}/reconciliations`, statement);
    expect(off.status).toBe(409);
    const offResult = await call('reconcile_account', { account_id: Bank, ...statement });
    expect(offResult.isError).toBe(true);
    expect((offResult.content[0] as { text: string }).text).toBe(off.body.error);
    expect(JSON.parse((offResult.content[1] as { text: string }).text), 'the figures beside the message, as the 409 carries them').toEqual(off.body);
    for (const [path, args] of [
      ['/accounts/999999/reconciliations', { account_id: 999_999, ...statement }],
      [`/accounts/${Bank}/reconciliations`, { account_id: Bank, statement_date: '2026-02-30', statement_balance_cents: 0 }],
      [`/accounts/${Bank}/reconciliations`, { account_id: Bank, statement_date: '2026-12-31', statement_balance_cents: 1.5 }],
      [`/accounts/${Bank}/reconciliations`, { account_id: Bank, statement_date: '2026-12-31', statement_balance_cents: 0, transaction_ids: [999_999] }],
    ] as const) {
      const { account_id: _, ...body } = args;
      const twin = await http('POST', path, body);
      expect(twin.status, JSON.stringify(args)).toBeGreaterThanOrEqual(400);
      expect(await refusal('reconcile_account', args), JSON.stringify(args)).toBe(twin.body.error);
    }
    expect(await refusal('reconcile_account', { account_id: 0, ...statement })).toBe((await http('POST', '/accounts/0/reconciliations', statement)).body.error);

    // create_schedule ↔ POST /schedules
    const schedule = {
      description: 'Rent',
      entries: [{ account_id: Groceries, amount_cents: 500 }, { account_id: Bank, amount_cents: -500 }],
      start_on: '2026-05-01',
      every: 'month',
      mode: 'post',
    };
    for (const body of [
      { ...schedule, until_on: '2026-04-01' },
      { ...schedule, every: 'fortnight' },
      { ...schedule, interval: 100 },
      { ...schedule, entries: [{ account_id: Groceries, amount_cents: 500 }, { account_id: Bank, amount_cents: -400 }] },
      { ...schedule, entries: [{ account_id: 999_999, amount_cents: 500 }, { account_id: Bank, amount_cents: -500 }] },
      { ...schedule, description: ' ' },
    ]) {
      const twin = await http('POST', '/schedules', body);
      expect(twin.status, JSON.stringify(body)).toBe(400);
      expect(await refusal('create_schedule', body), JSON.stringify(body)).toBe(twin.body.error);
    }

    // post_due ↔ POST /schedules/{id}/occurrences/{date}/post
    for (const [id, date] of [
      [999_999, '2026-05-01'],
      [0, '2026-05-01'],
    ] as const) {
      const twin = await http('POST', `/schedules/${id}/occurrences/${date}/post`);
      expect(await refusal('post_due', { schedule_id: id, occurs_on: date }), `${id} ${date}`).toBe(twin.body.error);
    }
    const made = (await http('POST', '/schedules', { ...schedule, start_on: '2030-01-01', mode: 'remind' })).body;
    for (const date of ['2030-01-02', '2030-02-30']) {
      const twin = await http('POST', `/schedules/${made.id}/occurrences/${date}/post`);
      expect(twin.status, date).toBeGreaterThanOrEqual(400);
      expect(await refusal('post_due', { schedule_id: made.id, occurs_on: date }), date).toBe(twin.body.error);
    }
    expect((await http('DELETE', `/schedules/${made.id}`)).status).toBe(204);

    // import_statement ↔ POST /imports; preview_statement ↔ POST /imports/preview
    const file = { account_id: Bank, format: 'camt053', content: MONTH_END, unmatched_account_id: s.ids['To sort'] };
    for (const body of [
      { ...file, matches: [{ line: 3, transaction_id: 1 }] },
      { ...file, content: MONTH_END.slice(0, 900) },
      { ...file, format: 'qif' },
      { ...file, unmatched_account_id: 999_999 },
      { ...file, match_days: 11 },
      { ...file, format: 'csv', content: 'Date,Text,Amount\n2026-05-01,x,1.00\n' },
    ]) {
      const twin = await http('POST', '/imports', body);
      expect(twin.status, JSON.stringify(body).slice(0, 200)).toBe(400);
      const result = await call('import_statement', body);
      expect(result.isError).toBe(true);
      expect((result.content[0] as { text: string }).text, JSON.stringify(body).slice(0, 200)).toBe(twin.body.error);
      if (twin.body.errors) expect(JSON.parse((result.content[1] as { text: string }).text), 'the lines at fault beside the message').toEqual(twin.body);
      if (!('matches' in body)) {
        const previewTwin = await http('POST', '/imports/preview', body);
        expect(await refusal('preview_statement', body)).toBe(previewTwin.body.error);
      }
    }
    expect(await book()).toEqual(before);
  });
});
