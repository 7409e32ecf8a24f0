import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono } from 'hono';
import { createLedgerMcpServer } from '../mcp';
import type { AppEnv } from './context';
import { databaseRefusal } from './errors';
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
