import { createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { Context } from 'hono';
import * as v from 'valibot';
import { createMiddleware } from 'hono/factory';
import { describeFault } from '../log';
import { createLedgerMcpServer, type McpContext } from '../mcp/tools';
import type { AppEnv } from './context';
import { GENERIC_FAULT } from './errors';
import { ErrorBody } from './replies';
import { authorOf } from './tiers';
import { route } from './route';
import { int, requestSchema, responseSchema } from '../shapes';

/**
 * D18, MCP transport security: a browser page on another origin (DNS rebinding makes any site
 * "same-origin" with a name that resolves to us) must not drive the tools, so an `Origin` that is
 * present and not one of ours is 403. Checked before authentication: a foreign page gets the same
 * answer with or without a credential, learns nothing about it, and costs no database lookup. No
 * Origin (a non-browser client) is allowed. Origins are compared as browsers serialise them; ours
 * are normalised the same way (config.ts). Preflights never get here: the CORS layer answers them,
 * without Access-Control-Allow-Origin for a foreign origin.
 */
const requireOwnOrigin = createMiddleware<AppEnv>(async (c, next) => {
  const origin = c.req.header('Origin');
  if (origin !== undefined && origin !== c.var.config.webOrigin && origin !== c.var.config.apiOrigin) {
    return c.json({ error: 'origin not allowed' }, 403);
  }
  await next();
});

/**
 * D24: one server definition (src/mcp/tools.ts) serves every protocol revision, built anew for
 * each request. Revision 2026-07-28 (a request carries its revision in `_meta`; `server/discover`;
 * the `Mcp-Method` and `Mcp-Name` headers checked against the body) goes to the SDK's per-request
 * handler. Requests of 2025-11-25 and earlier (the `initialize` handshake, then plain requests)
 * take D8's stateless Streamable HTTP transport with JSON responses: the SDK's own legacy
 * fallback would answer them as event streams. `isLegacyRequest` is the SDK's own routing
 * decision, so the two legs never disagree about a request. The tier, the Origin check and the
 * body limit (D6's 1 MiB, below the SDK's own 4 MiB) have run before either.
 */
async function serveMcp(request: Request, context: McpContext): Promise<Response> {
  const factory = () => createLedgerMcpServer(context);
  if (await isLegacyRequest(request)) {
    const server = await factory();
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      await server.close();
    }
  }
  const modern = createMcpHandler(factory, { legacy: 'reject' });
  return modern.fetch(request);
}

// D8: JSON-RPC 2.0 over the Streamable HTTP transport (JSON responses, stateless).
const JsonRpcId = v.union([v.string(), int]);
const JsonRpcRequest = v.object({
  jsonrpc: v.literal('2.0'),
  id: JsonRpcId,
  method: v.pipe(v.string(), v.description('initialize, tools/list, tools/call, ping…')),
  params: v.optional(v.record(v.string(), v.unknown())),
});
const JsonRpcNotification = v.object({
  jsonrpc: v.literal('2.0'),
  method: v.pipe(v.string(), v.description('notifications/initialized…')),
  params: v.optional(v.record(v.string(), v.unknown())),
});
const McpMessage = v.union([JsonRpcRequest, JsonRpcNotification]);
const McpRequestBody = requestSchema('McpRequest', v.union([McpMessage, v.pipe(v.array(McpMessage), v.minLength(1))]));
const JsonRpcErrorObject = v.strictObject({ code: int, message: v.string(), data: v.optional(v.unknown()) });
const JsonRpcResult = v.strictObject({
  jsonrpc: v.literal('2.0'),
  id: JsonRpcId,
  result: v.pipe(v.record(v.string(), v.unknown()), v.description('the method result; tools/call gives content, structuredContent and isError')),
});
const JsonRpcError = responseSchema('JsonRpcError', v.strictObject({ jsonrpc: v.literal('2.0'), id: v.nullable(JsonRpcId), error: JsonRpcErrorObject }));
const McpResponse = responseSchema('McpResponse', v.union([JsonRpcResult, JsonRpcError]));
const McpResponseBody = v.union([McpResponse, v.array(McpResponse)]);

const stateless = (c: Context<AppEnv>) => c.json({ error: 'this endpoint is stateless: use POST' }, 405, { Allow: 'POST' });
const usePost = { 405: { description: 'Use POST.', json: ErrorBody, headers: { Allow: 'POST' } } };

/** D8: the Model Context Protocol at /mcp (full tier, own origins only). */
export const mcpRoutes = [
  route(
    {
      method: 'post', path: '/mcp', tier: 'full', summary: 'Model Context Protocol: Streamable HTTP, stateless, JSON responses', json: McpRequestBody,
      description: 'JSON-RPC 2.0. Send `Accept: application/json, text/event-stream`. `tools/list` describes the tools (accounts, transactions, money in/out, move, reports, corrections and history; statements in, reconciliation, schedules and receipts, D24) with their input and output schemas; a refused tool call is a result with `isError: true`, never a protocol error.',
      responses: {
        200: { description: 'The JSON-RPC response (an array for a batch).', json: McpResponseBody },
        202: { description: 'The body held only notifications; nothing to answer.' },
        400: { description: 'Not JSON, or not a JSON-RPC message.', json: JsonRpcError },
        406: { description: 'The Accept header does not list both application/json and text/event-stream.', json: JsonRpcError },
        415: { description: 'Not `Content-Type: application/json`.', json: JsonRpcError },
      },
    },
    // The transport reads and answers the body itself (JSON-RPC errors); the schema only describes it.
    { before: [requireOwnOrigin], validatesItself: true },
    (c) =>
      serveMcp(c.req.raw, {
        db: c.var.db,
        author: authorOf(c),
        // Error rule 3, as answerError does for a route: the detail to the log, the fixed sentence to the caller.
        reportFault: (error, tool) => {
          c.var.log.error('mcp.fault', { tool, ...describeFault(error) });
          return GENERIC_FAULT;
        },
      }),
  ),
  route(
    {
      method: 'get', path: '/mcp', tier: 'full', summary: 'Not used: the transport is stateless (no server-to-client stream)', cannotFail: true,
      responses: usePost,
    },
    { before: [requireOwnOrigin] },
    stateless,
  ),
  route(
    {
      method: 'delete', path: '/mcp', tier: 'full', summary: 'Not used: the transport is stateless (no session to end)', cannotFail: true,
      responses: usePost,
    },
    { before: [requireOwnOrigin] },
    stateless,
  ),
];
