import { serve, type ServerType } from '@hono/node-server';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { createWebApp } from '../src/http/web-app';
import { freePort } from './support/processes';

// Issue 6/7 finding 10: the web app opened at another address than WEB_ORIGIN (such as
// http://127.0.0.1:38080 for http://localhost:38080) showed the sign-in form, and Continue answered
// "Failed to fetch": CORS and passkeys accept WEB_ORIGIN alone. The web server now sends any other
// Host to the same path and query on WEB_ORIGIN (308, which keeps the method).

/** A raw request with the Host header we choose (fetch would send the URL's). */
function get(port: number, host: string, at: string, method = 'GET'): Promise<{ status: number; location: string | undefined; type: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: at, method, headers: { host } }, (res) => {
      res.resume();
      resolve({ status: res.statusCode!, location: res.headers.location, type: res.headers['content-type'] });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the web app answers on WEB_ORIGIN only: another Host is redirected there (issue 6/7 finding 10)', () => {
  let port: number;
  let server: ServerType;
  let origin: string;

  beforeAll(async () => {
    port = await freePort();
    origin = `http://localhost:${port}`;
    const config = loadConfig({ WEB_ORIGIN: origin, WEB_BIND_ADDR: `127.0.0.1:${port}` });
    await new Promise<void>((resolve) => {
      server = serve({ fetch: createWebApp(config).fetch, hostname: '127.0.0.1', port }, () => resolve());
    });
  });
  afterAll(() => new Promise<void>((resolve) => server?.close(() => resolve())));

  it('127.0.0.1 instead of localhost: 308 to the same path and query on WEB_ORIGIN', async () => {
    for (const at of ['/', '/transactions?from=2026-01-01&to=2026-01-31', '/authorize?client_id=x&state=s%20t', '/config.json', '/assets/index.js']) {
      const res = await get(port, `127.0.0.1:${port}`, at);
      expect(res.status, at).toBe(308);
      expect(res.location, at).toBe(`${origin}${at}`);
    }
    // 308 keeps the method (a form posted to the wrong address is posted again, not turned into a GET).
    expect(await get(port, `127.0.0.1:${port}`, '/settings', 'POST')).toMatchObject({ status: 308, location: `${origin}/settings` });
  });

  it('another name or another port is redirected as well; the path never leaves WEB_ORIGIN', async () => {
    for (const host of ['192.168.1.20:38080', `ledger.example:${port}`, 'localhost', `localhost:${port + 1}`, `[::1]:${port}`]) {
      expect(await get(port, host, '/accounts'), host).toMatchObject({ status: 308, location: `${origin}/accounts` });
    }
    expect((await get(port, `127.0.0.1:${port}`, '//evil.example/x')).location).toBe(`${origin}//evil.example/x`);
  });

  it('WEB_ORIGIN itself is served, whatever the case of the Host header', async () => {
    for (const host of [`localhost:${port}`, `LocalHost:${port}`]) {
      const res = await get(port, host, '/transactions');
      expect(res.status, host).toBe(200);
      expect(res.type, host).toMatch(/^text\/html/);
    }
  });

  it("a default port in the Host header is the same host (http :80, https :443, as a proxy may send it)", async () => {
    const ask = (webOrigin: string, host: string) => Promise.resolve(createWebApp(loadConfig({ WEB_ORIGIN: webOrigin })).request('/reports?x=1', { headers: { host } }));
    for (const [webOrigin, host] of [
      ['http://books.example.org', 'books.example.org'],
      ['http://books.example.org', 'books.example.org:80'],
      ['https://books.example.org', 'books.example.org'],
      ['https://books.example.org', 'Books.Example.ORG:443'],
    ] as const) {
      expect((await ask(webOrigin, host)).status, `${host} for ${webOrigin}`).toBe(200);
    }
    for (const [webOrigin, host] of [
      ['https://books.example.org', 'books.example.org:80'],
      ['https://books.example.org', 'books.example.org:8443'],
      ['http://books.example.org', 'www.books.example.org'],
    ] as const) {
      const res = await ask(webOrigin, host);
      expect(res.status, `${host} for ${webOrigin}`).toBe(308);
      expect(res.headers.get('location')).toBe(`${webOrigin}/reports?x=1`);
    }
  });
});
