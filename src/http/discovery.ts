import { Hono } from 'hono';
import type { AppEnv } from './context';

/** Spec: Discovery documents (RFC 9728 and RFC 8414), at the plain `.well-known` paths. */
export const discoveryRoutes = new Hono<AppEnv>()
  .get('/oauth-protected-resource', (c) => {
    const api = c.var.config.apiOrigin;
    return c.json({ resource: api, authorization_servers: [api], bearer_methods_supported: ['header'] });
  })
  .get('/oauth-authorization-server', (c) => {
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
    });
  });
