import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { isoBase64URL } from '@simplewebauthn/server/helpers';
import { createHash } from 'node:crypto';
import type { Db } from '../db/database';
import { Refusal, invalid } from '../errors';
import {
  countPasskeysOf,
  findPasskeyOf,
  listPasskeysOf,
  PASSKEY_NAME_MAX_LENGTH,
  recordPasskeyUse,
  storePasskey,
} from './passkeys';
import {
  elevateSession,
  storeChallenge,
  takeChallenge,
  type IssuedSession,
  type SessionView,
} from './sessions';
import { displayControlRefusal, hasControlCharacters, hasDisplayControlCharacters, storedText } from '../text';
import { underLiveSession } from './users';

/** D2: RP ID = hostname of WEB_ORIGIN; expected origin = WEB_ORIGIN. */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

export function relyingPartyOf(webOrigin: string): RelyingParty {
  return { id: new URL(webOrigin).hostname, origin: webOrigin, name: 'Ledger' };
}

/** D3: the registration gate refused (403). */
export class RegistrationGateClosed extends Refusal {
  constructor() {
    super('forbidden', 'this account already has a passkey: sign in with it before adding another');
  }
}

/** Spec rule 3: a half-session registers only while the account has no passkey. */
async function checkRegistrationGate(db: Db, session: SessionView): Promise<void> {
  if (!session.mfaComplete && (await countPasskeysOf(db, session.userId)) > 0) throw new RegistrationGateClosed();
}

/**
 * The WebAuthn user handle: opaque and stable per user, never the email (WebAuthn §14.6.1 asks
 * that it carry no personal information).
 */
function userHandle(userId: number): Uint8Array<ArrayBuffer> {
  return new Uint8Array(createHash('sha256').update(`ledger-user:${userId}`).digest());
}

/** D3: POST /auth/webauthn/register/begin. */
export async function beginRegistration(
  db: Db,
  rp: RelyingParty,
  session: SessionView,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  await checkRegistrationGate(db, session);
  const existing = await listPasskeysOf(db, session.userId);
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: session.email,
    userID: userHandle(session.userId),
    attestationType: 'none',
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
  });
  await storeChallenge(db, session.hash, 'register', options.challenge);
  return options;
}

const VERIFICATION_FAILED = 'the passkey could not be verified';

/** Library failures (bad encodings, wrong origin, missing UV…) are the caller's: 400 with a fixed message. */
async function verified<T>(verify: () => Promise<T>): Promise<T> {
  try {
    return await verify();
  } catch {
    throw invalid(VERIFICATION_FAILED);
  }
}

/**
 * The name asked for at register/finish: trimmed and cut to 60 characters, '' when none (the
 * default is chosen later). A name carrying characters that disguise it on screen (reversed by a
 * bidi override, say) or that PostgreSQL text refuses (NUL) is refused, before anything is spent.
 */
function requestedPasskeyName(raw: unknown): string {
  if (typeof raw !== 'string') return '';
  const trimmed = raw.trim();
  if (hasControlCharacters(trimmed)) throw invalid('name must not contain control characters');
  if (hasDisplayControlCharacters(trimmed)) throw invalid(displayControlRefusal('name'));
  // D25 (issue 26 item 6): a passkey's name is stored like every name we keep: no invisible
  // characters, NFC.
  const name = storedText(trimmed).trim();
  return [...name].slice(0, PASSKEY_NAME_MAX_LENGTH).join('');
}

/** What register/finish did: a full session gained a passkey, or a half-session enrolled its first and is now full. */
export type RegistrationResult =
  | { outcome: 'added' }
  | { outcome: 'elevated'; session: IssuedSession };

/**
 * D3: POST /auth/webauthn/register/finish. The passkey is stored and, for a half-session, the
 * session elevated (spec: Session, half → full) in one transaction, under the user's row lock and
 * the session's: the registration gate (rule 3) is checked again there, so two half-sessions
 * racing to enrol a "first" passkey get one passkey between them, and a session that ended
 * meanwhile leaves no passkey behind (SessionEnded).
 */
export async function finishRegistration(
  db: Db,
  rp: RelyingParty,
  session: SessionView,
  response: RegistrationResponseJSON,
  name: unknown,
  ttlDays: number,
): Promise<RegistrationResult> {
  const requestedName = requestedPasskeyName(name);
  await checkRegistrationGate(db, session);
  const challenge = await takeChallenge(db, session.hash, 'register');
  if (!challenge) throw invalid('no registration is in progress; begin again');
  const result = await verified(() =>
    verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
    }),
  );
  if (!result.verified) throw invalid(VERIFICATION_FAILED);
  const { credential } = result.registrationInfo;
  return underLiveSession(db, session, async (tx, live): Promise<RegistrationResult> => {
    const existing = await countPasskeysOf(tx, session.userId);
    if (!live.mfaComplete && existing > 0) throw new RegistrationGateClosed();
    const stored = await storePasskey(tx, session.userId, {
      credentialId: credential.id,
      publicKey: isoBase64URL.fromBuffer(credential.publicKey),
      counter: credential.counter,
      transports: credential.transports ?? [],
      name: requestedName || `Passkey ${existing + 1}`,
    });
    if (!stored) throw invalid('that passkey is already registered');
    if (live.mfaComplete) return { outcome: 'added' };
    const elevated = await elevateSession(tx, session.hash, ttlDays);
    // The row is locked and now() is fixed for the transaction: the session found live is still live.
    if (!elevated) throw new Error('a locked live session could not be elevated');
    return { outcome: 'elevated', session: elevated };
  });
}

/** D3: POST /auth/webauthn/auth/begin. */
export async function beginAuthentication(
  db: Db,
  rp: RelyingParty,
  session: SessionView,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const existing = await listPasskeysOf(db, session.userId);
  if (existing.length === 0) throw invalid('this account has no passkey yet; register one');
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    allowCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
    userVerification: 'required',
  });
  await storeChallenge(db, session.hash, 'authenticate', options.challenge);
  return options;
}

/**
 * D3: POST /auth/webauthn/auth/finish. Spec rule 4: user verification is required, and a counter
 * that goes backwards, or stays equal after having been nonzero, is refused (the library checks
 * both; the stored counter only moves forward by a conditional UPDATE).
 */
export async function finishAuthentication(
  db: Db,
  rp: RelyingParty,
  session: SessionView,
  response: AuthenticationResponseJSON,
): Promise<void> {
  const challenge = await takeChallenge(db, session.hash, 'authenticate');
  if (!challenge) throw invalid('no sign-in with a passkey is in progress; begin again');
  const passkey = await findPasskeyOf(db, session.userId, response.id);
  if (!passkey) throw invalid('that passkey is not registered to this account');
  const result = await verified(() =>
    verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: passkey.credentialId,
        publicKey: isoBase64URL.toBuffer(passkey.publicKey),
        counter: passkey.counter,
        transports: passkey.transports,
      },
      requireUserVerification: true,
    }),
  );
  if (!result.verified) throw invalid(VERIFICATION_FAILED);
  if (!(await recordPasskeyUse(db, passkey, result.authenticationInfo.newCounter))) throw invalid(VERIFICATION_FAILED);
}
