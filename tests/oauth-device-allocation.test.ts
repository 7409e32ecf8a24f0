import { count } from 'drizzle-orm';
import { beforeEach, expect, it, vi } from 'vitest';
import { deviceGrants } from '../src/db/schema';
import { describeEachDatabase } from './support/harness';

// Spec: POST /oauth/device_authorization, "500 server_error: no unique user code after three
// tries"; Limits (user-code allocation tries: 3); error rule 3 (the generic description) and
// rule 7 (no-store). User codes are drawn with node:crypto's randomInt; here it always answers 0,
// so every draw is AAAA-AAAA and the second grant can never get a code of its own.

const randomInt = vi.hoisted(() => vi.fn((_max: number) => 0));

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, randomInt };
});

const SYMBOLS_PER_CODE = 8;
const API = 'http://localhost:38081';

const deviceAuthorization = {
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ client_id: 'ledger-desktop', resource: API }).toString(),
};

describeEachDatabase('device_authorization: three user-code allocation tries, then 500 server_error', (h) => {
  beforeEach(() => {
    randomInt.mockClear();
  });

  it('the first grant gets AAAA-AAAA; the second draws it 3 times, then answers 500 server_error with the generic description and no-store', async () => {
    const first = await h.request('/oauth/device_authorization', deviceAuthorization);
    expect(first.status).toBe(200);
    expect(((await first.json()) as { user_code: string }).user_code).toBe('AAAA-AAAA');
    expect(randomInt).toHaveBeenCalledTimes(SYMBOLS_PER_CODE);
    randomInt.mockClear();

    const second = await h.request('/oauth/device_authorization', deviceAuthorization);
    expect(second.status).toBe(500);
    expect(second.headers.get('content-type')).toMatch(/^application\/json/);
    expect(second.headers.get('cache-control')).toBe('no-store');
    expect(await second.json()).toStrictEqual({ error: 'server_error', error_description: 'something went wrong on the server' });
    // Exactly three tries: three codes of 8 symbols each, and no more.
    expect(randomInt).toHaveBeenCalledTimes(3 * SYMBOLS_PER_CODE);
    for (const [max] of randomInt.mock.calls) expect(max).toBe(30);
    const [rows] = await h.db.select({ n: count() }).from(deviceGrants);
    expect(rows!.n).toBe(1);
    expect(h.logs.some((line) => line.level === 'error' && line.event === 'request.fault' && line.fields.path === '/oauth/device_authorization')).toBe(true);
  });
});
