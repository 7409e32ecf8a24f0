import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/**
 * A software passkey for tests (WebAuthn Level 3 §6.1 authenticator data, §8.7 "none"
 * attestation, ES256): real keys and real signatures, so the server's verification is the real
 * one. The test controls the user-verification flag and the signature counter of each ceremony.
 */
export class SoftwareAuthenticator {
  readonly credentialId: Buffer = randomBytes(16);
  /** The counter the next assertion reports (then incremented, unless a ceremony overrides it). */
  counter = 0;
  readonly #privateKey: KeyObject;
  readonly #publicKey: KeyObject;

  constructor(
    readonly origin = 'http://localhost:38080',
    readonly rpId = new URL(origin).hostname,
  ) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.#privateKey = pair.privateKey;
    this.#publicKey = pair.publicKey;
  }

  get id(): string {
    return this.credentialId.toString('base64url');
  }

  /** navigator.credentials.create() answering `options`, as `credential.toJSON()` gives it. */
  register(
    options: PublicKeyCredentialCreationOptionsJSON,
    ceremony: { userVerified?: boolean; origin?: string; counter?: number } = {},
  ): RegistrationResponseJSON {
    const clientDataJSON = this.#clientData('webauthn.create', options.challenge, ceremony.origin);
    const authData = Buffer.concat([
      this.#rpIdHash(options.rp.id ?? this.rpId),
      Buffer.from([flags({ userVerified: ceremony.userVerified ?? true, attested: true })]),
      uint32(ceremony.counter ?? this.counter),
      Buffer.alloc(16), // AAGUID: zero for "none" attestation
      uint16(this.credentialId.length),
      this.credentialId,
      Buffer.from(isoCBOR.encode(this.#coseKey())),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Map<string, string> | Uint8Array>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, string>()],
        ['authData', new Uint8Array(authData)],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        attestationObject: Buffer.from(attestationObject).toString('base64url'),
        transports: ['internal'],
      },
    };
  }

  /** navigator.credentials.get() answering `options`. */
  authenticate(
    options: PublicKeyCredentialRequestOptionsJSON,
    ceremony: { userVerified?: boolean; counter?: number; origin?: string; challenge?: string } = {},
  ): AuthenticationResponseJSON {
    if (ceremony.counter === undefined) this.counter += 1;
    const counter = ceremony.counter ?? this.counter;
    const clientDataJSON = this.#clientData('webauthn.get', ceremony.challenge ?? options.challenge, ceremony.origin);
    const authenticatorData = Buffer.concat([
      this.#rpIdHash(options.rpId ?? this.rpId),
      Buffer.from([flags({ userVerified: ceremony.userVerified ?? true, attested: false })]),
      uint32(counter),
    ]);
    const signature = sign(
      'sha256',
      Buffer.concat([authenticatorData, createHash('sha256').update(clientDataJSON).digest()]),
      this.#privateKey,
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        authenticatorData: authenticatorData.toString('base64url'),
        signature: signature.toString('base64url'),
      },
    };
  }

  #clientData(type: string, challenge: string, origin = this.origin): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  #rpIdHash(rpId: string): Buffer {
    return createHash('sha256').update(rpId).digest();
  }

  /** RFC 9053 §7.1.1 EC2 key: kty 2, alg -7 (ES256), crv 1 (P-256), x, y. */
  #coseKey(): Map<number, number | Uint8Array> {
    const jwk = this.#publicKey.export({ format: 'jwk' });
    return new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, new Uint8Array(Buffer.from(jwk.x!, 'base64url'))],
      [-3, new Uint8Array(Buffer.from(jwk.y!, 'base64url'))],
    ]);
  }
}

/** Authenticator data flags: UP (bit 0), UV (bit 2), AT (bit 6). */
function flags({ userVerified, attested }: { userVerified: boolean; attested: boolean }): number {
  return 0x01 | (userVerified ? 0x04 : 0) | (attested ? 0x40 : 0);
}

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

function uint16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}
