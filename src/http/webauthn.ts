import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Context } from 'hono';
import * as v from 'valibot';
import { elevateSession } from '../identity/sessions';
import { beginAuthentication, beginRegistration, finishAuthentication, finishRegistration, relyingPartyOf } from '../identity/webauthn';
import { CreationOptions, Elevated, RequestOptions } from '../identity/views';
import { requestSchema } from '../shapes';
import type { AppEnv } from './context';
import { Unauthenticated } from './errors';
import { setSessionCookie } from './session-cookie';
import { badJson, refused, setCookie } from './replies';
import { route } from './route';

// D3: the bodies are the browser's `credential.toJSON()`. We check only the outer shape here, so
// that garbage is a 400 before the library sees it; @simplewebauthn verifies everything else.
const base64url = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]*$/, 'expected base64url'));
const CredentialShape = {
  id: base64url,
  rawId: base64url,
  type: v.literal('public-key'),
  clientExtensionResults: v.optional(v.looseObject({}), {}),
  authenticatorAttachment: v.optional(v.string()),
};

export const RegistrationFinishSchema = requestSchema('RegistrationResponse', v.looseObject({
  ...CredentialShape,
  response: v.looseObject({
    clientDataJSON: base64url,
    attestationObject: base64url,
    transports: v.optional(v.array(v.string())),
  }),
  name: v.optional(v.string()),
}));

export const AuthenticationFinishSchema = requestSchema('AuthenticationResponse', v.looseObject({
  ...CredentialShape,
  response: v.looseObject({
    clientDataJSON: base64url,
    authenticatorData: base64url,
    signature: base64url,
    userHandle: v.optional(base64url),
  }),
}));

/** Spec: Session, half-session → full session: rotate the id, reset the expiry, send the new cookie. */
async function elevate(c: Context<AppEnv>): Promise<Response> {
  const issued = await elevateSession(c.var.db, c.var.session.hash, c.var.config.sessionTtlDays);
  if (!issued) throw new Unauthenticated();
  setSessionCookie(c, issued);
  return c.json({ mfa_complete: true });
}

/** Spec: the four /auth/webauthn routes (half tier); D3 shapes. */
export const webauthnRoutes = [
  route(
    {
      method: 'post', path: '/auth/webauthn/register/begin', tier: 'half', summary: 'Passkey enrolment options (D3)',
      description: 'A half-session may register only while the account has no passkey; once one exists, a full session is needed (registration gate).',
      responses: {
        200: { description: 'PublicKeyCredentialCreationOptionsJSON: attestation none, resident key and user verification required, excludeCredentials = the account\'s passkeys.', json: CreationOptions },
        403: refused('Registration gate: the account already has a passkey and the session is a half-session.'),
      },
    },
    {},
    async (c) => c.json(await beginRegistration(c.var.db, relyingPartyOf(c.var.config.webOrigin), c.var.session)),
  ),
  route(
    {
      method: 'post', path: '/auth/webauthn/register/finish', tier: 'half', summary: 'Stores the passkey; elevates a half-session (D3)', json: RegistrationFinishSchema,
      responses: {
        200: { description: 'Enrolled. A half-session enrolling its first passkey is elevated: new session id in Set-Cookie.', json: Elevated, sometimes: setCookie('the elevated session (when a half-session was elevated)') },
        400: badJson('Malformed credential, failed verification, no ceremony in progress, or a passkey already registered'),
        403: refused('Registration gate (see register/begin).'),
      },
    },
    {},
    async (c, { json: { name, ...response } }) => {
      const result = await finishRegistration(
        c.var.db,
        relyingPartyOf(c.var.config.webOrigin),
        c.var.session,
        response as unknown as RegistrationResponseJSON,
        name,
        c.var.config.sessionTtlDays,
      );
      // Enrolling the first passkey elevated a half-session; a full session simply gained a passkey.
      if (result.outcome === 'elevated') setSessionCookie(c, result.session);
      return c.json({ mfa_complete: true });
    },
  ),
  route(
    {
      method: 'post', path: '/auth/webauthn/auth/begin', tier: 'half', summary: 'Passkey sign-in options (D3)',
      responses: {
        200: { description: "PublicKeyCredentialRequestOptionsJSON: allowCredentials = the account's passkeys, user verification required.", json: RequestOptions },
        400: refused('The account has no passkey yet.'),
      },
    },
    {},
    async (c) => c.json(await beginAuthentication(c.var.db, relyingPartyOf(c.var.config.webOrigin), c.var.session)),
  ),
  route(
    {
      method: 'post', path: '/auth/webauthn/auth/finish', tier: 'half', summary: 'Verifies the passkey; elevates the session (D3)', json: AuthenticationFinishSchema,
      responses: {
        200: { description: 'Full session: new session id in Set-Cookie, expiry reset to SESSION_TTL_DAYS.', json: Elevated, headers: setCookie('the elevated session') },
        400: badJson('Failed verification, no user verification, counter regression, unknown credential, or no ceremony in progress'),
      },
    },
    {},
    async (c, { json }) => {
      await finishAuthentication(c.var.db, relyingPartyOf(c.var.config.webOrigin), c.var.session, json as unknown as AuthenticationResponseJSON);
      return elevate(c);
    },
  ),
];
