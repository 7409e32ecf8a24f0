import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, type Harness } from './support/harness';

// Issue 40 (D27, with D8/D18/D24's rules): the people tools list_people, get_person_statement,
// who_owes and create_person, through the real MCP SDK client, each answering what its HTTP twin
// answers (GET /people?q=, GET /people/{id}/statement, GET /reports/people, POST /people) and
// refusing in the route's words without writing; descriptions in D12's words ("people" personal,
// "members" club).

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;
type Result = CallToolResult & { structuredContent?: Record<string, any> };

const MCP_URL = 'http://localhost:38081/mcp';

const PEOPLE_TOOLS: Record<string, { properties: string[]; required: string[]; readOnly: boolean }> = {
  list_people: { properties: ['q'], required: [], readOnly: true },
  get_person_statement: { properties: ['person_id', 'from', 'to'], required: ['person_id'], readOnly: true },
  who_owes: { properties: ['as_of'], required: [], readOnly: true },
  create_person: {
    properties: ['name', 'email', 'iban', 'member_no', 'joined_on', 'left_on', 'mandate', 'dues_plan_id', 'note'],
    required: ['name'],
    readOnly: false,
  },
};

async function connect(h: Harness, token: string): Promise<Client> {
  const client = new Client({ name: 'ledger-people-tests', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(MCP_URL), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      fetch: (url, init) => Promise.resolve(h.app.request(String(url), init as RequestInit)),
    }),
  );
  return client;
}

