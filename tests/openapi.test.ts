import { expect, it } from 'vitest';
import { documentedOperations } from '../src/http/openapi';
import { describeEachDatabase } from './support/harness';

/** Hono's `/:id` → OpenAPI's `/{id}`. */
const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

describeEachDatabase('GET /openapi.json and /docs (issue 4/6)', (h) => {
  it('documents exactly the routes the app serves, method for method', () => {
    const served = new Set(
      h.app.routes
        .filter((r) => r.method !== 'ALL' && !['/openapi.json', '/docs'].includes(r.path))
        .map((r) => `${r.method.toLowerCase()} ${openApiPath(r.path)}`),
    );
    const documented = new Set(documentedOperations().map((o) => `${o.method} ${o.path}`));
    expect([...documented].filter((o) => !served.has(o)), 'documented but not served').toEqual([]);
    expect([...served].filter((o) => !documented.has(o)), 'served but not documented').toEqual([]);
  });

  it('is an OpenAPI 3.1 document with request schemas from the validating valibot schemas, open to all', async () => {
    const res = await h.request('/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as any;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: 'http://localhost:38081' }]);
    const post = doc.paths['/transactions'].post;
    const body = post.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(['occurred_on', 'description', 'entries']);
    expect(body.properties.entries).toMatchObject({ type: 'array', minItems: 2, maxItems: 100 });
    expect(body.properties.entries.items.properties.amount_cents).toMatchObject({ type: 'integer', minimum: -(10 ** 15), maximum: 10 ** 15 });
    expect(post.security).toEqual([{ bearer: [] }, { session: [] }]);
    expect(doc.paths['/auth/password'].post.security).toEqual([{ session: [] }]);
    expect(doc.paths['/health'].get.security).toEqual([]);
    expect(doc.paths['/accounts'].post.requestBody.content['application/json'].schema.properties.kind.enum).toEqual([
      'asset', 'liability', 'equity', 'income', 'expense',
    ]);
    expect(Object.keys(doc.components.securitySchemes)).toEqual(['bearer', 'session']);
  });

  it('serves a rendered reference page at /docs that loads the document', async () => {
    const res = await h.request('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain('/openapi.json');
  });
});
