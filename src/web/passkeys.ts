import { api } from './api';

// WebAuthn in the browser without a client library (stack notes): the JSON options from the API
// are parsed by the browser, and `credential.toJSON()` is what the API verifies (D3).

type Json = Record<string, unknown>;
interface PublicKeyCredentialStatic {
  parseCreationOptionsFromJSON(options: Json): PublicKeyCredentialCreationOptions;
  parseRequestOptionsFromJSON(options: Json): PublicKeyCredentialRequestOptions;
}

type Ceremony = 'create' | 'get';

/**
 * Issue 6/7 finding 9: every way a passkey request fails in the browser, in words for people (the
 * browser's own text, such as "The user attempted to register an authenticator that contains one
 * of the credentials already registered with the relying party.", is never shown). Keyed by the
 * DOMException's name (WebAuthn Level 3 §5.1.3 and §5.1.4 name the ones a ceremony throws).
 */
const FAILURES: Record<string, Record<Ceremony, string>> = {
  // An excluded credential is on the device: it already has a passkey for this account.
  InvalidStateError: {
    create: 'This device already has a passkey for Ledger; use it to sign in, or add a passkey on another device.',
    get: 'This device could not use its passkey. Try again, or use another device that has your passkey.',
  },
  // Cancelled, timed out, the person not verified, or (when signing in) no passkey for Ledger here.
  NotAllowedError: {
    create: 'No passkey was added: the request was cancelled, timed out or not confirmed on the device. Try again when you are ready.',
    get: 'You were not signed in with a passkey: the request was cancelled, timed out or not confirmed, or this device has no passkey for Ledger. Try again, or use the device you made your passkey on.',
  },
  AbortError: {
    create: 'The passkey request was stopped before it finished. Try again.',
    get: 'The passkey request was stopped before it finished. Try again.',
  },
  // The page's address does not match the passkeys' (the relying party is WEB_ORIGIN's host).
  SecurityError: {
    create: 'Passkeys for Ledger work only at its own address. Open Ledger at the address you were given (not an IP address or another name) and try again.',
    get: 'Passkeys for Ledger work only at its own address. Open Ledger at the address you were given (not an IP address or another name) and try again.',
  },
  NotSupportedError: {
    create: 'This browser or device cannot make the kind of passkey Ledger needs. Try another browser, or a phone or security key.',
    get: 'This browser or device cannot use passkeys for Ledger. Try another browser, or a phone or security key.',
  },
  // The device cannot keep the passkey on it or cannot check a fingerprint, face or PIN.
  ConstraintError: {
    create: 'This device cannot keep a passkey that checks your fingerprint, face or PIN. Set up a screen lock on it, or use another device.',
    get: 'This device cannot check your fingerprint, face or PIN. Set up a screen lock on it, or use another device.',
  },
  UnknownError: {
    create: 'The device could not make the passkey. Try again, or use another device.',
    get: 'The device could not use the passkey. Try again, or use another device.',
  },
};

const UNREACHABLE = 'Ledger could not be reached. Check the connection and try again.';
const OTHER: Record<Ceremony, string> = {
  create: 'The passkey could not be made. Try again, or use another device.',
  get: 'The passkey could not be used. Try again, or use another device.',
};

/** A browser's failure of a passkey request, as a sentence for people. */
function passkeyFailure(error: unknown, ceremony: Ceremony): Error {
  const name = typeof error === 'object' && error !== null && 'name' in error ? String(error.name) : '';
  return new Error(FAILURES[name]?.[ceremony] ?? OTHER[ceremony]);
}

function statics(): PublicKeyCredentialStatic {
  if (!('PublicKeyCredential' in window)) throw new Error('This browser cannot use passkeys. Try another browser, or a phone.');
  return PublicKeyCredential as unknown as PublicKeyCredentialStatic;
}

function toJSON(credential: Credential | null): Json {
  if (!credential) throw new Error('No passkey was provided.');
  return (credential as unknown as { toJSON(): Json }).toJSON();
}

/** The browser's part of a ceremony, its failures worded. */
async function ask<T>(ceremony: Ceremony, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw passkeyFailure(error, ceremony);
  }
}

/** The API's part: its refusals keep their messages; a request that never reached it ("Failed to fetch") is worded. */
async function send<T>(method: string, path: string, body?: unknown): Promise<T> {
  try {
    return await api<T>(method, path, body);
  } catch (error) {
    throw error instanceof TypeError ? new Error(UNREACHABLE) : error;
  }
}

/** Enrols a passkey: the first one elevates the session; later ones need a full session (D3). */
export async function enrolPasskey(name?: string): Promise<void> {
  const options = await send<Json>('POST', '/auth/webauthn/register/begin');
  const publicKey = statics().parseCreationOptionsFromJSON(options);
  const credential = await ask('create', () => navigator.credentials.create({ publicKey }));
  await send('POST', '/auth/webauthn/register/finish', { ...toJSON(credential), name });
}

/** Signs in with an enrolled passkey: the half-session becomes a full one. */
export async function signInWithPasskey(): Promise<void> {
  const options = await send<Json>('POST', '/auth/webauthn/auth/begin');
  const publicKey = statics().parseRequestOptionsFromJSON(options);
  const credential = await ask('get', () => navigator.credentials.get({ publicKey }));
  await send('POST', '/auth/webauthn/auth/finish', toJSON(credential));
}
