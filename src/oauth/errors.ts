/** Spec: OAuth error codes. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_grant'
  | 'invalid_client'
  | 'invalid_redirect_uri'
  | 'unsupported_grant_type'
  | 'authorization_pending'
  | 'slow_down'
  | 'access_denied'
  | 'expired_token'
  | 'temporarily_unavailable'
  | 'server_error';

/**
 * An OAuth refusal (RFC 6749 §5.2 shape): `{error, error_description}` with `Cache-Control:
 * no-store` (error rule 7), mapped to HTTP in src/http/errors.ts.
 */
export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly status: 400 | 401 | 403 | 415 | 429 | 500 = 400,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

export const invalidRequest = (description: string, status: 400 | 429 = 400) =>
  new OAuthError('invalid_request', description, status);
export const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);
export const unknownClient = () => new OAuthError('invalid_client', 'no client is registered with that client_id', 401);
