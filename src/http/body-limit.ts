import type { Context, Next } from 'hono';
import { BodyTooLarge } from './errors';

/**
 * Refuses request bodies over `maxSize` bytes (D6: 1 MiB → 413). Hono's bodyLimit does the same,
 * but rebuilds a body without Content-Length (chunked, or a bodiless DELETE from a browser) with
 * `new Request(c.req.raw, …)`, which throws on @hono/node-server's own Request object when global
 * objects are not overridden (tests run servers with overrideGlobalObjects: false): a 500 for a
 * request anyone can send. Here the rebuilt request is made from the URL, method and headers.
 * The refusal is thrown, so that src/http/errors.ts answers it in the route's shape (the OAuth
 * shape with `Cache-Control: no-store` under /oauth/, error rule 7).
 */
export function limitBody(maxSize: number, message: string) {
  return async (c: Context, next: Next) => {
    const raw = c.req.raw;
    // Decided from the headers first: touching `raw.body` makes @hono/node-server build a web
    // stream for the body, and the routes' own reading then loses its fast path.
    const length = raw.headers.get('content-length');
    if (length !== null && !raw.headers.has('transfer-encoding')) {
      if (Number.parseInt(length, 10) > maxSize) throw new BodyTooLarge(message);
      return next();
    }
    if (raw.method === 'GET' || raw.method === 'HEAD' || !raw.body) return next();
    const chunks: Uint8Array[] = [];
    let size = 0;
    const reader = raw.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > maxSize) {
        await reader.cancel();
        throw new BodyTooLarge(message);
      }
      chunks.push(value);
    }
    const body = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      body.set(chunk, offset);
      offset += chunk.length;
    }
    c.req.raw = new Request(c.req.url, { method: raw.method, headers: raw.headers, body, signal: raw.signal });
    return next();
  };
}
