import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Context } from 'hono';
import { Hono } from 'hono';
import * as v from 'valibot';
import { elevateSession } from '../identity/sessions';
import { beginAuthentication, beginRegistration, finishAuthentication, finishRegistration, relyingPartyOf } from '../identity/webauthn';
import type { AppEnv } from './context';
import { Unauthenticated } from './errors';
import { setSessionCookie } from './session-cookie';
import { requireHalf } from './tiers';
import { jsonBody } from './validation';

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

export const RegistrationFinishSchema = v.looseObject({
  ...CredentialShape,
  response: v.looseObject({
    clientDataJSON: base64url,
    attestationObject: base64url,
    transports: v.optional(v.array(v.string())),
  }),
  name: v.optional(v.string()),
});

export const AuthenticationFinishSchema = v.looseObject({
  ...CredentialShape,
  response: v.looseObject({
    clientDataJSON: base64url,
    authenticatorData: base64url,
    signature: base64url,
    userHandle: v.optional(base64url),
  }),
});

/** Spec: Session, half-session → full session: rotate the id, reset the expiry, send the new cookie. */
async function elevate(c: Context<AppEnv>): Promise<Response> {
  const issued = await elevateSession(c.var.db, c.var.session.hash, c.var.config.sessionTtlDays);
  if (!issued) throw new Unauthenticated();
  setSessionCookie(c, issued);
  return c.json({ mfa_complete: true });
}

/** Spec: the four /auth/webauthn routes (half tier); D3 shapes. */
export const webauthnRoutes = new Hono<AppEnv>()
  .use(requireHalf)
  .post('/register/begin', async (c) =>
    c.json(await beginRegistration(c.var.db, relyingPartyOf(c.var.config.webOrigin), c.var.session)),
  )
  .post('/register/finish', jsonBody(RegistrationFinishSchema), async (c) => {
    const { name, ...response } = c.req.valid('json');
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
  })
  .post('/auth/begin', async (c) =>
    c.json(await beginAuthentication(c.var.db, relyingPartyOf(c.var.config.webOrigin), c.var.session)),
  )
  .post('/auth/finish', jsonBody(AuthenticationFinishSchema), async (c) => {
    await finishAuthentication(
      c.var.db,
      relyingPartyOf(c.var.config.webOrigin),
      c.var.session,
      c.req.valid('json') as unknown as AuthenticationResponseJSON,
    );
    return elevate(c);
  });
