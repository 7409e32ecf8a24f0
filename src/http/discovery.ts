import { AuthorizationServerMetadata, ProtectedResourceMetadata } from '../oauth/views';
import { route } from './route';

/** Discovery documents (RFC 9728, RFC 8414): everything is under API_ORIGIN. */
export const discoveryRoutes = [
  route(
    {
      method: 'get', path: '/.well-known/oauth-protected-resource', tier: 'open', summary: 'Protected resource metadata (RFC 9728)', cannotFail: true,
      responses: { 200: { description: 'resource = authorization server = API_ORIGIN.', json: ProtectedResourceMetadata } },
    },
    {},
    (c) => {
      const api = c.var.config.apiOrigin;
      return c.json({ resource: api, authorization_servers: [api], bearer_methods_supported: ['header'] });
    },
  ),
  route(
    {
      method: 'get', path: '/.well-known/oauth-authorization-server', tier: 'open', summary: 'Authorization server metadata (RFC 8414)', cannotFail: true,
      responses: { 200: { description: 'issuer = API_ORIGIN; endpoints under it; Client ID Metadata Documents supported (D18).', json: AuthorizationServerMetadata } },
    },
    {},
    (c) => {
      const api = c.var.config.apiOrigin;
      return c.json({
        issuer: api,
        authorization_endpoint: `${api}/oauth/authorize`,
        token_endpoint: `${api}/oauth/token`,
        device_authorization_endpoint: `${api}/oauth/device_authorization`,
        registration_endpoint: `${api}/oauth/register`,
        revocation_endpoint: `${api}/oauth/revoke`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        // D18: a client may name itself by the https URL of its Client ID Metadata Document.
        client_id_metadata_document_supported: true,
        // D24, RFC 9207: authorization responses carry `iss`, which clients must then check.
        authorization_response_iss_parameter_supported: true,
      });
    },
  ),
];
