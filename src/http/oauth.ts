import { vValidator } from '@hono/valibot-validator';
import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import {
  AuthorizationRequestSchema,
  issueAuthorizationCode,
  exchangeAuthorizationCode,
  validateAuthorizationRequest,
} from '../oauth/authorization';
import {
  checkRedirectUris,
  describeClient,
  findClient,
  reapUnusedClients,
  registerClient,
  sanitiseClientName,
} from '../oauth/clients';
import {
  decideDeviceGrant,
  describePendingDeviceGrant,
  DEVICE_GRANT_SECONDS,
  DEVICE_POLL_INTERVAL_SECONDS,
  pollDeviceCode,
  startDeviceGrant,
} from '../oauth/device-grants';
import { invalidGrant, invalidRequest, OAuthError, unknownClient } from '../oauth/errors';
import { resolvesToThisApi } from '../oauth/resource';
import { revokeByToken, rotateRefreshToken, type TokenPair } from '../oauth/grants';
import { describeIssues } from '../text';
import type { AppEnv } from './context';
import { PlainTextRejection } from './errors';
import { readForm, required } from './form';
import { requireFull, requireSession } from './tiers';
import { jsonBody } from './validation';

type Ctx = Context<AppEnv>;

const DEVICE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

/** Spec error rule 5: a bearer token on a session-only OAuth route. */
const refuseBearer = () => {
  throw new OAuthError('invalid_client', 'approve a client from the web app, not with a token', 403);
};

/** Query parameters; a missing (or repeated) one is a plain-text 400 (spec: GET /oauth/authorize). */
function query<S extends v.GenericSchema>(schema: S) {
  return vValidator('query', schema, (result) => {
    if (!result.success) throw new PlainTextRejection(400, `Failed to deserialize query string: ${describeIssues(result.issues)}`);
  });
}

/** A required query parameter named in the plain-text answer. */
const param = (name: string) => v.string(`missing field \`${name}\``);

export const AuthorizeQuerySchema = v.object({
  client_id: param('client_id'),
  redirect_uri: param('redirect_uri'),
  response_type: param('response_type'),
  code_challenge: param('code_challenge'),
  code_challenge_method: param('code_challenge_method'),
  resource: param('resource'),
  state: v.optional(v.string()),
});

/** Every byte of the raw query string, literal or percent-encoded, is printable ASCII. */
function isPrintableAscii(rawQuery: string): boolean {
  if (/[^\x20-\x7e]/.test(rawQuery)) return false;
  for (const [, hex] of rawQuery.matchAll(/%([0-9A-Fa-f]{2})/g)) {
    const byte = Number.parseInt(hex!, 16);
    if (byte < 0x20 || byte > 0x7e) return false;
  }
  return true;
}

function rawQueryOf(c: Ctx): string {
  const url = c.req.url;
  const at = url.indexOf('?');
  return at === -1 ? '' : url.slice(at + 1);
}

export const ApproveSchema = v.object({
  ...AuthorizationRequestSchema.entries,
  approve: v.boolean('approve must be true or false'),
});

/** RFC 6749 §4.1.2: the redirect back to the client, with the code or the refusal, and the state. */
function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) query.set(key, value);
  return `${redirectUri}${redirectUri.includes('?') ? '&' : '?'}${query}`;
}

export const ClientInfoQuerySchema = v.object({ client_id: param('client_id') });

export const DeviceInfoQuerySchema = v.object({ user_code: param('user_code') });

export const RegistrationSchema = v.looseObject({
  redirect_uris: v.array(v.string('each redirect URI must be a string'), 'redirect_uris must be an array of URIs'),
  client_name: v.optional(v.unknown()),
});

export const DeviceDecisionSchema = v.object({
  user_code: v.string('user_code is required'),
  approve: v.boolean('approve must be true or false'),
});

/** When present, `resource` must be this API (D11); tokens are always audienced to API_ORIGIN. */
function checkOptionalResource(c: Ctx, form: Record<string, string>): void {
  const resource = form.resource;
  if (resource !== undefined && !resolvesToThisApi(resource, c.var.config.apiOrigin)) {
    throw invalidRequest('resource must be this API');
  }
}

/** D13: the request is validated in full before any grant is looked up (nothing is consumed by a bad request). */
async function exchange(c: Ctx, form: Record<string, string>): Promise<TokenPair> {
  const audience = c.var.config.apiOrigin;
  const grantType = form.grant_type;
  if (grantType === 'authorization_code') {
    const input = {
      code: required(form, 'code'),
      redirectUri: required(form, 'redirect_uri'),
      clientId: required(form, 'client_id'),
      codeVerifier: required(form, 'code_verifier'),
    };
    checkOptionalResource(c, form);
    const pair = await exchangeAuthorizationCode(c.var.db, input, audience);
    if (!pair) throw invalidGrant('that code is not redeemable');
    return pair;
  }
  if (grantType === 'refresh_token') {
    const input = { refreshToken: required(form, 'refresh_token'), clientId: required(form, 'client_id') };
    checkOptionalResource(c, form);
    const pair = await rotateRefreshToken(c.var.db, { ...input, audience });
    if (!pair) throw invalidGrant('that refresh token is not redeemable');
    return pair;
  }
  if (grantType === DEVICE_GRANT_TYPE) {
    const input = { deviceCode: required(form, 'device_code'), clientId: required(form, 'client_id') };
    checkOptionalResource(c, form);
    return pollDeviceCode(c.var.db, { ...input, audience });
  }
  throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code, refresh_token or the device code grant');
}

