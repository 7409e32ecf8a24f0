import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import { describeFault } from '../log';
import { createLedgerMcpServer } from '../mcp/tools';
import type { AppEnv } from './context';
import { GENERIC_FAULT } from './errors';
import { requireFull } from './tiers';

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
 * D8: the Streamable HTTP transport, stateless, with JSON responses: a server and a transport per
 * request. GET (the server-to-client stream) and DELETE (session end) have nothing to do without
 * sessions: 405 (stack notes: a stateless GET stream never closes).
 */
export const mcpRoutes = new Hono<AppEnv>()
  .use(requireOwnOrigin, requireFull)
  .post('/', async (c) => {
    const server = await createLedgerMcpServer({
      db: c.var.db,
      userId: c.var.identity.userId,
      // Error rule 3, as answerError does for a route: the detail to the log, the fixed sentence to the caller.
      reportFault: (error, tool) => {
        c.var.log.error('mcp.fault', { tool, ...describeFault(error) });
        return GENERIC_FAULT;
      },
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      await server.close();
    }
  })
  .on(['GET', 'DELETE'], '/', (c) => c.json({ error: 'this endpoint is stateless: use POST' }, 405, { Allow: 'POST' }));