describeEachDatabase('issue 40 (D27): the people tools over MCP', (h) => {
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
  /** Everything a refused create could have written: people, accounts and the change log. */
  const written = async () => ({
    people: (await http('GET', '/people')).body,
    accounts: (await http('GET', '/accounts')).body,
    changes: (await http('GET', '/changes?limit=500')).body,
  });

  beforeAll(async () => {
    ({ token } = await h.userWithToken('people-mcp@example.com'));
    client = await connect(h, token);
    for (const [name, kind] of [['Bank', 'asset'], ['Dues', 'income']] as const) ids[name] = (await http('POST', '/accounts', { name, kind })).body.id;
  });

  it('D27, D18: the four tools are listed with exactly their arguments, strict input schemas, output schemas and read-only annotations on the reads', async () => {
    const tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
    for (const [name, want] of Object.entries(PEOPLE_TOOLS)) {
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
    expect(await refusal('list_people', { name: 'Anna' })).toBe('list_people takes no argument "name"');
    expect(await refusal('who_owes', { person_id: 1 })).toBe('who_owes takes no argument "person_id"');
  });

  it('D27: create_person answers what POST /people answers; list_people, get_person_statement and who_owes what GET /people, the statement and GET /reports/people answer', async () => {
    const input = { name: 'Anna Schmidt', email: 'anna@example.org', iban: 'de89 3704 0044 0532 0130 00', member_no: 'M-1', joined_on: '2026-01-01', mandate: { id: 'MD-1', signed_on: '2026-01-01' } };
    const anna = await ok('create_person', input);
    expect(anna, 'the answer is the stored person, as GET /people/{id} reads it').toEqual((await http('GET', `/people/${anna.id}`)).body);
    expect(anna.iban).toBe('DE89370400440532013000');
    const twin = await http('POST', '/people', { ...input, name: 'Bernd Müller', member_no: 'M-2' });
    expect(twin.status).toBe(201);
    expect({ ...anna, id: 0, account_id: 0, name: '', member_no: '' }).toEqual({ ...twin.body, id: 0, account_id: 0, name: '', member_no: '' });
    const change = (await http('GET', `/changes?subject=person&subject_id=${anna.id}`)).body.changes;
    expect(change.map((c: Json) => [c.action, c.after?.id]), 'D15: one change record, as the route writes').toEqual([['create', anna.id]]);

    const post = async (occurred_on: string, account_id: number, amount: number) =>
      expect((await http('POST', '/transactions', {
        occurred_on, description: `dues ${occurred_on}`,
        entries: [{ account_id, amount_cents: amount }, { account_id: amount > 0 ? ids.Dues : ids.Bank, amount_cents: -amount }],
      })).status).toBe(201);
    await post('2026-01-01', anna.account_id, 500);
    await post('2026-02-01', anna.account_id, 500);
    await post('2026-02-15', anna.account_id, -300);
    await post('2026-01-10', twin.body.account_id, -2_000);

    expect(await ok('list_people', {})).toEqual({ people: (await http('GET', '/people')).body });
    expect(await ok('list_people', { q: 'MULLER' })).toEqual({ people: (await http('GET', '/people?q=MULLER')).body });
    expect((await ok('list_people', { q: 'muller' })).people.map((p: Json) => p.name)).toEqual(['Bernd Müller']);

    for (const query of [{}, { from: '2026-02-01' }, { from: '2026-01-01', to: '2026-01-31' }] as Record<string, string>[]) {
      const statement = await ok('get_person_statement', { person_id: anna.id, ...query });
      expect(statement, JSON.stringify(query)).toEqual((await http('GET', `/people/${anna.id}/statement?${new URLSearchParams(query)}`)).body);
    }
    expect((await ok('get_person_statement', { person_id: anna.id })).closing_cents).toBe(700);

    for (const as_of of ['2026-01-05', '2026-02-20']) {
      expect(await ok('who_owes', { as_of }), as_of).toEqual((await http('GET', `/reports/people?as_of=${as_of}`)).body);
    }
    expect(await ok('who_owes', {})).toEqual((await http('GET', '/reports/people')).body);
    // The figures are the book's: 1,000 charged, 300 paid settle the January charge partly: owed since 1 January.
    expect(await ok('who_owes', { as_of: '2026-02-20' })).toEqual({
      as_of: '2026-02-20',
      people: [
        { id: anna.id, name: 'Anna Schmidt', balance_cents: 700, overdue_cents: 700, overdue_since: '2026-01-01' },
        { id: twin.body.id, name: 'Bernd Müller', balance_cents: -2_000, overdue_cents: 0, overdue_since: null },
      ],
      owed_to_book_cents: 700,
      owed_by_book_cents: 2_000,
    });
  });

  it("D8, D27: a bad argument is refused with the HTTP twin's message and writes nothing", async () => {
    const before = await written();
    const bad: Record<string, unknown>[] = [
      { name: '   ' },
      { name: 'Bad IBAN', iban: 'DE89370400440532013001' },
      { name: 'Bad member no', member_no: 'M-1' },
      { name: 'Bad mandate', mandate: { id: 'with space', signed_on: '2026-01-01' } },
      { name: 'Bad dates', joined_on: '2026-02-01', left_on: '2026-01-31' },
      { name: 'Bad plan', dues_plan_id: 999_999 },
      { name: 'bank' },
      { email: 'no-name@example.org' },
    ];
    for (const args of bad) {
      const route = await http('POST', '/people', args);
      expect(route.status, JSON.stringify(args)).toBe(400);
      expect(await refusal('create_person', args), JSON.stringify(args)).toBe(route.body.error);
    }
    expect(await refusal('create_person', { name: 'X', owner: 'me' })).toBe('create_person takes no argument "owner"');
    expect(await written(), 'nothing was written by any refusal').toEqual(before);

    expect(await refusal('get_person_statement', { person_id: 1_999_999 })).toBe((await http('GET', '/people/1999999/statement')).body.error);
    expect(await refusal('get_person_statement', { person_id: 0 })).toBe((await http('GET', '/people/0/statement')).body.error);
    const some = before.people[0].id;
    expect(await refusal('get_person_statement', { person_id: some, from: '2026-02-30' })).toBe((await http('GET', `/people/${some}/statement?from=2026-02-30`)).body.error);
    expect(await refusal('who_owes', { as_of: '2026-13-01' })).toBe((await http('GET', '/reports/people?as_of=2026-13-01')).body.error);
  });

  it('D12: the descriptions say "people" in a personal book and "members" in a club\'s', async () => {
    const listed = async () => new Map((await client.listTools()).tools.map((t) => [t.name, t]));
    const personal = await listed();
    expect(personal.get('list_people')!.title).toBe('List people');
    expect(personal.get('create_person')!.title).toBe('Add a person');
    expect(personal.get('get_person_statement')!.title).toBe("Read a person's statement of account");
    expect(personal.get('who_owes')!.description).toMatch(/^Who owes, and since when: every person /);
    expect((await http('PUT', '/settings', { book_style: 'club' })).status).toBe(200);
    try {
      const club = await listed();
      expect(club.get('list_people')!.title).toBe('List members');
      expect(club.get('create_person')!.title).toBe('Add a member');
      expect(club.get('get_person_statement')!.title).toBe("Read a member's statement of account");
      expect(club.get('list_people')!.description).toMatch(/^List the members /);
      expect(club.get('who_owes')!.description).toMatch(/^Who owes, and since when: every member /);
      for (const name of Object.keys(PEOPLE_TOOLS)) {
        const { title, description } = club.get(name)!;
        const words = `${title} ${description}`.toLowerCase().replace(/person_id|list_people/g, '');
        expect(words, `${name} says "person" or "people" in club style`).not.toMatch(/\bperson\b|\bpeople\b/);
      }
    } finally {
      await http('PUT', '/settings', { book_style: 'personal' });
    }
  });
});
