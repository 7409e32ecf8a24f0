/** One path segment: RFC 3986 pchar, not empty, not a dot segment. */
const SEGMENT = /^(?!\.\.?$)[A-Za-z0-9\-._~!$&'()*+,;=:@%]+$/;

/**
 * D11: does `value` (a `resource` parameter, RFC 8707) resolve to this API? After lower-casing
 * scheme and host, dropping a default port and one trailing slash, it must equal API_ORIGIN, or be
 * an absolute URL on API_ORIGIN's origin with a path (such as API_ORIGIN + "/mcp") and no query or
 * fragment. The one helper used by authorize, approve, token and device_authorization.
 */
export function resolvesToThisApi(value: string, apiOrigin: string): boolean {
  // URL parsing would silently drop whitespace and control characters; a value holding any is not ours.
  if (/[^\x21-\x7e]/.test(value)) return false;
  const match = /^(https?):\/\/([^/?#]*)([^?#]*)$/i.exec(value);
  if (!match) return false;
  const [, scheme = '', authority = '', path = ''] = match;
  if (authority.includes('@')) return false;
  let origin: string;
  try {
    // WHATWG URL lower-cases scheme and host and drops the scheme's default port.
    origin = new URL(`${scheme}://${authority}`).origin;
  } catch {
    return false;
  }
  if (origin !== apiOrigin) return false;
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  if (trimmed === '') return true;
  return trimmed.split('/').slice(1).every((segment) => SEGMENT.test(segment)) && trimmed.startsWith('/');
}