/** Spec: OAuth routes. Errors in the OAuth shape with `Cache-Control: no-store` (src/http/errors.ts). */
export const oauthRoutes = new Hono<AppEnv>()
  .get('/authorize', query(AuthorizeQuerySchema), async (c) => {
    if (!isPrintableAscii(rawQueryOf(c))) throw invalidRequest('the query string must be printable ASCII');
    // No session check here: the web app's consent page signs the person in and approves.
    await validateAuthorizationRequest(c.var.db, c.req.valid('query'), c.var.config.apiOrigin);
    return c.body(null, 303, { Location: `${c.var.config.webOrigin}/authorize?${rawQueryOf(c)}` });
  })
  .post('/authorize/approve', requireSession(refuseBearer), jsonBody(ApproveSchema), async (c) => {
    const request = c.req.valid('json');
    await validateAuthorizationRequest(c.var.db, request, c.var.config.apiOrigin);
    c.header('Cache-Control', 'no-store');
    if (!request.approve) {
      return c.json({ redirect: redirectWith(request.redirect_uri, { error: 'access_denied', state: request.state }) });
    }
    const code = await issueAuthorizationCode(c.var.db, {
      clientId: request.client_id,
      userId: c.var.identity.userId,
      redirectUri: request.redirect_uri,
      codeChallenge: request.code_challenge,
    });
    return c.json({ redirect: redirectWith(request.redirect_uri, { code, state: request.state }) });
  })
  .get('/client_info', requireFull, query(ClientInfoQuerySchema), async (c) => {
    const client = await findClient(c.var.db, c.req.valid('query').client_id);
    if (!client) throw unknownClient();
    return c.json(describeClient(client));
  })
  .post('/token', async (c) => {
    // Spec: every response of the token endpoint carries Cache-Control: no-store (D13: the plain-text ones too).
    c.header('Cache-Control', 'no-store');
    const form = await readForm(c);
    if (form.grant_type === undefined) throw new PlainTextRejection(422, 'missing field `grant_type`');
    return c.json(await exchange(c, form));
  })
  .post('/device_authorization', async (c) => {
    const form = await readForm(c);
    const clientId = required(form, 'client_id');
    const resource = required(form, 'resource');
    const client = await findClient(c.var.db, clientId);
    if (!client) throw unknownClient();
    if (!resolvesToThisApi(resource, c.var.config.apiOrigin)) throw invalidRequest('resource must be this API');
    const { deviceCode, userCode } = await startDeviceGrant(c.var.db, client.id);
    const verificationUri = `${c.var.config.webOrigin}/device`;
    c.header('Cache-Control', 'no-store');
    return c.json({
      device_code: deviceCode,
      user_code: userCode,
      verification_uri: verificationUri,
      verification_uri_complete: `${verificationUri}?user_code=${userCode}`,
      expires_in: DEVICE_GRANT_SECONDS,
      interval: DEVICE_POLL_INTERVAL_SECONDS,
    });
  })
  .get('/device_info', requireSession(refuseBearer), query(DeviceInfoQuerySchema), async (c) => {
    const found = await describePendingDeviceGrant(c.var.db, c.var.session.hash, c.req.valid('query').user_code);
    return c.json({ client: describeClient(found.client), expires_in: found.expiresIn });
  })
  .post('/device/approve', requireSession(refuseBearer), jsonBody(DeviceDecisionSchema), async (c) => {
    const { user_code, approve } = c.req.valid('json');
    await decideDeviceGrant(c.var.db, {
      sessionHash: c.var.session.hash,
      userId: c.var.identity.userId,
      typedUserCode: user_code,
      approve,
    });
    return c.body(null, 204);
  })
  .post(
    '/register',
    async (c, next) => {
      await reapUnusedClients(c.var.db);
      await next();
    },
    jsonBody(RegistrationSchema, (message) => {
      throw new OAuthError('invalid_redirect_uri', message);
    }),
    async (c) => {
      // RFC 7591 §2: metadata we do not support (grant_types, scope, logo_uri…) is ignored; every client is public.
      const body = c.req.valid('json');
      checkRedirectUris(body.redirect_uris);
      const client = await registerClient(c.var.db, {
        redirectUris: body.redirect_uris,
        name: sanitiseClientName(body.client_name),
      });
      return c.json(
        {
          client_id: client.id,
          client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
          client_name: client.name,
          redirect_uris: client.redirectUris,
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
        },
        201,
      );
    },
  )
  .post('/revoke', async (c) => {
    // RFC 7009 §2.2: 200 whether or not anything was revoked.
    c.header('Cache-Control', 'no-store');
    const form = await readForm(c);
    await revokeByToken(c.var.db, required(form, 'token'), form.client_id);
    return c.body(null, 200);
  });
