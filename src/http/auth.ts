import * as v from 'valibot';
import { invalid } from '../errors';
import { checkPassword } from '../identity/login';
import { countPasskeysOf } from '../identity/passkeys';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../identity/passwords';
import { endSession, startHalfSession } from '../identity/sessions';
import { hasControlCharacters } from '../text';
import { changePassword } from '../identity/users';
import { LoginResult, Me } from '../identity/views';
import { requestSchema } from '../shapes';
import { clearSessionCookie, cookieCounts, readSessionCookie, setSessionCookie } from './session-cookie';
import { badJson, refused, setCookie, throttled } from './replies';
import { route } from './route';

export const LoginSchema = requestSchema('Login', v.object({
  email: v.pipe(
    v.string('email is required'),
    v.maxLength(254, 'an email address has at most 254 characters'),
    // The throttle stores the email (D4); PostgreSQL refuses NUL in text, and no address holds one.
    v.check((email) => !hasControlCharacters(email.trim()), 'an email address has no control characters'),
  ),
  password: v.pipe(
    v.string('password is required'),
    v.check((s) => [...s].length <= PASSWORD_MAX_LENGTH, `a password has at most ${PASSWORD_MAX_LENGTH} characters`),
  ),
}));

export const PasswordChangeSchema = requestSchema(
  'PasswordChange',
  v.object({
    current_password: v.string('current_password is required'),
    new_password: v.string('new_password is required'),
  }),
);

/** Deliberately one sentence for both causes (spec: wrong password and unknown email give the same 401). */
export const LOGIN_REFUSED = 'wrong email or password';
export const LOGIN_THROTTLED = 'too many failed sign-ins; wait before trying again';

/** Spec: Session and account management (login, logout, me, password); D4. */
export const authRoutes = [
  route(
    {
      method: 'post', path: '/auth/login', tier: 'open', summary: 'Password step: starts a half-session (10 minutes)', json: LoginSchema,
      responses: {
        200: { description: 'Half-session cookie set; `mfa_complete` is always false. Next: a passkey (WebAuthn routes).', json: LoginResult, headers: setCookie('the half-session') },
        400: badJson('email or password missing or too long'),
        401: refused('Wrong email or password (the same answer for an unknown email).'),
        429: throttled('Throttled after repeated failures for this email (D4); the password is not checked.'),
      },
    },
    {},
    async (c, { json: { email, password } }) => {
      const check = await checkPassword(c.var.db, email, password, c.var.now());
      if (check.outcome === 'throttled') {
        c.header('Retry-After', String(check.retryAfterSeconds));
        return c.json({ error: LOGIN_THROTTLED }, 429);
      }
      if (check.outcome === 'refused') return c.json({ error: LOGIN_REFUSED }, 401);
      // A sign-in replaces whatever session the browser held (no session fixation, no orphans).
      const previous = readSessionCookie(c);
      if (previous) await endSession(c.var.db, previous);
      setSessionCookie(c, await startHalfSession(c.var.db, check.user.id));
      return c.json({ has_passkeys: check.hasPasskeys, mfa_complete: false });
    },
  ),
  route(
    {
      method: 'post', path: '/auth/logout', tier: 'open', summary: 'Ends the session (if any)',
      responses: { 204: { description: 'Ended; the cookie is expired. Also 204 without a session.', headers: setCookie('expired') } },
    },
    {},
    async (c) => {
      const cookie = readSessionCookie(c);
      if (cookie) await endSession(c.var.db, cookie);
      // A request whose cookie does not count (D25) ends nothing and must not make the browser drop the cookie either.
      if (cookieCounts(c)) clearSessionCookie(c);
      return c.body(null, 204);
    },
  ),
  route(
    {
      method: 'get', path: '/auth/me', tier: 'full', summary: 'Who is calling (D4)',
      responses: { 200: { description: 'The caller.', json: Me } },
    },
    {},
    async (c) => {
      const { userId, email, via } = c.var.identity;
      return c.json({ email, has_passkeys: (await countPasskeysOf(c.var.db, userId)) > 0, mfa_complete: true, via });
    },
  ),
  route(
    {
      method: 'post', path: '/auth/password', tier: 'session-only', summary: 'Changes the password (D4)', json: PasswordChangeSchema,
      description: 'The calling session survives; every other session of the user ends and every token is revoked.',
      responses: {
        204: { description: 'Changed.' },
        400: badJson(`Wrong current password, or a new password outside ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`),
        429: throttled('The current password is being throttled (D4).'),
      },
    },
    {},
    async (c, { json: { current_password, new_password } }) => {
      const { email } = c.var.identity;
      const check = await checkPassword(c.var.db, email, current_password, c.var.now());
      if (check.outcome === 'throttled') {
        c.header('Retry-After', String(check.retryAfterSeconds));
        return c.json({ error: LOGIN_THROTTLED }, 429);
      }
      if (check.outcome === 'refused') throw invalid('the current password is wrong');
      // D10: a session ended meanwhile (logout, another session's password change) sets nothing (401).
      await changePassword(c.var.db, c.var.session, new_password);
      return c.body(null, 204);
    },
  ),
];
