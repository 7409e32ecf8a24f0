import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';

// Small helpers many test files share: digests, PKCE pairs, form requests, and the 401 of
// error rule 4 as every route answers it.

/** The challenge of every 401 (error rule 4), for the harness's API_ORIGIN. */
export const CHALLENGE = 'Bearer resource_metadata="http://localhost:38081/.well-known/oauth-protected-resource"';

/** SHA-256 of UTF-8 text, hex: how tokens, codes and session ids are stored. */
export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** A PKCE pair (RFC 7636, S256). */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A POST of an `application/x-www-form-urlencoded` body. */
export function formInit(fields: Record<string, string>): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function json<T = any>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

/** Error rule 4: the 401 with the challenge and the plain body. */
export async function expectAuthenticationRequired(res: Response, what = ''): Promise<void> {
  expect(res.status, what).toBe(401);
  expect(res.headers.get('www-authenticate'), what).toBe(CHALLENGE);
  expect(await res.json(), what).toEqual({ error: 'authentication required' });
}
