import * as v from 'valibot';
import { int, responseSchema, timestamp } from '../shapes';

// The JSON shapes in which sessions, passkeys and connections are answered (documented in
// /openapi.json), written once as valibot schemas; the domain functions return their types.

export const tokenHash = v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/), v.description('SHA-256 digest of the token, hex'));

export const grantId = v.pipe(v.string(), v.uuid(), v.description('D25: a grant (token family) id'));
export const Connection = responseSchema('Connection', v.strictObject({
  id: tokenHash,
  client_id: v.string(),
  client_name: v.string(),
  kind: v.picklist(['access', 'refresh']),
  grant_id: v.pipe(v.nullable(grantId), v.description('D25: the family of an OAuth connection, the same through every rotation (DELETE /auth/grants/{grant_id}); null for a minted token')),
  label: v.nullable(v.string()),
  last_used_at: v.nullable(timestamp),
  expires_at: timestamp,
}));
export const Passkey = responseSchema('Passkey', v.strictObject({ id: int, name: v.string(), created_at: timestamp, last_used_at: v.nullable(timestamp) }));
export const Me = responseSchema('Me', v.strictObject({
  email: v.string(),
  has_passkeys: v.boolean(),
  mfa_complete: v.literal(true),
  via: v.picklist(['session', 'bearer']),
}));
export const LoginResult = responseSchema('LoginResult', v.strictObject({ has_passkeys: v.boolean(), mfa_complete: v.literal(false) }));
export const Elevated = responseSchema('Elevated', v.strictObject({ mfa_complete: v.literal(true) }));

// D3: the option documents of @simplewebauthn (WebAuthn Level 3 JSON). Open objects: the library
// may add members browsers understand.
const CredentialDescriptor = v.object({ id: v.string(), type: v.literal('public-key'), transports: v.optional(v.array(v.string())) });
export const CreationOptions = responseSchema('CreationOptions', v.pipe(
  v.object({
    rp: v.object({ name: v.string(), id: v.optional(v.string()) }),
    user: v.object({ id: v.string(), name: v.string(), displayName: v.string() }),
    challenge: v.pipe(v.string(), v.description('base64url; single-use, 5 minutes, bound to the session')),
    pubKeyCredParams: v.array(v.object({ alg: int, type: v.literal('public-key') })),
    timeout: v.optional(int),
    excludeCredentials: v.pipe(v.array(CredentialDescriptor), v.description("the account's passkeys")),
    authenticatorSelection: v.object({
      residentKey: v.literal('required'),
      userVerification: v.literal('required'),
      requireResidentKey: v.optional(v.boolean()),
      authenticatorAttachment: v.optional(v.string()),
    }),
    attestation: v.literal('none'),
    hints: v.optional(v.array(v.string())),
    attestationFormats: v.optional(v.array(v.string())),
    extensions: v.optional(v.record(v.string(), v.unknown())),
  }),
  v.description('PublicKeyCredentialCreationOptionsJSON, for navigator.credentials.create()'),
));
export const RequestOptions = responseSchema('RequestOptions', v.pipe(
  v.object({
    challenge: v.pipe(v.string(), v.description('base64url; single-use, 5 minutes, bound to the session')),
    timeout: v.optional(int),
    rpId: v.optional(v.string()),
    allowCredentials: v.pipe(v.array(CredentialDescriptor), v.description("the account's passkeys")),
    userVerification: v.literal('required'),
    hints: v.optional(v.array(v.string())),
    extensions: v.optional(v.record(v.string(), v.unknown())),
  }),
  v.description('PublicKeyCredentialRequestOptionsJSON, for navigator.credentials.get()'),
));
