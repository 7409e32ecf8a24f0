import * as argon2 from '@node-rs/argon2';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { DECOY_PASSWORD_HASH, hashPassword, verifyPassword } from '../src/identity/passwords';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { describeEachDatabase } from './support/harness';

// D4: "unknown emails still spend one password-hash verification (equal timing)"; "while an email
// is in its delay, login answers 429 … without checking the password". Spec: Login and second
// factor rule 5 (a wrong password and an unknown email are indistinguishable). The real argon2
// still runs: the spies only count the calls.

vi.mock('@node-rs/argon2', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@node-rs/argon2')>();
  return { ...actual, hash: vi.fn(actual.hash), verify: vi.fn(actual.verify) };
});

const T0 = new Date('2032-02-01T08:00:00.000Z');
const PASSWORD = 'login cost password 0001';
const WRONG = 'not the login cost password';

/** `$argon2id$v=19$m=…,t=…,p=…$`: everything of a PHC string but the salt and the digest. */
const parametersOf = (phc: string) => phc.split('$').slice(1, 4).join('$');

describeEachDatabase('password-hash cost of a login (D4; Login rule 5)', (h) => {
  let serial = 0;
  const hashes = vi.mocked(argon2.hash);
  const verifies = vi.mocked(argon2.verify);
  const calls = () => ({ hash: hashes.mock.calls.length, verify: verifies.mock.calls.length });

  beforeEach(() => {
    h.clock = T0;
    hashes.mockClear();
    verifies.mockClear();
  });
  afterEach(() => {
    h.clock = undefined;
  });

  async function login(email: string, password: string): Promise<number> {
    const res = await h.request('/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    return res.status;
  }

  async function knownUser(label: string): Promise<string> {
    serial += 1;
    const email = `${label}-${serial}@cost.example`;
    await h.userWithToken(email, PASSWORD);
    hashes.mockClear();
    verifies.mockClear();
    return email;
  }

  // First in the file on purpose: the first unknown email after start-up pays no more than later ones.
  it('D4: an unknown email spends exactly one password-hash verification and no hash, from the very first one after start-up, against a hash of the same parameters as a real one', async () => {
    for (let i = 0; i < 3; i++) {
      hashes.mockClear();
      verifies.mockClear();
      expect(await login(`nobody-${i}-${serial}@cost.example`, WRONG), `unknown email ${i}`).toBe(401);
      expect(calls(), `unknown email ${i}`).toEqual({ hash: 0, verify: 1 });
    }
    const email = await knownUser('params');
    expect(await login(email, WRONG)).toBe(401);
    const [knownHash] = verifies.mock.calls[0]!;
    expect(parametersOf(DECOY_PASSWORD_HASH)).toBe(parametersOf(String(knownHash)));
  });

  it('D4: the decoy hash has exactly the parameters hashPassword uses (argon2id, memory, time, parallelism), and no password matches it', async () => {
    expect(parametersOf(DECOY_PASSWORD_HASH)).toMatch(/^argon2id\$v=19\$m=\d+,t=\d+,p=\d+$/);
    expect(parametersOf(DECOY_PASSWORD_HASH)).toBe(parametersOf(await hashPassword('any password at all')));
    for (const guess of ['', 'password', WRONG, PASSWORD]) expect(await verifyPassword(DECOY_PASSWORD_HASH, guess)).toBe(false);
  });

  it('D4: a known email with a wrong password spends exactly one verification; the right password also exactly one; neither hashes', async () => {
    const email = await knownUser('known');
    expect(await login(email, WRONG)).toBe(401);
    expect(calls()).toEqual({ hash: 0, verify: 1 });
    verifies.mockClear();
    expect(await login(email, PASSWORD)).toBe(200);
    expect(calls()).toEqual({ hash: 0, verify: 1 });
  });

  it('D4: a 429 is answered without checking the password — no verification, for a known email (right or wrong password) and an unknown one alike', async () => {
    const known = await knownUser('throttled');
    const unknown = `ghost-${serial}@cost.example`;
    for (const email of [known, unknown]) {
      for (let i = 0; i < 4; i++) expect(await login(email, WRONG), `${email} failure ${i + 1}`).toBe(401);
      expect(calls().verify, `${email}: four checked failures`).toBe(4);
      verifies.mockClear();
      for (const password of [PASSWORD, WRONG]) expect(await login(email, password), email).toBe(429);
      expect(calls(), `${email}: in the delay`).toEqual({ hash: 0, verify: 0 });
      verifies.mockClear();
    }
  });

  it('D4 (README): POST /auth/password spends one verification on the current password, none while the email is in its delay', async () => {
    const email = await knownUser('change');
    const browser = new Browser(h);
    await browser.signIn(email, PASSWORD, new SoftwareAuthenticator());
    verifies.mockClear();
    for (let i = 1; i <= 4; i++) {
      expect((await browser.post('/auth/password', { current_password: WRONG, new_password: 'the next password 123' })).status).toBe(400);
      expect(calls(), `wrong current_password ${i}`).toEqual({ hash: 0, verify: i });
    }
    verifies.mockClear();
    expect((await browser.post('/auth/password', { current_password: PASSWORD, new_password: 'the next password 123' })).status).toBe(429);
    expect(calls()).toEqual({ hash: 0, verify: 0 });
  });
});
