import * as v from 'valibot';
import { int, responseSchema, url } from '../shapes';
import { DEVICE_GRANT_SECONDS, DEVICE_POLL_INTERVAL_SECONDS } from './lifetimes';
import { ACCESS_TOKEN_SECONDS } from './grants';

// The JSON shapes the authorization server answers (documented in /openapi.json), written once as
// valibot schemas.

export const ProtectedResourceMetadata = responseSchema('ProtectedResourceMetadata', v.strictObject({
  resource: url,
  authorization_servers: v.array(url),
  bearer_methods_supported: v.array(v.literal('header')),
}));
export const AuthorizationServerMetadata = responseSchema('AuthorizationServerMetadata', v.strictObject({
  issuer: url,
  authorization_endpoint: url,
  token_endpoint: url,
  device_authorization_endpoint: url,
  registration_endpoint: url,
  revocation_endpoint: url,
  response_types_supported: v.array(v.literal('code')),
  grant_types_supported: v.array(v.picklist(['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'])),
  code_challenge_methods_supported: v.array(v.literal('S256')),
  token_endpoint_auth_methods_supported: v.array(v.literal('none')),
  client_id_metadata_document_supported: v.pipe(v.literal(true), v.description('D18: an https client_id names its Client ID Metadata Document')),
  authorization_response_iss_parameter_supported: v.pipe(v.literal(true), v.description('D24, RFC 9207: every authorization response carries iss')),
}));
export const Client = responseSchema('Client', v.strictObject({
  id: v.pipe(v.string(), v.description('for a client with a metadata document (D18), the https URL it was fetched from')),
  name: v.string(),
  dynamic: v.boolean(),
  first_use: v.pipe(v.boolean(), v.description('the client never completed a grant')),
  redirect_uris: v.array(v.string()),
}));
export const Redirect = responseSchema('Redirect', v.strictObject({
  redirect: v.pipe(v.string(), v.description('redirect_uri with ?code=…&state=…&iss=… (approved) or ?error=access_denied&state=…&iss=… (denied); iss is API_ORIGIN (RFC 9207)')),
}));
export const TokenResponse = responseSchema('TokenResponse', v.strictObject({
  access_token: v.string(),
  token_type: v.literal('Bearer'),
  expires_in: v.literal(ACCESS_TOKEN_SECONDS),
  refresh_token: v.string(),
}));
export const DeviceAuthorization = responseSchema('DeviceAuthorization', v.strictObject({
  device_code: v.string(),
  user_code: v.pipe(v.string(), v.regex(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/)),
  verification_uri: url,
  verification_uri_complete: url,
  expires_in: v.literal(DEVICE_GRANT_SECONDS),
  interval: v.literal(DEVICE_POLL_INTERVAL_SECONDS),
}));
export const DeviceInfo = responseSchema('DeviceInfo', v.strictObject({ client: Client, expires_in: v.pipe(int, v.description('seconds remaining')) }));
export const ClientRegistered = responseSchema('ClientRegistered', v.strictObject({
  client_id: v.pipe(v.string(), v.regex(/^dyn_/)),
  client_id_issued_at: v.pipe(int, v.description('Unix seconds')),
  client_name: v.string(),
  redirect_uris: v.array(v.string()),
  token_endpoint_auth_method: v.literal('none'),
  grant_types: v.array(v.picklist(['authorization_code', 'refresh_token'])),
  response_types: v.array(v.literal('code')),
}));
