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
 * Did the browser mark this request as started by another site (Fetch Metadata)? SameSite=Lax
 * still sends the cookie on a cross-site top-level navigation (a link, a form GET); such a request
 * must not act as the session. `same-site` stays allowed: WEB_ORIGIN and API_ORIGIN are usually
 * two ports of one host. An absent header (older browsers, non-browser clients) changes nothing.
 */
export function isCrossSite(c: Context<AppEnv>): boolean {
  return c.req.header('Sec-Fetch-Site')?.trim().toLowerCase() === 'cross-site';
}

/**
 * The session id the request carries, or undefined. The one place the cookie is read, so every
 * tier and logout treat a cross-site request as carrying no cookie: it cannot use the session,
 * spend its device-code attempts or end it.
 */
export function readSessionCookie(c: Context<AppEnv>): string | undefined {
  if (isCrossSite(c)) return undefined;
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
