import * as v from 'valibot';
import { AuthorizationRequestSchema } from '../oauth/authorization';
import { requestSchema } from '../shapes';

// What the OAuth routes (src/http/oauth.ts) are sent: their query strings, JSON bodies and forms,
// as valibot schemas. The queries and JSON bodies are checked by them; the forms are read field by
// field by src/http/form.ts (error rule 6 wants the first missing field named, in the spec's
// order), and their schemas describe them in /openapi.json.

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

export const ApproveSchema = requestSchema(
  'AuthorizationApproval',
  v.object({
    ...AuthorizationRequestSchema.entries,
    approve: v.boolean('approve must be true or false'),
  }),
);

export const ClientInfoQuerySchema = v.object({ client_id: param('client_id') });

export const DeviceInfoQuerySchema = v.object({ user_code: param('user_code') });

export const RegistrationSchema = requestSchema(
  'ClientRegistrationRequest',
  v.looseObject({
    redirect_uris: v.array(v.string('each redirect URI must be a string'), 'redirect_uris must be an array of URIs'),
    client_name: v.optional(v.unknown()),
  }),
);

export const DeviceDecisionSchema = requestSchema(
  'DeviceDecision',
  v.object({
    user_code: v.string('user_code is required'),
    approve: v.boolean('approve must be true or false'),
  }),
);

const clientId = v.pipe(v.string(), v.description('the client'));
const resource = v.pipe(v.string(), v.description('this API (RFC 8707); when present it must resolve to API_ORIGIN'));
export const TokenRequest = requestSchema('TokenRequest', v.variant('grant_type', [
  v.object({
    grant_type: v.literal('authorization_code'),
    code: v.string(),
    redirect_uri: v.pipe(v.string(), v.description('exactly the one approved')),
    client_id: clientId,
    code_verifier: v.pipe(v.string(), v.description('PKCE: BASE64URL(SHA-256(verifier)) = the code_challenge')),
    resource: v.optional(resource),
  }),
  v.object({ grant_type: v.literal('refresh_token'), refresh_token: v.string(), client_id: clientId, resource: v.optional(resource) }),
  v.object({
    grant_type: v.literal('urn:ietf:params:oauth:grant-type:device_code'),
    device_code: v.string(),
    client_id: clientId,
    resource: v.optional(resource),
  }),
]));
export const DeviceAuthorizationRequest = v.object({ client_id: clientId, resource: v.pipe(v.string(), v.description('this API (RFC 8707)')) });
export const RevocationRequest = v.object({
  token: v.string(),
  token_type_hint: v.optional(v.pipe(v.string(), v.description('ignored'))),
  client_id: v.optional(v.pipe(v.string(), v.description('scopes the revocation: a mismatch revokes nothing (and still answers 200)'))),
});
