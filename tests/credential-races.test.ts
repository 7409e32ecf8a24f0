import { randomBytes } from 'node:crypto';
import { asc, eq, sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { passkeys, sessions } from '../src/db/schema';
import { SessionEnded } from '../src/errors';
import { removePasskey } from '../src/identity/passkeys';
import { findSession, storeChallenge } from '../src/identity/sessions';
import { finishRegistration, relyingPartyOf } from '../src/identity/webauthn';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { describeEachDatabase } from './support/harness';
import { sha256Hex } from './support/http';

// D10: every security-relevant state changes atomically, so parallel requests have one winner.
// Spec: "Other status codes" (409 for the last passkey), Login and second factor rules 2 and 3
// (elevation; the registration gate at finish), D3 (challenges single-use). A change made on the
// strength of a session commits only while that session is live, and register/finish stores the
// passkey and elevates the session in one transaction.

const statuses = (answers: Response[]) => answers.map((res) => res.status).sort();

describeEachDatabase('one winner for parallel credential changes (D10)', (h) => {
  let serial = 0;

  async function newUser(label: string) {
    serial += 1;
    const email = `${label}-${serial}@races.example`;
    const password = `races pw ${label} ${serial} ${randomBytes(4).toString('hex')}`;
    const { userId } = await h.userWithToken(email, password);
    return { email, password, userId };
  }

  type User = Awaited<ReturnType<typeof newUser>>;

  async function halfSession(user: User): Promise<Browser> {
    const b = new Browser(h);
    expect((await b.login(user.email, user.password)).status, 'login').toBe(200);
    return b;
  }

  function passkeysOf(userId: number) {
    return h.db.select().from(passkeys).where(eq(passkeys.userId, userId)).orderBy(asc(passkeys.id));
  }

  async function sessionRow(cookie: string) {
    const [row] = await h.db.select().from(sessions).where(eq(sessions.idHash, sha256Hex(cookie)));
    return row;
  }

  it('D10 / "409 when deleting the last passkey": two parallel DELETE /auth/passkeys/{id} of the two passkeys of an account — exactly one 204 and one 409; one passkey is left', async () => {
    for (let round = 0; round < 3; round++) {
      const user = await newUser(`pk-race-${round}`);
      const b = new Browser(h);
      await b.signIn(user.email, user.password, new SoftwareAuthenticator());
      expect((await b.enrol(new SoftwareAuthenticator(), 'Second')).status).toBe(200);
      const [first, second] = await passkeysOf(user.userId);

      const answers = await Promise.all(
        [first!, second!].map((p) => b.request(`/auth/passkeys/${p.id}`, { method: 'DELETE' })),
      );
      expect(statuses(answers), `round ${round}`).toEqual([204, 409]);
      expect(await passkeysOf(user.userId), `round ${round}`).toHaveLength(1);
    }
  });

  it('D10: removePasskey for a session that has ended (logged out, expired, or another user\'s) removes nothing and throws SessionEnded (401)', async () => {
    const user = await newUser('pk-ended');
    const key = new SoftwareAuthenticator();
    const b = new Browser(h);
    await b.signIn(user.email, user.password, key);
    expect((await b.enrol(new SoftwareAuthenticator(), 'Second')).status).toBe(200);
    const [, second] = await passkeysOf(user.userId);

    const gone = new Browser(h);
    await gone.signIn(user.email, user.password, key);
    const goneHash = sha256Hex(gone.session!);
    expect((await gone.post('/auth/logout')).status).toBe(204);
    await expect(removePasskey(h.db, { userId: user.userId, hash: goneHash }, second!.id)).rejects.toBeInstanceOf(SessionEnded);

    const stale = new Browser(h);
    await stale.signIn(user.email, user.password, key);
    const staleHash = sha256Hex(stale.session!);
    await h.db.update(sessions).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(sessions.idHash, staleHash));
    await expect(removePasskey(h.db, { userId: user.userId, hash: staleHash }, second!.id)).rejects.toBeInstanceOf(SessionEnded);

    const stranger = await newUser('pk-ended-stranger');
    const theirs = new Browser(h);
    await theirs.signIn(stranger.email, stranger.password, new SoftwareAuthenticator());
    await expect(removePasskey(h.db, { userId: user.userId, hash: sha256Hex(theirs.session!) }, second!.id)).rejects.toBeInstanceOf(SessionEnded);

    expect(await passkeysOf(user.userId)).toHaveLength(2);
    // Control: the live session removes it.
    await removePasskey(h.db, { userId: user.userId, hash: sha256Hex(b.session!) }, second!.id);
    expect(await passkeysOf(user.userId)).toHaveLength(1);
  });

  it('rule 3 / D10: two half-sessions finishing the enrolment of a "first" passkey at once — exactly one 200 (elevated) and one 403 (the gate); one passkey; the refused session stays half', async () => {
    for (let round = 0; round < 3; round++) {
      const user = await newUser(`enrol-race-${round}`);
      const browsers = [await halfSession(user), await halfSession(user)];
      const halves = browsers.map((b) => b.session!);
      const keys = [new SoftwareAuthenticator(), new SoftwareAuthenticator()];
      const bodies = await Promise.all(browsers.map(async (b, i) => keys[i]!.register(await b.registerBegin())));

      const answers = await Promise.all(browsers.map((b, i) => b.post('/auth/webauthn/register/finish', bodies[i])));
      expect(statuses(answers), `round ${round}`).toEqual([200, 403]);
      const winner = answers.findIndex((res) => res.status === 200);
      const loser = 1 - winner;

      expect((await passkeysOf(user.userId)).map((p) => p.credentialId), `round ${round}`).toEqual([keys[winner]!.id]);
      expect(browsers[winner]!.session).not.toBe(halves[winner]);
      expect((await browsers[winner]!.request('/auth/me')).status).toBe(200);
      expect(browsers[loser]!.session).toBe(halves[loser]);
      expect((await sessionRow(halves[loser]!))?.mfaComplete).toBe(false);
      expect((await browsers[loser]!.request('/auth/me')).status).toBe(401);
    }
  });

  it('D3 / D10: the same auth/finish body sent twice at once — exactly one 200; the stored counter moved once; one full session', async () => {
    for (let round = 0; round < 3; round++) {
      const user = await newUser(`auth-race-${round}`);
      const key = new SoftwareAuthenticator();
      const enroller = new Browser(h);
      await enroller.signIn(user.email, user.password, key);
      expect((await enroller.post('/auth/logout')).status).toBe(204);
      const b = await halfSession(user);
      const half = b.session!;
      const body = key.authenticate(await b.authBegin());

      const answers = await Promise.all([0, 1].map(() => b.post('/auth/webauthn/auth/finish', body)));
      const codes = statuses(answers);
      expect(codes.filter((s) => s === 200), `round ${round}: ${codes}`).toHaveLength(1);
      expect([400, 401], `round ${round}: ${codes}`).toContain(codes.find((s) => s !== 200));

      expect((await passkeysOf(user.userId))[0]?.counter).toBe(key.counter);
      expect(b.session).not.toBe(half);
      expect(await sessionRow(half)).toBeUndefined();
      const rows = await h.db.select().from(sessions).where(eq(sessions.userId, user.userId));
      expect(rows.filter((s) => s.mfaComplete)).toHaveLength(1);
      expect((await b.request('/auth/me')).status).toBe(200);
    }
  });

  it('D10 / rule 2: register/finish for a half-session that expired after the tier check stores no passkey and elevates nothing (SessionEnded)', async () => {
    const user = await newUser('enrol-ended');
    const b = await halfSession(user);
    const cookie = b.session!;
    const session = (await findSession(h.db, cookie))!;
    const rp = relyingPartyOf(h.config.webOrigin);
    const options = await b.registerBegin();
    const response = new SoftwareAuthenticator().register(options);
    // The request passed the tier check with this live session; it expires before the passkey is stored.
    await h.db.update(sessions).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(sessions.idHash, sha256Hex(cookie)));

    await expect(finishRegistration(h.db, rp, session, response, 'Late', h.config.sessionTtlDays)).rejects.toBeInstanceOf(SessionEnded);
    expect(await passkeysOf(user.userId)).toEqual([]);
    expect((await sessionRow(cookie))?.mfaComplete).toBe(false);

    // Control: the same ceremony on a live session stores the passkey and elevates.
    const live = await halfSession(user);
    const liveSession = (await findSession(h.db, live.session!))!;
    const again = new SoftwareAuthenticator();
    await storeChallenge(h.db, liveSession.hash, 'register', options.challenge);
    const result = await finishRegistration(h.db, rp, liveSession, again.register(options), 'On time', h.config.sessionTtlDays);
    expect(result.outcome).toBe('elevated');
    expect((await passkeysOf(user.userId)).map((p) => [p.credentialId, p.name])).toEqual([[again.id, 'On time']]);
    expect(await sessionRow(live.session!)).toBeUndefined();
  });
});
