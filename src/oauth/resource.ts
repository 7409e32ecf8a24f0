/** One path segment: RFC 3986 pchar, not empty, not a dot segment. */
const SEGMENT = /^(?!\.\.?$)[A-Za-z0-9\-._~!$&'()*+,;=:@%]+$/;

/**
 * The plain form of an absolute http(s) URL with no userinfo, query or fragment, read from the raw
 * text (RFC 3986 §3): a scheme, a host that is a DNS name, an IPv4 literal or a bracketed IPv6
 * literal written with no percent-encoding or backslash, an optional port of digits without a
 * leading zero, and an optional path. WHATWG URL parsing would repair far more (`\` read as `/`,
 * `%6c` decoded in the host, `038081` read as 38081), so anything it would have to repair is
 * refused here instead of being compared after the repair.
 */
const PLAIN_ABSOLUTE_URL = /^(https?):\/\/([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::([1-9][0-9]{0,4}))?(\/[^?#]*)?$/i;

const DEFAULT_PORT: Record<string, string> = { http: '80', https: '443' };

/**
 * D11: does `value` (a `resource` parameter, RFC 8707) resolve to this API? After lower-casing
 * scheme and host, dropping a default port and one trailing slash, it must equal API_ORIGIN, or be
 * an absolute URL on API_ORIGIN's origin with a path (such as API_ORIGIN + "/mcp") and no query or
 * fragment. The one helper used by authorize, approve, token and device_authorization.
 * `apiOrigin` is the configured API_ORIGIN, already in WHATWG origin form (src/config.ts).
 */
export function resolvesToThisApi(value: string, apiOrigin: string): boolean {
  // Whitespace, control characters and non-ASCII are never part of a plain URL.
  if (/[^\x21-\x7e]/.test(value)) return false;
  const match = PLAIN_ABSOLUTE_URL.exec(value);
  if (!match) return false;
  const [, rawScheme = '', rawHost = '', port, path = ''] = match;
  const scheme = rawScheme.toLowerCase();
  if (port !== undefined && Number(port) > 65535) return false;
  const keptPort = port === undefined || port === DEFAULT_PORT[scheme] ? '' : `:${port}`;
  if (`${scheme}://${rawHost.toLowerCase()}${keptPort}` !== apiOrigin) return false;
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.split('/').slice(1).every((segment) => SEGMENT.test(segment));
}
