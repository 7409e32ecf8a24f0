import { api } from './api';
import { t } from './i18n';

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
 * DOMException's name (WebAuthn Level 3 §5.1.3 and §5.1.4 name the ones a ceremony throws); the
 * words are the catalogue's (D29), asked when the failure happens.
 */
const FAILURES: Record<string, Record<Ceremony, () => string>> = {
  // An excluded credential is on the device: it already has a passkey for this account.
  InvalidStateError: {
    create: () => t('signIn.failures.create.invalidState'),
    get: () => t('signIn.failures.get.invalidState'),
  },
  // Cancelled, timed out, the person not verified, or (when signing in) no passkey for Ledger here.
  NotAllowedError: {
    create: () => t('signIn.failures.create.notAllowed'),
    get: () => t('signIn.failures.get.notAllowed'),
  },
  AbortError: {
    create: () => t('signIn.failures.aborted'),
    get: () => t('signIn.failures.aborted'),
  },
  // The page's address does not match the passkeys' (the relying party is WEB_ORIGIN's host).
  SecurityError: {
    create: () => t('signIn.failures.wrongAddress'),
    get: () => t('signIn.failures.wrongAddress'),
  },
  NotSupportedError: {
    create: () => t('signIn.failures.create.notSupported'),
    get: () => t('signIn.failures.get.notSupported'),
  },
  // The device cannot keep the passkey on it or cannot check a fingerprint, face or PIN.
  ConstraintError: {
    create: () => t('signIn.failures.create.constraint'),
    get: () => t('signIn.failures.get.constraint'),
  },
  UnknownError: {
    create: () => t('signIn.failures.create.unknown'),
    get: () => t('signIn.failures.get.unknown'),
  },
};

const OTHER: Record<Ceremony, () => string> = {
  create: () => t('signIn.failures.create.other'),
  get: () => t('signIn.failures.get.other'),
};

/** A browser's failure of a passkey request, as a sentence for people. */
function passkeyFailure(error: unknown, ceremony: Ceremony): Error {
  const name = typeof error === 'object' && error !== null && 'name' in error ? String(error.name) : '';
  return new Error((FAILURES[name]?.[ceremony] ?? OTHER[ceremony])());
}

function statics(): PublicKeyCredentialStatic {
  if (!('PublicKeyCredential' in window)) throw new Error(t('signIn.failures.noPasskeys'));
  return PublicKeyCredential as unknown as PublicKeyCredentialStatic;
}

function toJSON(credential: Credential | null): Json {
  if (!credential) throw new Error(t('signIn.failures.noCredential'));
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
    throw error instanceof TypeError ? new Error(t('signIn.failures.unreachable')) : error;
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
