/**
 * Spec: OAuth authorization server — redirect URIs. Loopback means the literal hosts 127.0.0.1
 * and [::1] over http; `localhost` is not loopback (it can resolve elsewhere, RFC 8252 §8.3). The
 * port, when written, is a TCP port: 1 to 65535, digits without a leading zero.
 */
const LOOPBACK = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::([1-9]\d{0,4}))?([/?][^#]*)?$/;

/** `http://` on a loopback literal with a real port or none: [host, path and query], else undefined. */
function loopbackParts(uri: string): [string, string] | undefined {
  const match = LOOPBACK.exec(uri);
  if (!match || (match[2] !== undefined && Number(match[2]) > 65535)) return undefined;
  return [match[1]!, match[3] ?? ''];
}

/** README: a redirect URI longer than this is refused at registration. */
const MAX_REDIRECT_URI_LENGTH = 2000;

/**
 * Accepted at registration: http on a loopback literal, or https without userinfo; never a
 * fragment or whitespace. Beyond the spec's list (README, "Choices where the spec is silent"):
 * anything outside printable ASCII, `*.localhost` (RFC 6761 §6.3: it is loopback by another name),
 * and URIs over 2000 characters.
 */
export function isAcceptableRedirectUri(uri: string): boolean {
  if (uri.length > MAX_REDIRECT_URI_LENGTH || /[\s#]/.test(uri) || /[^\x21-\x7e]/.test(uri)) return false;
  if (loopbackParts(uri)) return true;
  const https = /^https:\/\/([^/?#]+)([/?][^#]*)?$/.exec(uri);
  if (!https) return false;
  const authority = https[1]!;
  if (authority.includes('@')) return false;
  try {
    // A fully qualified name may end in dots (`localhost.`, also written `localhost%2E`): it is
    // the same name to the resolver, so the dots are dropped before the name is judged.
    const host = new URL(uri).hostname.replace(/\.+$/, '');
    return host !== 'localhost' && !host.endsWith('.localhost');
  } catch {
    return false;
  }
}

/**
 * Does `requested` match the registered `registered`? Exact string match, except that two http
 * URIs on the same loopback literal match regardless of port (RFC 8252 §7.3). An authority with
 * `@` never takes the port rule (the LOOPBACK pattern admits none).
 */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  const a = loopbackParts(registered);
  const b = loopbackParts(requested);
  if (!a || !b) return false;
  return a[0] === b[0] && a[1] === b[1];
}

export function isRegisteredRedirectUri(registered: readonly string[], requested: string): boolean {
  return registered.some((uri) => redirectUriMatches(uri, requested));
}
