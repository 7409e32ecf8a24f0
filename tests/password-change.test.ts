import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { runAdminRequest } from '../src/admin/commands';
import { authorizationCodes, deviceGrants, sessions, tokens, users } from '../src/db/schema';
import { SessionEnded } from '../src/errors';
import { changePassword } from '../src/identity/users';
import { Browser, signInNewPerson, type SignedInPerson } from './support/browser';
import { describeEachDatabase, type Harness } from './support/harness';
import { sha256Hex } from './support/http';

// Spec: Login and second factor rule 6 ("a password change, user reset or user deletion ends every
// session and revokes every token of that user") reaching the credentials approved but not yet
// issued: an unredeemed authorization code (60 s) and an approved, unclaimed device grant. D4
// (POST /auth/password: the calling session survives) and D10 (changes atomic: a session ended
// meanwhile sets no password; of two sessions changing it at once, one wins).

const API = 'http://localhost:38081';
const CALLBACK = 'http://127.0.0.1:53123/callback';
const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code';
const CODE_NOT_REDEEMABLE = { error: 'invalid_grant', error_description: 'that code is not redeemable' };


/** An authorization code approved by `b` (only approve mints codes), with what redeeming it takes. */
async function approveCode(b: Browser): Promise<Record<string, string>> {
  const { code, verifier } = await b.approveCode(CALLBACK, API);
  return { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: 'ledger-cli', code_verifier: verifier };
}

/** A device grant approved by `b`; returns the poll that would claim it. */
async function approveDeviceGrant(h: Harness, b: Browser): Promise<Record<string, string>> {
  const started = await h.postForm('/oauth/device_authorization', { client_id: 'ledger-desktop', resource: API });
  expect(started.status, 'device_authorization').toBe(200);
  const { device_code, user_code } = (await started.json()) as { device_code: string; user_code: string };
  expect((await b.post('/oauth/device/approve', { user_code, approve: true })).status, 'device/approve').toBe(204);
  return { grant_type: DEVICE, device_code, client_id: 'ledger-desktop' };
}

async function expectPair(res: Response, what: string): Promise<void> {
  expect(res.status, what).toBe(200);
  expect(await res.json(), what).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String) });
}

async function expectInvalidGrant(res: Response, what: string): Promise<void> {
  expect(res.status, what).toBe(400);
  expect(((await res.json()) as { error: string }).error, what).toBe('invalid_grant');
}

