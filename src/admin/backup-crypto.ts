import { Decrypter, Encrypter, type Identity, type Stanza } from 'age-encryption';
import { invalid, Refusal } from '../errors';

/**
 * D22 (issue 5/8): an encrypted backup is an age file (https://age-encryption.org/v1) whose
 * plaintext is the backup itself, encrypted with a passphrase through age's scrypt recipient by
 * `age-encryption`, the TypeScript implementation by age's authors. age encrypts in 64 KiB chunks
 * (ChaCha20-Poly1305, each chunk authenticated, the last one marked as last) behind a header
 * authenticated with a key from the passphrase: a wrong passphrase, any changed byte and a cut
 * file are all refused, and `age -d` opens the file too. Both directions stream: only a chunk or
 * two is ever in memory.
 */

/** age's first line: how `ledger restore` tells an encrypted backup from a plain one. */
export const AGE_FIRST_LINE = 'age-encryption.org/v1\n';

/**
 * scrypt's work factor for new backups (log2 N, with r = 8; issue 36 item 3): 2^17, OWASP's floor
 * for scrypt, takes 128 MiB (128 · r · N bytes) and 0.9 s here, once, before the first line is
 * read; a Raspberry Pi 4 takes a few seconds. age's own default, 2^18, doubles both, which on a
 * 1 GiB board beside PostgreSQL and `serve` is more than a daily backup should ask. Ledger before
 * issue 36 wrote 2^15. A file is read at the factor its stanza names (age's scrypt identity takes
 * log2 N from the header), so older backups restore as they were written.
 */
export const SCRYPT_LOG_N = 17;

/**
 * The dearest stanza a restore computes: age's default, so a backup re-sealed with `age -p` (to
 * change its passphrase) restores. More is refused before any work, so a file from elsewhere
 * cannot make a restore take a GiB (age-encryption itself would go to 2^20).
 */
export const SCRYPT_MAX_LOG_N = 18;

/** The plaintext chunks, encrypted: the age header, then each 64 KiB chunk as soon as it is full. */
export async function* encryptChunks(plaintext: AsyncIterable<Uint8Array>, passphrase: string): AsyncGenerator<Uint8Array> {
  const encrypter = new Encrypter();
  encrypter.setPassphrase(passphrase);
  encrypter.setScryptWorkFactor(SCRYPT_LOG_N);
  yield* chunksOf(await encrypter.encrypt(pulled(plaintext)));
}

/**
 * The plaintext of an age file's chunks. The header is checked before this resolves: a wrong
 * passphrase or a damaged header is refused here, a damaged or cut chunk where it is read.
 */
export async function decryptChunks(file: string, ciphertext: AsyncIterable<Uint8Array>, passphrase: string): Promise<AsyncIterable<Uint8Array>> {
  const decrypter = new Decrypter();
  decrypter.addIdentity(boundedScrypt(file));
  decrypter.addPassphrase(passphrase);
  let plaintext: ReadableStream<Uint8Array>;
  try {
    plaintext = await decrypter.decrypt(pulled(ciphertext));
  } catch (error) {
    if (error instanceof Error && /no identity matched/.test(error.message)) throw invalid(`wrong passphrase for ${file}`);
    throw damagedEncrypted(file, error);
  }
  return (async function* () {
    try {
      yield* chunksOf(plaintext);
    } catch (error) {
      throw damagedEncrypted(file, error);
    }
  })();
}

/** What `ledger restore` says of an encrypted file that does not authenticate (or a cut one). */
function damagedEncrypted(file: string, error: unknown) {
  if (error instanceof Refusal) return error;
  return invalid(`${file} is damaged (truncated or altered): it does not decrypt and authenticate`);
}

/** Refuses a scrypt stanza dearer than SCRYPT_MAX_LOG_N before the passphrase identity computes it. */
function boundedScrypt(file: string): Identity {
  return {
    unwrapFileKey(stanzas: Stanza[]) {
      for (const stanza of stanzas) {
        if (stanza.args[0] === 'scrypt' && !(Number(stanza.args[2]) <= SCRYPT_MAX_LOG_N)) {
          throw invalid(`${file} asks for a scrypt work factor above 2^${SCRYPT_MAX_LOG_N}: it was not encrypted by ledger backup`);
        }
      }
      return null;
    },
  };
}

/** A web stream's chunks as they come; a reader that stops early cancels it. */
async function* chunksOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      yield next.value;
    }
    done = true;
  } finally {
    if (!done) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/** A web stream that reads its source only when asked: backpressure end to end. */
function pulled(source: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = source[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      async cancel(reason) {
        await iterator.return?.(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
