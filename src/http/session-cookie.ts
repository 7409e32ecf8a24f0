import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { IssuedSession } from '../identity/sessions';
import type { AppEnv } from './context';

/** Spec: Credentials — the session cookie. */
export const SESSION_COOKIE = 'lg_session';

/** D4: HttpOnly, SameSite=Lax, Path=/, Secure when API_ORIGIN is https. */
function attributes(c: Context<AppEnv>) {
  return {
    httpOnly: true,
    sameSite: 'Lax',
    path: '/',
    secure: c.var.config.apiOrigin.startsWith('https:'),
  } as const;
}

/**
 * D25: does the session cookie count on this request? Only when the request's `Origin` is
 * WEB_ORIGIN (the web app's own `fetch`, which sends it: its calls to API_ORIGIN are cross-origin),
 * or when it carries neither `Origin` nor `Sec-Fetch-Site` (a program such as curl or a script, not
 * a browser page). Anything else comes from some page that is not the web app: another site, or
 * another port or subdomain of the same site (`Sec-Fetch-Site: same-site`, for which SameSite=Lax
 * still sends the cookie, on navigations and forms alike), or a navigation typed or bookmarked
 * (`none`). The web app never navigates to an API route that needs the session (downloads are
 * fetched, the consent and device pages are the app's own), so nothing it does is refused.
 */
export function cookieCounts(c: Context<AppEnv>): boolean {
  const origin = c.req.header('Origin');
  if (origin !== undefined) return origin.trim().toLowerCase() === c.var.config.webOrigin;
  return c.req.header('Sec-Fetch-Site') === undefined;
}

/**
 * The session id the request carries, or undefined. The one place the cookie is read, so every
 * tier and logout treat a request whose cookie does not count (D25) as carrying no cookie: it
 * cannot use the session, spend its device-code attempts or end it.
 */
export function readSessionCookie(c: Context<AppEnv>): string | undefined {
  if (!cookieCounts(c)) return undefined;
  const value = getCookie(c, SESSION_COOKIE);
  // Our ids are 43 base64url characters; anything else names no session and is not looked up.
  return value && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
}

/**
 * Browsers keep a cookie at most 400 days (RFC 6265bis §5.5) and Hono refuses a longer one; a
 * longer SESSION_TTL_DAYS still governs the session in the database.
 */
const MAX_COOKIE_SECONDS = 400 * 86_400;

export function setSessionCookie(c: Context<AppEnv>, session: IssuedSession): void {
  const remaining = Math.floor((session.expiresAt.getTime() - Date.now()) / 1000);
  const seconds = Math.min(MAX_COOKIE_SECONDS, Math.max(0, remaining));
  setCookie(c, SESSION_COOKIE, session.id, {
    ...attributes(c),
    expires: new Date(Date.now() + seconds * 1000),
    maxAge: seconds,
  });
}

export function clearSessionCookie(c: Context<AppEnv>): void {
  deleteCookie(c, SESSION_COOKIE, attributes(c));
}
