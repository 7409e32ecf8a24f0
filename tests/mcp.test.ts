import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, expect, it } from 'vitest';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
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
  'delete_transaction',
  'get_report',
  'get_settings',
  'list_accounts',
  'list_transactions',
  'move_money',
  'record_money_in',
  'record_money_out',
  'record_transaction',
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

  const transactionCount = async () => ((await (await h.call(token, 'GET', '/transactions')).json()) as unknown[]).length;

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

  it('words tool descriptions in the book style of the instance (D12)', async () => {
    const describe = async (name: string) => (await client.listTools()).tools.find((t) => t.name === name)?.description;
    expect(await describe('record_money_in')).toMatch(/^Money in:/);
    expect(await describe('move_money')).toMatch(/^Move money:/);
    expect((await h.call(token, 'PUT', '/settings', { book_style: 'club' })).status).toBe(200);
    try {
      expect(await describe('record_money_in')).toMatch(/^Record a receipt:/);
      expect(await describe('record_money_out')).toMatch(/^Record a payment:/);
      expect(await describe('move_money')).toMatch(/^Transfer between funds:/);
      expect(await describe('list_accounts')).toContain('Funds (bank, cash box)');
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

  it('refusals are tool results with isError and the message the HTTP API gives; nothing changes', async () => {
    const before = await transactionCount();
    const unbalanced = {
      occurred_on: '2026-03-05',
      description: 'Off by one',
      entries: [
        { account_id: ids.Bank, amount_cents: 5 },
        { account_id: ids.Salary, amount_cents: -4 },
      ],
    };
    const http = (await (await h.call(token, 'POST', '/transactions', unbalanced)).json()) as { error: string };
    expect(errorText(await call(client, 'record_transaction', unbalanced))).toBe(http.error);

    const unknownAccount = { ...unbalanced, entries: [{ account_id: ids.Bank, amount_cents: 5 }, { account_id: 999_999, amount_cents: -5 }] };
    const httpUnknown = (await (await h.call(token, 'POST', '/transactions', unknownAccount)).json()) as { error: string };
    expect(errorText(await call(client, 'record_transaction', unknownAccount))).toBe(httpUnknown.error);
    expect(
      errorText(
        await call(client, 'move_money', { from_account_id: ids.Bank, to_account_id: 999_999, amount_cents: 5, description: 'x' }),
      ),
    ).toBe(httpUnknown.error);

    const badDate = { ...unbalanced, occurred_on: '2026-02-30', entries: unknownAccount.entries.slice(0, 1) };
    const httpDate = (await (await h.call(token, 'POST', '/transactions', badDate)).json()) as { error: string };
    expect(errorText(await call(client, 'record_transaction', badDate))).toBe(httpDate.error);

    const blank = { to_account_id: ids.Bank, from_account_id: ids.Salary, amount_cents: 5, description: '   ' };
    expect(errorText(await call(client, 'record_money_in', blank))).toBe('description is required');

    for (const amount_cents of [0, -5, 1.5, '5']) {
      errorText(await call(client, 'record_money_out', { from_account_id: ids.Bank, to_account_id: ids.Groceries, amount_cents, description: 'x' }));
    }
    expect(errorText(await call(client, 'delete_transaction', { id: 999_999 }))).toBe('no such transaction');
    expect(errorText(await call(client, 'create_account', { name: 'Bank', kind: 'asset' }))).toBe(
      'an account with that name already exists',
    );
    expect(errorText(await call(client, 'create_account', { name: 'Odd', kind: 'Asset' }))).toMatch(/^kind must be one of/);
    expect(await transactionCount()).toBe(before);
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
    expect(errorText(await call(client, 'get_report', { report: 'monthly', from: '2026-13-01' }))).toBe(
      'from must be a date YYYY-MM-DD',
    );

    const listed = (await call(client, 'list_transactions', {})).structuredContent as { transactions: { id: number }[] };
    const victim = listed.transactions[0]!.id;
    expect((await call(client, 'delete_transaction', { id: victim })).structuredContent).toEqual({ deleted: victim });
    expect((await h.call(token, 'DELETE', `/transactions/${victim}`)).status).toBe(404);
  });

  it('get_settings and list_accounts return structured content', async () => {
    expect((await call(client, 'get_settings', {})).structuredContent).toEqual({ book_style: 'personal' });
    const { accounts } = (await call(client, 'list_accounts', {})).structuredContent as { accounts: unknown[] };
    expect(accounts).toEqual(await (await h.call(token, 'GET', '/accounts')).json());
  });
});

/**
 * Issue 4/6: the SDK client's own OAuth: 401 → discovery → dynamic registration → authorize →
 * approval from a full session → token → tools/list. The "browser" step is a person approving with
 * a signed-in session; the SDK does every other request itself.
 */
class ApprovingProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;

  get redirectUrl() {
    return 'http://127.0.0.1:43210/callback';
  }
  get clientMetadata() {
    return { client_name: 'SDK test assistant', redirect_uris: [this.redirectUrl] };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describeEachDatabase('MCP through the SDK client OAuth flow (issue 4/6)', (h) => {
  it('registers, is approved by a signed-in person, exchanges the code and lists tools', async () => {
    await h.userWithToken('oauth-person@example.com', 'a long enough password');
    const person = new Browser(h);
    await person.signIn('oauth-person@example.com', 'a long enough password', new SoftwareAuthenticator());

    const provider = new ApprovingProvider();
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
