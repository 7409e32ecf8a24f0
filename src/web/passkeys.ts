import { api } from './api';

// WebAuthn in the browser without a client library (stack notes): the JSON options from the API
// are parsed by the browser, and `credential.toJSON()` is what the API verifies (D3).

type Json = Record<string, unknown>;
interface PublicKeyCredentialStatic {
  parseCreationOptionsFromJSON(options: Json): PublicKeyCredentialCreationOptions;
  parseRequestOptionsFromJSON(options: Json): PublicKeyCredentialRequestOptions;
}

function statics(): PublicKeyCredentialStatic {
  if (!('PublicKeyCredential' in window)) throw new Error('This browser cannot use passkeys.');
  return PublicKeyCredential as unknown as PublicKeyCredentialStatic;
}

function toJSON(credential: Credential | null): Json {
  if (!credential) throw new Error('No passkey was provided.');
  return (credential as unknown as { toJSON(): Json }).toJSON();
}

/** Enrols a passkey: the first one elevates the session; later ones need a full session (D3). */
export async function enrolPasskey(name?: string): Promise<void> {
  const options = await api<Json>('POST', '/auth/webauthn/register/begin');
  const credential = await navigator.credentials.create({ publicKey: statics().parseCreationOptionsFromJSON(options) });
  await api('POST', '/auth/webauthn/register/finish', { ...toJSON(credential), name });
}

/** Signs in with an enrolled passkey: the half-session becomes a full one. */
export async function signInWithPasskey(): Promise<void> {
  const options = await api<Json>('POST', '/auth/webauthn/auth/begin');
  const credential = await navigator.credentials.get({ publicKey: statics().parseRequestOptionsFromJSON(options) });
  await api('POST', '/auth/webauthn/auth/finish', toJSON(credential));
}
