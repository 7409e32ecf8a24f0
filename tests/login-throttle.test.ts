import { eq, like } from 'drizzle-orm';
import { afterEach, expect, it } from 'vitest';
import { loginThrottle } from '../src/db/schema';
import { createApp } from '../src/http/app';
import { LOGIN_REFUSED, LOGIN_THROTTLED } from '../src/http/auth';
import { claimLoginAttempt, clearLoginFailures, throttleDelayMs } from '../src/identity/login-throttle';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { describeEachDatabase } from './support/harness';

// Spec: Login and second factor rule 5 (3 free failures, then a delay of 2 s doubling to 15
// minutes; wrong password and unknown email alike), Limits ("Free password failures"); D4 (429
// {error} with Retry-After without checking the password, keyed by the normalised email known or
// not, a success resets the count, state in the database); D10 (state in the database, atomic);
// D13 (Retry-After in whole seconds rounded up; a 429 is not a failure and does not lengthen the
// delay). README: "A wrong current_password on POST /auth/password counts too".

const SECOND = 1000;
/** A fixed instant for the injectable clock; each test uses its own emails, so they may share it. */
const T0 = new Date('2031-05-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const PASSWORD = 'throttle password 000001';
const WRONG = 'not the password at all';

interface Answer {
  status: number;
  body: unknown;
  retryAfter: string | null;
}

describeEachDatabase('login throttle (spec: Login rule 5; D4, D10, D13)', (h) => {
  afterEach(() => {
    h.clock = undefined;
  });

  async function login(email: string, password: string): Promise<Answer> {
    const res = await h.request('/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    return { status: res.status, body: await res.json(), retryAfter: res.headers.get('retry-after') };
  }

  const refused: Answer = { status: 401, body: { error: LOGIN_REFUSED }, retryAfter: null };
  const throttled = (seconds: number): Answer => ({ status: 429, body: { error: LOGIN_THROTTLED }, retryAfter: String(seconds) });

  async function row(email: string) {
    const [found] = await h.db.select().from(loginThrottle).where(eq(loginThrottle.email, email));
    return found;
  }

  // ---------------------------------------------------------------- unit level, explicit clock

  it('throttleDelayMs: 0 for 0 to 3 failures, then 2000, 4000, 8000 … doubling, capped at 900000 (15 minutes)', () => {
    expect([0, 1, 2, 3].map(throttleDelayMs)).toEqual([0, 0, 0, 0]);
    expect([4, 5, 6, 7, 8, 9, 10, 11, 12].map(throttleDelayMs)).toEqual([
      2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 512_000,
    ]);
    expect([13, 14, 20, 30, 100, 10_000, 1e9].map(throttleDelayMs)).toEqual(Array(7).fill(900_000));
  });

  it('claimLoginAttempt: three free claims, the fourth is allowed and sets a 2 s delay; claims during it are refused (rounded-up seconds) and not counted; at its end the next claim is allowed and sets 4 s; clearLoginFailures resets', async () => {
    const email = 'unit@throttle.example';
    for (let i = 1; i <= 3; i++) {
      expect(await claimLoginAttempt(h.db, email, T0), `claim ${i}`).toEqual({ allowed: true });
      expect(await row(email)).toMatchObject({ failures: i, blockedUntil: null });
    }
    expect(await claimLoginAttempt(h.db, email, T0)).toEqual({ allowed: true });
    expect(await row(email)).toMatchObject({ failures: 4, blockedUntil: at(2 * SECOND) });

    expect(await claimLoginAttempt(h.db, email, T0)).toEqual({ allowed: false, retryAfterSeconds: 2 });
    expect(await claimLoginAttempt(h.db, email, at(1))).toEqual({ allowed: false, retryAfterSeconds: 2 });
    expect(await claimLoginAttempt(h.db, email, at(999))).toEqual({ allowed: false, retryAfterSeconds: 2 });
    expect(await claimLoginAttempt(h.db, email, at(1000))).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(await claimLoginAttempt(h.db, email, at(1999))).toEqual({ allowed: false, retryAfterSeconds: 1 });
    // Refused claims are not failures: the count and the delay are unchanged.
    expect(await row(email)).toMatchObject({ failures: 4, blockedUntil: at(2 * SECOND) });

    expect(await claimLoginAttempt(h.db, email, at(2000))).toEqual({ allowed: true });
    expect(await row(email)).toMatchObject({ failures: 5, blockedUntil: at(6 * SECOND) });
    expect(await claimLoginAttempt(h.db, email, at(2000))).toEqual({ allowed: false, retryAfterSeconds: 4 });
    expect(await claimLoginAttempt(h.db, email, at(5999))).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(await claimLoginAttempt(h.db, email, at(6000))).toEqual({ allowed: true });
    expect(await row(email)).toMatchObject({ failures: 6, blockedUntil: at(14 * SECOND) });

    await clearLoginFailures(h.db, email);
    expect(await row(email)).toBeUndefined();
    expect(await claimLoginAttempt(h.db, email, at(6000))).toEqual({ allowed: true });
    expect(await row(email)).toMatchObject({ failures: 1, blockedUntil: null });
  });

  it('claimLoginAttempt: claiming at the end of each delay, the delays run 2, 4, 8 … 512 s, then stay at 900 s (the cap); a refused claim answers the remaining whole seconds', async () => {
    const email = 'unit-cap@throttle.example';
    let now = T0;
    for (let i = 1; i <= 3; i++) expect(await claimLoginAttempt(h.db, email, now)).toEqual({ allowed: true });
    const delays: number[] = [];
    for (let failures = 4; failures <= 15; failures++) {
      expect(await claimLoginAttempt(h.db, email, now), `claim ${failures}`).toEqual({ allowed: true });
      const stored = await row(email);
      expect(stored?.failures).toBe(failures);
      const delay = stored!.blockedUntil!.getTime() - now.getTime();
      expect(delay).toBe(throttleDelayMs(failures));
      delays.push(delay / SECOND);
      expect(await claimLoginAttempt(h.db, email, now)).toEqual({ allowed: false, retryAfterSeconds: delay / SECOND });
      now = stored!.blockedUntil!;
    }
    expect(delays).toEqual([2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900]);
  });

  // ---------------------------------------------------------------- through HTTP, with h.clock

  it('Login rule 5 / D13 over HTTP: 3 wrong passwords 401, a 4th 401, then 429 {error} with Retry-After "2" even for the correct password; rounded up while it runs; after 2 s a wrong password is 401 and the delay is 4 s', async () => {
    const email = 'sequence@throttle.example';
    await h.userWithToken(email, PASSWORD);
    h.clock = T0;
    for (let i = 1; i <= 3; i++) expect(await login(email, WRONG), `free failure ${i}`).toEqual(refused);
    expect(await login(email, WRONG), 'the 4th failure is still answered').toEqual(refused);

    // In the delay the password is not checked: the correct one gets the same 429.
    expect(await login(email, PASSWORD)).toEqual(throttled(2));
    expect(await login(email, WRONG)).toEqual(throttled(2));
    h.clock = at(500);
    expect(await login(email, PASSWORD), '1.5 s left → 2').toEqual(throttled(2));
    h.clock = at(1001);
    expect(await login(email, PASSWORD), '0.999 s left → 1').toEqual(throttled(1));

    h.clock = at(2000);
    expect(await login(email, WRONG), 'the delay is over: the password is checked again').toEqual(refused);
    expect(await login(email, PASSWORD), 'and the next delay is 4 s').toEqual(throttled(4));
    expect((await row(email))?.failures).toBe(5);
  });

  it('D13: a 429 does not lengthen the delay — after refused attempts, advancing exactly the delay lets the correct password in (200); D4: the success resets the count (3 free failures again, then 2 s)', async () => {
    const email = 'no-lengthen@throttle.example';
    await h.userWithToken(email, PASSWORD);
    h.clock = T0;
    for (let i = 1; i <= 4; i++) expect(await login(email, WRONG)).toEqual(refused);
    h.clock = at(2000);
    expect(await login(email, WRONG)).toEqual(refused);
    // Delay of 4 s from T0+2 s. Hammer it with 429s along the way.
    for (const ms of [2000, 3000, 4000, 5000, 5999]) {
      h.clock = at(ms);
      expect(await login(email, PASSWORD), `at +${ms} ms`).toEqual(throttled(Math.ceil((6000 - ms) / 1000)));
    }
    expect(await row(email)).toMatchObject({ failures: 5, blockedUntil: at(6000) });
    h.clock = at(6000);
    const success = await login(email, PASSWORD);
    expect(success.status).toBe(200);
    expect(await row(email)).toBeUndefined();

    // The count starts over: three free failures, a fourth answered, then the first delay (2 s, not 8 s).
    for (let i = 1; i <= 4; i++) expect(await login(email, WRONG), `failure ${i} after the reset`).toEqual(refused);
    expect(await login(email, PASSWORD)).toEqual(throttled(2));
  });

  it('Limits: after many failures the delay reaches the 15-minute cap — Retry-After runs 2, 4, 8 … 512, then 900, and stays 900', async () => {
    const email = 'cap@throttle.example';
    await h.userWithToken(email, PASSWORD);
    let now = T0.getTime();
    h.clock = new Date(now);
    for (let i = 1; i <= 3; i++) expect(await login(email, WRONG)).toEqual(refused);
    const seen: number[] = [];
    for (let failure = 4; failure <= 14; failure++) {
      h.clock = new Date(now);
      expect(await login(email, WRONG), `failure ${failure}`).toEqual(refused);
      const answer = await login(email, PASSWORD);
      expect(answer.status).toBe(429);
      seen.push(Number(answer.retryAfter));
      now += Number(answer.retryAfter) * SECOND;
    }
    expect(seen).toEqual([2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900]);
    // One second before the end of the last delay it is still 429; at its end the password works.
    h.clock = new Date(now - SECOND);
    expect(await login(email, PASSWORD)).toEqual(throttled(1));
    h.clock = new Date(now);
    expect((await login(email, PASSWORD)).status).toBe(200);
  });

  it('D4: the throttle is keyed by the normalised email — " Norm@Throttle.Example " and "norm@throttle.example" share one count (one row, lower-cased)', async () => {
    const email = 'norm@throttle.example';
    await h.userWithToken(email, PASSWORD);
    h.clock = T0;
    expect(await login(' Norm@Throttle.Example ', WRONG)).toEqual(refused);
    expect(await login(email, WRONG)).toEqual(refused);
    expect(await login('NORM@THROTTLE.EXAMPLE', WRONG)).toEqual(refused);
    expect(await login(`\t${email}  `, WRONG)).toEqual(refused);
    expect(await login(email, PASSWORD)).toEqual(throttled(2));
    expect(await login(' Norm@Throttle.Example ', PASSWORD)).toEqual(throttled(2));
    const rows = await h.db.select().from(loginThrottle).where(like(loginThrottle.email, '%orm@%'));
    expect(rows.map((r) => [r.email, r.failures])).toEqual([[email, 4]]);
  });

  it('Login rule 5 / D4: an unknown email gets exactly the same sequence of answers (401 then 429 with the same Retry-After) as a known email with a wrong password', async () => {
    const known = 'known@throttle.example';
    const unknown = 'ghost@throttle.example';
    await h.userWithToken(known, PASSWORD);
    const run = async (email: string) => {
      const answers: Answer[] = [];
      h.clock = T0;
      for (let i = 0; i < 5; i++) answers.push(await login(email, WRONG));
      h.clock = at(1500);
      answers.push(await login(email, WRONG));
      h.clock = at(2000);
      answers.push(await login(email, WRONG));
      answers.push(await login(email, PASSWORD));
      return answers;
    };
    const knownAnswers = await run(known);
    const unknownAnswers = await run(unknown);
    expect(knownAnswers).toEqual([refused, refused, refused, refused, throttled(2), throttled(1), refused, throttled(4)]);
    expect(unknownAnswers).toEqual(knownAnswers);
    expect((await row(unknown))?.failures).toBe(5);
  });

  it('Login rule 5 "per account": different emails are independent — one in its delay does not delay another (which still has its own 3 free failures)', async () => {
    const blocked = 'blocked@throttle.example';
    const free = 'free@throttle.example';
    await h.userWithToken(blocked, PASSWORD);
    await h.userWithToken(free, PASSWORD);
    h.clock = T0;
    for (let i = 0; i < 4; i++) await login(blocked, WRONG);
    expect(await login(blocked, PASSWORD)).toEqual(throttled(2));
    expect((await login(free, PASSWORD)).status).toBe(200);
    for (let i = 0; i < 4; i++) expect(await login(free, WRONG)).toEqual(refused);
    expect(await login(blocked, PASSWORD)).toEqual(throttled(2));
    expect((await row(blocked))?.failures).toBe(4);
    expect((await row(free))?.failures).toBe(4);
  });

  it('real time (h.clock undefined): after 4 failures a login is 429; after a real wait of 2.1 s the correct password signs in (200)', async () => {
    const email = 'realtime@throttle.example';
    await h.userWithToken(email, PASSWORD);
    h.clock = undefined;
    for (let i = 0; i < 4; i++) expect(await login(email, WRONG)).toEqual(refused);
    const answer = await login(email, PASSWORD);
    expect(answer.status).toBe(429);
    expect(['1', '2']).toContain(answer.retryAfter);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const success = await login(email, PASSWORD);
    expect(success.status).toBe(200);
    expect(success.body).toEqual({ has_passkeys: false, mfa_complete: false });
    expect(await row(email)).toBeUndefined();
  });

  it('D4 / D10: the state lives in the database — login_throttle reflects the failures, and a second app on the same database sees the same throttle', async () => {
    const email = 'shared@throttle.example';
    await h.userWithToken(email, PASSWORD);
    h.clock = T0;
    await login(email, WRONG);
    await login(email, WRONG);
    expect(await row(email)).toMatchObject({ email, failures: 2, blockedUntil: null });
    await login(email, WRONG);
    await login(email, WRONG);
    expect(await row(email)).toMatchObject({ failures: 4, blockedUntil: at(2000) });

    let otherClock = T0;
    const other = createApp({ db: h.db, config: h.config, log: h.log, now: () => otherClock });
    const otherLogin = async (password: string) => {
      const res = await other.request(new URL('/auth/login', h.config.apiOrigin).href, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      });
      return { status: res.status, body: await res.json(), retryAfter: res.headers.get('retry-after') };
    };
    expect(await otherLogin(PASSWORD)).toEqual(throttled(2));
    otherClock = at(2000);
    expect((await otherLogin(PASSWORD)).status).toBe(200);
    expect(await row(email)).toBeUndefined();
    // The first app sees the reset made through the second one: 3 free failures again.
    for (let i = 0; i < 4; i++) expect(await login(email, WRONG)).toEqual(refused);
    expect(await login(email, PASSWORD)).toEqual(throttled(2));
  });

  it('D4 (counted before the password is checked): 10 parallel wrong-password logins for a fresh email — at most 4 are 401 (the 3 free and the first counted), the rest 429', async () => {
    const email = 'parallel@throttle.example';
    await h.userWithToken(email, PASSWORD);
    h.clock = T0;
    const answers = await Promise.all(Array.from({ length: 10 }, () => login(email, WRONG)));
    const refusedCount = answers.filter((a) => a.status === 401).length;
    const throttledCount = answers.filter((a) => a.status === 429).length;
    expect(refusedCount).toBeLessThanOrEqual(4);
    expect(refusedCount + throttledCount).toBe(10);
    // The first three failures are free: with a fixed clock exactly four attempts get through.
    expect(refusedCount).toBe(4);
    for (const a of answers.filter((x) => x.status === 429)) expect(a).toEqual(throttled(2));
    expect((await row(email))?.failures).toBe(refusedCount);
  });

  it('README / D4: a wrong current_password on POST /auth/password counts against the throttle of the user\'s email — after 4 (400 each), login is 429 and so is the password change', async () => {
    const email = 'pwchange@throttle.example';
    await h.userWithToken(email, PASSWORD);
    h.clock = T0;
    const browser = new Browser(h);
    await browser.signIn(email, PASSWORD, new SoftwareAuthenticator());
    expect(await row(email)).toBeUndefined();

    for (let i = 1; i <= 4; i++) {
      const res = await browser.post('/auth/password', { current_password: WRONG, new_password: 'the next password 123' });
      expect(res.status, `wrong current_password ${i}`).toBe(400);
    }
    expect(await row(email)).toMatchObject({ failures: 4, blockedUntil: at(2000) });
    expect(await login(email, PASSWORD)).toEqual(throttled(2));
    expect(await login(' PwChange@Throttle.Example', PASSWORD)).toEqual(throttled(2));

    const change = await browser.post('/auth/password', { current_password: PASSWORD, new_password: 'the next password 123' });
    expect(change.status).toBe(429);
    expect(change.headers.get('retry-after')).toBe('2');
    expect((await login(email, 'the next password 123')).status).toBe(429);

    h.clock = at(2000);
    expect((await login(email, PASSWORD)).status, 'the password was not changed').toBe(200);
  });
});