describeEachDatabase('password change and reset (spec: Login rule 6; D4, D10)', (h) => {
  let serial = 0;

  async function person(label: string): Promise<SignedInPerson> {
    serial += 1;
    const password = `password change ${label} ${serial} ${randomBytes(4).toString('hex')}`;
    return signInNewPerson(h, `${label}-${serial}@password.example`, password);
  }

  async function passwordHashOf(userId: number): Promise<string> {
    const [row] = await h.db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, userId));
    return row!.hash;
  }

  async function pendingOf(userId: number) {
    return {
      codes: (await h.db.select().from(authorizationCodes).where(eq(authorizationCodes.userId, userId))).length,
      deviceGrants: (await h.db.select().from(deviceGrants).where(eq(deviceGrants.userId, userId))).length,
    };
  }

  // ---------------------------------------------------------------- rule 6: codes and device grants

  it('rule 6: after POST /auth/password an approved, unredeemed authorization code and an approved, unclaimed device grant of the user yield no token pair (invalid_grant); those of another user still do', async () => {
    const alice = await person('grants');
    const bob = await person('grants-bystander');

    // Control: without a password change both kinds redeem.
    await expectPair(await h.postForm('/oauth/token', await approveCode(alice.browser)), 'control code');
    await expectPair(await h.postForm('/oauth/token', await approveDeviceGrant(h, alice.browser)), 'control device grant');

    const code = await approveCode(alice.browser);
    const device = await approveDeviceGrant(h, alice.browser);
    const bobCode = await approveCode(bob.browser);
    const bobDevice = await approveDeviceGrant(h, bob.browser);
    expect(await pendingOf(alice.userId)).toEqual({ codes: 1, deviceGrants: 1 });

    const res = await alice.browser.post('/auth/password', {
      current_password: alice.password,
      new_password: `${alice.password} renewed`,
    });
    expect(res.status).toBe(204);
    expect(await pendingOf(alice.userId)).toEqual({ codes: 0, deviceGrants: 0 });

    const redeemed = await h.postForm('/oauth/token', code);
    expect(redeemed.status).toBe(400);
    expect(await redeemed.json()).toStrictEqual(CODE_NOT_REDEEMABLE);
    await expectInvalidGrant(await h.postForm('/oauth/token', device), 'device grant after the change');

    // Every token the user holds is revoked, none was issued after the change.
    const live = await h.db
      .select()
      .from(tokens)
      .where(sql`${tokens.userId} = ${alice.userId} and ${tokens.revokedAt} is null`);
    expect(live).toEqual([]);

    // Bob is not Alice.
    await expectPair(await h.postForm('/oauth/token', bobCode), "Bob's code");
    await expectPair(await h.postForm('/oauth/token', bobDevice), "Bob's device grant");
  });

  it('rule 6: `ledger user passwd` (the admin command) kills an unredeemed authorization code and an unclaimed approved device grant of that user in the same transaction', async () => {
    const alice = await person('reset');
    const code = await approveCode(alice.browser);
    const device = await approveDeviceGrant(h, alice.browser);
    const before = await passwordHashOf(alice.userId);

    const lines = await runAdminRequest(h.db, h.config, {
      op: 'user.passwd',
      email: alice.email,
      password: `${alice.password} reset by an admin`,
    });
    expect(lines.at(-1)).toMatch(/every session ended and every token revoked/);
    expect(await passwordHashOf(alice.userId)).not.toBe(before);
    expect(await pendingOf(alice.userId)).toEqual({ codes: 0, deviceGrants: 0 });
    expect(await h.db.select().from(sessions).where(eq(sessions.userId, alice.userId))).toEqual([]);

    await expectInvalidGrant(await h.postForm('/oauth/token', code), 'code after the reset');
    await expectInvalidGrant(await h.postForm('/oauth/token', device), 'device grant after the reset');
  });

  it('rule 6: a pending (undecided) device grant is not the user\'s yet and survives a password change; approved afterwards, it is claimed normally', async () => {
    const alice = await person('pending');
    const started = await h.postForm('/oauth/device_authorization', { client_id: 'ledger-desktop', resource: API });
    const { device_code, user_code } = (await started.json()) as { device_code: string; user_code: string };
    expect(
      (await alice.browser.post('/auth/password', { current_password: alice.password, new_password: `${alice.password} next` })).status,
    ).toBe(204);
    expect((await alice.browser.post('/oauth/device/approve', { user_code, approve: true })).status).toBe(204);
    await expectPair(await h.postForm('/oauth/token', { grant_type: DEVICE, device_code, client_id: 'ledger-desktop' }), 'approved after the change');
  });

  // ---------------------------------------------------------------- D10: the calling session

  it('D10: changePassword for a session that has ended (logged out, or expired) changes nothing and throws SessionEnded (401) — password, other sessions and tokens stay', async () => {
    const alice = await person('ended');
    const other = new Browser(h);
    await other.signIn(alice.email, alice.password, alice.authenticator);
    const code = await approveCode(other);
    const before = await passwordHashOf(alice.userId);

    const loggedOut = new Browser(h);
    await loggedOut.signIn(alice.email, alice.password, alice.authenticator);
    const loggedOutHash = sha256Hex(loggedOut.session!);
    expect((await loggedOut.post('/auth/logout')).status).toBe(204);
    await expect(changePassword(h.db, { userId: alice.userId, hash: loggedOutHash }, 'a password set by a ghost')).rejects.toBeInstanceOf(SessionEnded);

    const expired = new Browser(h);
    await expired.signIn(alice.email, alice.password, alice.authenticator);
    const expiredHash = sha256Hex(expired.session!);
    await h.db.update(sessions).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(sessions.idHash, expiredHash));
    await expect(changePassword(h.db, { userId: alice.userId, hash: expiredHash }, 'a password set by a ghost')).rejects.toBeInstanceOf(SessionEnded);

    // Someone else's live session is not the caller's.
    const bob = await person('ended-other');
    await expect(changePassword(h.db, { userId: alice.userId, hash: sha256Hex(bob.browser.session!) }, 'a password set by a ghost')).rejects.toBeInstanceOf(SessionEnded);

    expect(await passwordHashOf(alice.userId)).toBe(before);
    expect((await alice.browser.request('/auth/me')).status).toBe(200);
    expect((await other.request('/auth/me')).status).toBe(200);
    expect((await h.call(alice.token, 'GET', '/accounts')).status).toBe(200);
    expect(await pendingOf(alice.userId)).toEqual({ codes: 1, deviceGrants: 0 });
    await expectPair(await h.postForm('/oauth/token', code), 'the code survives');
    expect((await new Browser(h).login(alice.email, 'a password set by a ghost')).status).toBe(401);

    // Control: the live calling session changes it.
    await changePassword(h.db, { userId: alice.userId, hash: sha256Hex(alice.browser.session!) }, `${alice.password} for real`);
    expect(await passwordHashOf(alice.userId)).not.toBe(before);
  });

  it('D10: two full sessions of one user changing the password at once — exactly one 204; the other is refused (401, or 400 once the winner\'s password is in place) and its session has ended; the winner\'s password is the one that signs in', async () => {
    for (let round = 0; round < 3; round++) {
      const alice = await person(`race-${round}`);
      const second = new Browser(h);
      await second.signIn(alice.email, alice.password, alice.authenticator);
      const browsers = [alice.browser, second];
      const newPasswords = [`${alice.password} from the first`, `${alice.password} from the second`];

      const answers = await Promise.all(
        browsers.map((b, i) => b.post('/auth/password', { current_password: alice.password, new_password: newPasswords[i] })),
      );
      const statuses = answers.map((res) => res.status);
      expect(statuses.filter((s) => s === 204), `round ${round}: ${statuses}`).toHaveLength(1);
      const winner = statuses.indexOf(204);
      const loser = 1 - winner;
      expect([400, 401], `round ${round}: ${statuses}`).toContain(statuses[loser]);

      // The winner's session is the user's only one; the loser's has ended.
      expect((await browsers[winner]!.request('/auth/me')).status).toBe(200);
      expect((await browsers[loser]!.request('/auth/me')).status).toBe(401);
      const left = await h.db.select().from(sessions).where(eq(sessions.userId, alice.userId));
      expect(left.map((s) => s.idHash)).toEqual([sha256Hex(browsers[winner]!.session!)]);

      expect((await new Browser(h).login(alice.email, newPasswords[winner]!)).status).toBe(200);
      expect((await new Browser(h).login(alice.email, newPasswords[loser]!)).status).toBe(401);
    }
  });
});
