import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono } from 'hono';
import { describeFault } from '../log';
import { createLedgerMcpServer } from '../mcp';
import type { AppEnv } from './context';
import { databaseRefusal, GENERIC_FAULT } from './errors';
import { requireFull } from './tiers';

/**
 * D8: the Streamable HTTP transport, stateless, with JSON responses: a server and a transport per
 * request. GET (the server-to-client stream) and DELETE (session end) have nothing to do without
 * sessions: 405 (stack notes: a stateless GET stream never closes).
 */
export const mcpRoutes = new Hono<AppEnv>()
  .use(requireFull)
  .post('/', async (c) => {
    const server = await createLedgerMcpServer({
      db: c.var.db,
      userId: c.var.identity.userId,
      explainDatabaseRefusal: databaseRefusal,
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
