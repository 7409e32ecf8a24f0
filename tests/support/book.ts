import { expect } from 'vitest';
import type { Harness } from './harness';
import { json } from './http';

/**
 * A test's requests on one book over the API, with a bearer token and accounts named in the test
 * (both read when called, as tests set them in beforeAll): money moved between two named accounts,
 * and a post that must be 201.
 */
export function bookRequests(h: Harness, token: () => string, ids: () => Record<string, number>) {
  const api = (method: string, path: string, body?: unknown) => h.call(token(), method, path, body);
  /** Money moved out of `from` into `to` (the entry on `to` is the debit), as POST and PUT take it. */
  const move = (description: string, cents: number, on: string, from: string, to: string) => ({
    occurred_on: on,
    description,
    entries: [
      { account_id: ids()[to]!, amount_cents: cents },
      { account_id: ids()[from]!, amount_cents: -cents },
    ],
  });
  /** Posts a transaction that must be accepted; its id. */
  const post = async (body: unknown): Promise<number> => {
    const res = await api('POST', '/transactions', body);
    expect(res.status, await res.clone().text()).toBe(201);
    return (await json(res)).id as number;
  };
  return { api, move, post };
}
