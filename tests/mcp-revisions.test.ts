import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/client';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as Transport1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, expect, it } from 'vitest';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { describeEachDatabase, type Harness } from './support/harness';
import { SdkOAuthProvider } from './support/mcp-oauth';

// D24: one definition of the tools serves MCP 2026-07-28 (stateless: server/discover, the
// Mcp-Method and Mcp-Name headers) and 2025-11-25 and the revisions before it, identically. The
// clients are the real ones: the TypeScript SDK 1.32 and the SDK v2 client in each of its modes.

const MCP_URL = 'http://localhost:38081/mcp';
const MODERN = '2026-07-28';

type Json = any;
interface Caller {
  label: string;
  listTools(): Promise<{ tools: Json[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<Json>;
  close(): Promise<void>;
  revision(): string | undefined;
}

const fetchVia = (h: Harness) => (url: string | URL, init?: RequestInit) => Promise.resolve(h.app.request(String(url), init));

async function sdk1(h: Harness, token: string): Promise<Caller> {
  const client = new Client1({ name: 'ledger-sdk1', version: '1.0.0' });
  const transport = new Transport1(new URL(MCP_URL), { requestInit: { headers: { authorization: `Bearer ${token}` } }, fetch: fetchVia(h) });
  await client.connect(transport);
  return Object.assign(client, { label: 'SDK 1.32', revision: () => transport.protocolVersion }) as unknown as Caller;
}

async function sdk2(h: Harness, token: string, mode: 'legacy' | 'auto' | { pin: string }): Promise<Caller> {
  const client = new ClientV2({ name: 'ledger-sdk2', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new TransportV2(new URL(MCP_URL), { requestInit: { headers: { authorization: `Bearer ${token}` } }, fetch: fetchVia(h) }));
  const label = `SDK v2 ${typeof mode === 'string' ? mode : `pinned to ${mode.pin}`}`;
  return Object.assign(client, { label, revision: () => client.getNegotiatedProtocolVersion() }) as unknown as Caller;
}

/** What a result says, without the envelope a revision adds around it (2026-07-28's `_meta` serverInfo). */
const said = ({ _meta: _, ...result }: Json) => result;

/** A raw POST /mcp with the given headers and JSON-RPC body. */
function post(h: Harness, headers: Record<string, string>, body: unknown): Promise<Response> {
  return h.request('/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

/** A 2026-07-28 request: the revision, the client and its capabilities in `_meta` of every request. */
function modernRequest(id: number, method: string, params: Record<string, unknown> = {}) {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta } };
}

describeEachDatabase('D24: every revision, every client, the same tools', (h) => {
  let token: string;
  let callers: Caller[];

  beforeAll(async () => {
    ({ token } = await h.userWithToken('revisions@example.com'));
    callers = [await sdk1(h, token), await sdk2(h, token, 'legacy'), await sdk2(h, token, 'auto'), await sdk2(h, token, { pin: MODERN })];
  });

  it('D24: the 1.x client and the v2 client in legacy mode speak 2025-11-25; auto picks 2026-07-28; a pin to 2026-07-28 connects (no ERA_NEGOTIATION_FAILED)', () => {
    expect(callers.map((c) => [c.label, c.revision()])).toEqual([
      ['SDK 1.32', '2025-11-25'],
      ['SDK v2 legacy', '2025-11-25'],
      ['SDK v2 auto', MODERN],
      [`SDK v2 pinned to ${MODERN}`, MODERN],
    ]);
  });

  it('D24: each client lists the same tools, field by field: names, titles, descriptions, strict input schemas, output schemas, annotations', async () => {
    const [reference, ...others] = await Promise.all(callers.map(async (c) => (await c.listTools()).tools));
    // 28 before D27 added list_people, get_person_statement, who_owes and create_person.
    expect(reference).toHaveLength(32);
    for (const tool of reference!) {
      expect(Object.keys(tool).sort(), tool.name).toEqual(['annotations', 'description', 'inputSchema', 'name', 'outputSchema', 'title']);
      expect(tool.title, tool.name).toBeTruthy();
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
      expect(tool.outputSchema.type, tool.name).toBe('object');
    }
    others.forEach((tools, i) => {
      const label = callers[i + 1]!.label;
      expect(tools.map((t: Json) => t.name), label).toEqual(reference!.map((t) => t.name));
      for (const [n, tool] of tools.entries()) {
        for (const field of ['title', 'description', 'inputSchema', 'outputSchema', 'annotations']) {
          expect(tool[field], `${label}: ${tool.name}.${field}`).toEqual(reference![n][field]);
        }
        expect(tool, `${label}: ${tool.name}`).toEqual(reference![n]);
      }
    });
  });

  it('D24: a read and a write tool answer identically on every revision; so does a refusal', async () => {
    const results = [];
    for (const caller of callers) {
      const settings = await caller.callTool({ name: 'get_settings', arguments: {} });
      const created = await caller.callTool({ name: 'create_account', arguments: { name: `Via ${caller.label}`, kind: 'asset' } });
      const { id, ...rest } = created.structuredContent;
      expect(rest, caller.label).toEqual({ name: `Via ${caller.label}`, kind: 'asset' });
      expect(JSON.parse(created.content[0].text), caller.label).toEqual(created.structuredContent);
      expect(await (await h.call(token, 'GET', '/accounts')).json(), caller.label).toContainEqual({ id, name: `Via ${caller.label}`, kind: 'asset' });
      const refused = await caller.callTool({ name: 'record_money_in', arguments: { from_account_id: id, to_account_id: id, amount_cents: 0, description: 'x' } });
      const unknown = await caller.callTool({ name: 'list_due', arguments: { thorugh: '2026-01-01' } });
      results.push({ settings: said(settings), refused: said(refused), unknown: said(unknown), created: { isError: created.isError, keys: Object.keys(said(created)).sort() } });
    }
    expect(results[0]).toEqual({
      settings: {
        content: [{ type: 'text', text: '{"book_style":"personal","currency":"EUR","closed_through":null}' }],
        structuredContent: { book_style: 'personal', currency: 'EUR', closed_through: null },
      },
      refused: { content: [{ type: 'text', text: 'amount_cents must be an integer from 1 to 1000000000000000' }], isError: true },
      unknown: { content: [{ type: 'text', text: 'list_due takes no argument "thorugh"' }], isError: true },
      created: { isError: undefined, keys: ['content', 'structuredContent'] },
    });
    for (const [i, result] of results.entries()) expect(result, callers[i]!.label).toEqual(results[0]);
  });

  it('D24: 2026-07-28 server/discover names the revision and the capabilities (tools, no listChanged)', async () => {
    const res = await post(h, { authorization: `Bearer ${token}`, 'mcp-protocol-version': MODERN, 'mcp-method': 'server/discover' }, modernRequest(1, 'server/discover'));
    expect(res.status).toBe(200);
    expect((await res.json()).result).toMatchObject({ supportedVersions: [MODERN], capabilities: { tools: { listChanged: false } } });
  });

  it('D24: Mcp-Method or Mcp-Name disagreeing with the body, or missing, is refused (400, -32020) and nothing runs', async () => {
    const accounts = async () => (await h.call(token, 'GET', '/accounts')).text();
    const before = await accounts();
    const call = modernRequest(7, 'tools/call', { name: 'create_account', arguments: { name: 'Smuggled', kind: 'asset' } });
    const base = { authorization: `Bearer ${token}`, 'mcp-protocol-version': MODERN };
    for (const [headers, says] of [
      [{ 'mcp-method': 'tools/list', 'mcp-name': 'create_account' }, 'the body names method tools/call but the Mcp-Method header names tools/list'],
      [{ 'mcp-method': 'tools/call', 'mcp-name': 'list_accounts' }, 'the body carries params.name="create_account" but the Mcp-Name header names "list_accounts"'],
      [{ 'mcp-method': 'tools/call' }, 'the body carries params.name="create_account" but the required Mcp-Name header is absent'],
      [{}, 'the body names method tools/call but the required Mcp-Method header is absent'],
    ] as const) {
      const res = await post(h, { ...base, ...headers }, call);
      expect(res.status, says).toBe(400);
      const body = await res.json();
      expect(body.error.code, says).toBe(-32020);
      expect(body.error.message, says).toContain(says);
      expect(body.id).toBe(7);
    }
    expect(await accounts()).toBe(before);
    // The same request with headers that agree is served.
    const agreed = await post(h, { ...base, 'mcp-method': 'tools/call', 'mcp-name': 'create_account' }, call);
    expect((await agreed.json()).result.structuredContent).toMatchObject({ name: 'Smuggled', kind: 'asset' });
  });

  it('D18, D24: the 401 challenge and the Origin 403 come first on both revisions', async () => {
    const legacy = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const modern = modernRequest(1, 'tools/list');
    const modernHeaders = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' };
    for (const [revision, body, headers] of [
      ['2025-11-25', legacy, { 'mcp-protocol-version': '2025-11-25' }],
      [MODERN, modern, modernHeaders],
    ] as const) {
      const anonymous = await post(h, headers, body);
      expect(anonymous.status, revision).toBe(401);
      expect(anonymous.headers.get('www-authenticate'), revision).toBe('Bearer resource_metadata="http://localhost:38081/.well-known/oauth-protected-resource"');
      for (const credential of [{ authorization: `Bearer ${token}` }, {}] as Record<string, string>[]) {
        const foreign = await post(h, { ...headers, ...credential, origin: 'http://evil.example' }, body);
        expect(foreign.status, revision).toBe(403);
        expect(await foreign.text(), revision).toBe('{"error":"origin not allowed"}');
      }
    }
  });

  it('D24: revisions before 2025-06-18 are served the same tools and results (titles and structured output are extra fields such clients ignore)', async () => {
    for (const revision of ['2025-06-18', '2025-03-26', '2024-11-05']) {
      const headers = { authorization: `Bearer ${token}` };
      const init = await post(h, headers, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: 'old', version: '1' } } });
      expect((await init.json()).result.protocolVersion, revision).toBe(revision);
      const listed = await post(h, { ...headers, 'mcp-protocol-version': revision }, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
      expect((await listed.json()).result.tools, revision).toEqual((await callers[0]!.listTools()).tools);
      const called = await post(h, { ...headers, 'mcp-protocol-version': revision }, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_settings', arguments: {} } });
      expect((await called.json()).result, revision).toEqual(said(await callers[0]!.callTool({ name: 'get_settings', arguments: {} })));
    }
  });

  it('D24: a revision neither era knows is refused with the revisions the endpoint speaks', async () => {
    const pinned = new ClientV2({ name: 'future', version: '1' }, { versionNegotiation: { mode: { pin: '2027-01-01' } } });
    const error = await pinned
      .connect(new TransportV2(new URL(MCP_URL), { requestInit: { headers: { authorization: `Bearer ${token}` } }, fetch: fetchVia(h) }))
      .then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/Unsupported protocol version/);
    expect(JSON.stringify((error as { data?: unknown }).data)).toContain(MODERN);
  });
});

/**
 * D24: the v2 client's own OAuth, pinned to 2026-07-28: 401 → discovery → registration → consent by a
 * signed-in person → a callback carrying RFC 9207's `iss`, which the client checks because our
 * metadata says authorization_response_iss_parameter_supported.
 */
describeEachDatabase('D24: the SDK v2 client pinned to 2026-07-28 through its own OAuth flow', (h) => {
  it('registers, is approved, refuses a callback whose iss is wrong, finishes with the right one, and calls tools', async () => {
    await h.userWithToken('v2-oauth@example.com', 'a long enough password');
    const person = new Browser(h);
    await person.signIn('v2-oauth@example.com', 'a long enough password', new SoftwareAuthenticator());
    const provider = new SdkOAuthProvider({ redirectUrl: 'http://127.0.0.1:43211/callback', clientName: 'SDK v2 test assistant' });
    const transport = () => new TransportV2(new URL(MCP_URL), { authProvider: provider as unknown as OAuthClientProvider, fetch: fetchVia(h) });
    const pinned = () => new ClientV2({ name: 'ledger-v2-oauth', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });

    const first = transport();
    await expect(pinned().connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id).toMatch(/^dyn_/);
    const url = provider.authorizationUrl!;
    const approval = await person.post('/oauth/authorize/approve', { ...Object.fromEntries(url.searchParams), approve: true });
    expect(approval.status).toBe(200);
    const redirect = new URL(((await approval.json()) as { redirect: string }).redirect);
    expect(redirect.searchParams.get('iss')).toBe('http://localhost:38081');

    const forged = new URLSearchParams(redirect.searchParams);
    forged.set('iss', 'http://evil.example');
    await expect(first.finishAuth(forged), 'RFC 9207: a wrong iss is refused by the client').rejects.toThrow(/iss/i);
    expect(provider.saved).toBeUndefined();
    await first.finishAuth(redirect.searchParams);
    expect(provider.saved?.access_token).toMatch(/^lg_/);

    const client = pinned();
    await client.connect(transport());
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect((await client.listTools()).tools).toHaveLength(32);
    const created = await client.callTool({ name: 'create_account', arguments: { name: 'Via v2 OAuth', kind: 'asset' } });
    expect(created.structuredContent).toMatchObject({ name: 'Via v2 OAuth', kind: 'asset' });
    await client.close();
  });
});
