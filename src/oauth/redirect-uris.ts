/**
 * Spec: OAuth authorization server — redirect URIs. Loopback means the literal hosts 127.0.0.1
 * and [::1] over http; `localhost` is not loopback (it can resolve elsewhere, RFC 8252 §8.3).
 */
const LOOPBACK = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::(\d{1,5}))?([/?][^#]*)?$/;

/** Accepted at registration: http on a loopback literal, or https without userinfo; never a fragment or whitespace. */
export function isAcceptableRedirectUri(uri: string): boolean {
  if (uri.length > 2000 || /[\s#]/.test(uri) || /[^\x21-\x7e]/.test(uri)) return false;
  if (LOOPBACK.test(uri)) return true;
  const https = /^https:\/\/([^/?#]+)([/?][^#]*)?$/.exec(uri);
  if (!https) return false;
  const authority = https[1]!;
  if (authority.includes('@')) return false;
  try {
    const url = new URL(uri);
    return url.hostname !== 'localhost' && !url.hostname.endsWith('.localhost');
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
  const a = LOOPBACK.exec(registered);
  const b = LOOPBACK.exec(requested);
  if (!a || !b) return false;
  return a[1] === b[1] && (a[3] ?? '') === (b[3] ?? '');
}

export function isRegisteredRedirectUri(registered: readonly string[], requested: string): boolean {
  return registered.some((uri) => redirectUriMatches(uri, requested));
}
