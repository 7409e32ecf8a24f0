import { randomBytes } from 'node:crypto';
import { eq, inArray, sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { grants, oauthClients, passkeys, sessions, tokens, users } from '../src/db/schema';
import { mintToken } from '../src/identity/tokens';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser, signInNewPerson, type SignedInPerson } from './support/browser';
import { describeEachDatabase, type Harness } from './support/harness';
import { CHALLENGE, expectAuthenticationRequired, sha256Hex } from './support/http';

// Spec: Endpoints "Session and account management" (GET /auth/me, POST /auth/password, GET and
// DELETE /auth/passkeys, GET and DELETE /auth/tokens), resource "Connection", Refresh token state
// table (live → revoked, descendants revoked), Login rule 6, "Other status codes"; D4 (shapes and
// password length), D5 (the Connection id is the SHA-256 hex of the token; ISO 8601 UTC with Z).

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
const DAY = 86_400_000;

const rawToken = () => `lg_${randomBytes(32).toString('base64url')}`;

describeEachDatabase('account management (spec: Session and account management; D4, D5)', (h) => {
  let serial = 0;

  async function person(label: string): Promise<SignedInPerson> {
    serial += 1;
    const password = `account pw ${label} ${serial} ${randomBytes(4).toString('hex')}`;
    return signInNewPerson(h, `${label}-${serial}@accounts.example`, password);
  }

  async function passwordHashOf(userId: number): Promise<string | undefined> {
    const [row] = await h.db.select({ hash: users.passwordHash }).from(users).where(eq(users.id, userId));
    return row?.hash;
  }

  async function tokenRow(hash: string) {
    const [row] = await h.db.select().from(tokens).where(eq(tokens.hash, hash));
    if (!row) throw new Error(`no token row ${hash}`);
    return row;
  }

  /** An OAuth-grant-like token row inserted straight into the table; returns the raw token. */
  async function insertToken(
    userId: number,
    row: { kind: 'access' | 'refresh'; clientId?: string; parent?: string | null; retired?: boolean; expiresAt?: Date },
  ): Promise<string> {
    const token = rawToken();
    const parentHash = row.parent === undefined || row.parent === null ? null : sha256Hex(row.parent);
    const clientId = row.clientId ?? 'ledger-desktop';
    // D25: a token joins its parent's grant; a refresh token with none starts one.
    const [parent] = parentHash ? await h.db.select({ grantId: tokens.grantId }).from(tokens).where(eq(tokens.hash, parentHash)) : [];
    const grantId =
      parent?.grantId ??
      (row.kind === 'refresh' ? (await h.db.insert(grants).values({ userId, clientId }).returning({ id: grants.id }))[0]!.id : null);
    await h.db.insert(tokens).values({
      hash: sha256Hex(token),
      kind: row.kind,
      userId,
      clientId,
      grantId,
      parentHash,
      audience: h.config.apiOrigin,
      expiresAt: row.expiresAt ?? new Date(Date.now() + (row.kind === 'refresh' ? 60 * DAY : 3_600_000)),
      retiredAt: row.retired ? sql`now() - interval '1 minute'` : null,
    });
    return token;
  }

  async function clientName(id: string): Promise<string> {
    const [row] = await h.db.select({ name: oauthClients.name }).from(oauthClients).where(eq(oauthClients.id, id));
    if (!row) throw new Error(`no client ${id}`);
    return row.name;
  }

  async function listTokens(res: Promise<Response>): Promise<Record<string, unknown>[]> {
    const answer = await res;
    expect(answer.status).toBe(200);
    return (await answer.json()) as Record<string, unknown>[];
  }

  const ids = (list: Record<string, unknown>[]) => list.map((row) => row.id as string).sort();

  // ---------------------------------------------------------------- GET /auth/me

  it('D4 GET /auth/me: a full session gets exactly {email, has_passkeys:true, mfa_complete:true, via:"session"}; a bearer token of the same user gets via "bearer"', async () => {
    const alice = await person('me');
    const viaSession = await alice.browser.request('/auth/me');
    expect(viaSession.status).toBe(200);
    expect(await viaSession.json()).toStrictEqual({ email: alice.email, has_passkeys: true, mfa_complete: true, via: 'session' });

    const viaBearer = await h.call(alice.token, 'GET', '/auth/me');
    expect(viaBearer.status).toBe(200);
    expect(await viaBearer.json()).toStrictEqual({ email: alice.email, has_passkeys: true, mfa_complete: true, via: 'bearer' });
  });

  it('D4 GET /auth/me with a bearer token of a user who has no passkey: has_passkeys false, via "bearer"', async () => {
    const email = 'me-nopasskey@accounts.example';
    const { token } = await h.userWithToken(email, 'account pw without a passkey');
    const res = await h.call(token, 'GET', '/auth/me');
    expect(res.status).toBe(200);
    expect(await res.json()).toStrictEqual({ email, has_passkeys: false, mfa_complete: true, via: 'bearer' });
  });

  // ---------------------------------------------------------------- POST /auth/password

  it('D4 / Login rule 6: POST /auth/password → 204; the old password fails, the new one works; the calling session survives, every other session (full or half) of the user ends, every token of the user is revoked; other users are untouched', async () => {
    const alice = await person('pw-change');
    const minted = await mintToken(h.db, { userId: alice.userId, label: 'script', days: 30, audience: h.config.apiOrigin });
    const grantRefresh = await insertToken(alice.userId, { kind: 'refresh' });
    const grantAccess = await insertToken(alice.userId, { kind: 'access', parent: grantRefresh });
    const second = new Browser(h);
    await second.signIn(alice.email, alice.password, alice.authenticator);
    const halfOnly = new Browser(h);
    expect((await halfOnly.login(alice.email, alice.password)).status).toBe(200);
    const bob = await person('pw-bystander');

    for (const t of [alice.token, minted, grantAccess]) expect((await h.call(t, 'GET', '/accounts')).status).toBe(200);
    expect((await second.request('/auth/me')).status).toBe(200);
    expect(await h.db.select().from(sessions).where(eq(sessions.userId, alice.userId))).toHaveLength(3);

    const newPassword = 'a brand new password for alice';
    const res = await alice.browser.post('/auth/password', { current_password: alice.password, new_password: newPassword });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');

    // The calling session stays, and is the user's only session.
    const me = await alice.browser.request('/auth/me');
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ email: alice.email, via: 'session' });
    const left = await h.db.select().from(sessions).where(eq(sessions.userId, alice.userId));
    expect(left.map((s) => s.idHash)).toEqual([sha256Hex(alice.browser.session!)]);

    // Every other session ended: the second full session and the half-session.
    await expectAuthenticationRequired(await second.request('/auth/me'), 'second full session');
    await expectAuthenticationRequired(await halfOnly.post('/auth/webauthn/auth/begin'), 'half-session');

    // Every token of the user is revoked, of every kind.
    for (const t of [alice.token, minted, grantAccess]) await expectAuthenticationRequired(await h.call(t, 'GET', '/accounts'), 'token');
    const aliceTokens = await h.db.select().from(tokens).where(eq(tokens.userId, alice.userId));
    expect(aliceTokens).toHaveLength(4);
    for (const row of aliceTokens) expect(row.revokedAt, row.hash).not.toBeNull();

    // The old password no longer signs in; the new one does.
    const oldLogin = await new Browser(h).login(alice.email, alice.password);
    expect(oldLogin.status).toBe(401);
    const newLogin = await new Browser(h).login(alice.email, newPassword);
    expect(newLogin.status).toBe(200);

    // Bob: session and token untouched.
    expect((await bob.browser.request('/auth/me')).status).toBe(200);
    expect((await h.call(bob.token, 'GET', '/accounts')).status).toBe(200);
    const bobTokens = await h.db.select().from(tokens).where(eq(tokens.userId, bob.userId));
    for (const row of bobTokens) expect(row.revokedAt).toBeNull();
  });

  it('D4: new_password must have 12 to 1024 characters counted as code points — 11 and 1025 are 400 (nothing changes), 12 and 1024 are 204, also with emoji (2 UTF-16 units each)', async () => {
    const alice = await person('pw-length');
    let current = alice.password;
    const cases: [label: string, password: string, status: number][] = [
      ['11 ASCII characters', 'a'.repeat(11), 400],
      ['11 emoji (22 UTF-16 units)', '😀'.repeat(11), 400],
      ['1025 ASCII characters', 'b'.repeat(1025), 400],
      ['1025 emoji', '😀'.repeat(1025), 400],
      ['12 ASCII characters', 'c'.repeat(12), 204],
      ['1024 ASCII characters', 'd'.repeat(1024), 204],
      ['12 emoji (24 UTF-16 units)', '🔑'.repeat(12), 204],
      ['1024 emoji (2048 UTF-16 units)', '😀'.repeat(1024), 204],
    ];
    for (const [label, password, status] of cases) {
      const before = await passwordHashOf(alice.userId);
      const res = await alice.browser.post('/auth/password', { current_password: current, new_password: password });
      expect(res.status, label).toBe(status);
      if (status === 400) {
        expect(await res.json(), label).toEqual({ error: expect.any(String) });
        expect(await passwordHashOf(alice.userId), label).toBe(before);
      } else {
        expect(await passwordHashOf(alice.userId), label).not.toBe(before);
        current = password;
      }
    }
    // The last accepted password (1024 emoji) is the one that signs in now.
    expect((await new Browser(h).login(alice.email, '😀'.repeat(1024))).status).toBe(200);
    expect((await alice.browser.request('/auth/me')).status).toBe(200);
  });

  it('D4: a wrong current_password is 400 {error} and changes nothing (password, other sessions, tokens)', async () => {
    const alice = await person('pw-wrong');
    const second = new Browser(h);
    await second.signIn(alice.email, alice.password, alice.authenticator);
    const before = await passwordHashOf(alice.userId);

    const res = await alice.browser.post('/auth/password', {
      current_password: `${alice.password} but wrong`,
      new_password: 'what alice wanted next',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: expect.any(String) });

    expect(await passwordHashOf(alice.userId)).toBe(before);
    expect((await second.request('/auth/me')).status).toBe(200);
    expect((await alice.browser.request('/auth/me')).status).toBe(200);
    expect((await h.call(alice.token, 'GET', '/accounts')).status).toBe(200);
    expect((await new Browser(h).login(alice.email, 'what alice wanted next')).status).toBe(401);
    expect((await new Browser(h).login(alice.email, alice.password)).status).toBe(200);
  });

  it('D4: missing or mistyped fields in the POST /auth/password body are 400 {error}; nothing changes', async () => {
    const alice = await person('pw-missing');
    const second = new Browser(h);
    await second.signIn(alice.email, alice.password, alice.authenticator);
    const before = await passwordHashOf(alice.userId);
    const bodies: unknown[] = [
      {},
      { current_password: alice.password },
      { new_password: 'a perfectly fine password' },
      { current_password: alice.password, new_password: null },
      { current_password: alice.password, new_password: 123456789012 },
      { current_password: 12, new_password: 'a perfectly fine password' },
      [],
    ];
    for (const body of bodies) {
      const res = await alice.browser.post('/auth/password', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await res.json(), JSON.stringify(body)).toEqual({ error: expect.any(String) });
    }
    expect(await passwordHashOf(alice.userId)).toBe(before);
    expect((await second.request('/auth/me')).status).toBe(200);
    expect((await h.call(alice.token, 'GET', '/accounts')).status).toBe(200);
  });

  // ---------------------------------------------------------------- GET /auth/passkeys

  it('D4 GET /auth/passkeys: an array of exactly {id, name, created_at, last_used_at} (ISO 8601 with Z, or null), only the caller\'s, the same through a bearer token', async () => {
    const alice = await person('pk-list');
    const phone = new SoftwareAuthenticator();
    expect((await alice.browser.enrol(phone, 'Phone')).status).toBe(200);
    // A sign-in with the first passkey stamps its last_used_at; the phone was never used to sign in.
    await new Browser(h).signIn(alice.email, alice.password, alice.authenticator);
    const bob = await person('pk-other');

    const res = await alice.browser.request('/auth/passkeys');
    expect(res.status).toBe(200);
    const list = (await res.json()) as Record<string, unknown>[];
    const rows = await h.db.select().from(passkeys).where(eq(passkeys.userId, alice.userId)).orderBy(passkeys.id);
    expect(rows).toHaveLength(2);
    expect(list).toHaveLength(2);
    for (const item of list) {
      expect(Object.keys(item).sort()).toEqual(['created_at', 'id', 'last_used_at', 'name']);
      expect(item.created_at).toMatch(ISO_UTC);
    }
    const byId = new Map(list.map((item) => [item.id, item]));
    const [first, second] = rows as [(typeof rows)[number], (typeof rows)[number]];
    expect(byId.get(first.id)).toEqual({
      id: first.id,
      name: 'Passkey 1',
      created_at: first.createdAt.toISOString(),
      last_used_at: first.lastUsedAt!.toISOString(),
    });
    expect(byId.get(first.id)!.last_used_at).toMatch(ISO_UTC);
    expect(byId.get(second.id)).toEqual({ id: second.id, name: 'Phone', created_at: second.createdAt.toISOString(), last_used_at: null });

    // Bob's passkey is not in Alice's list.
    const [bobKey] = await h.db.select().from(passkeys).where(eq(passkeys.userId, bob.userId));
    expect(list.map((item) => item.id)).not.toContain(bobKey!.id);

    // Bearer accepted (full tier): the same list.
    const viaBearer = await h.call(alice.token, 'GET', '/auth/passkeys');
    expect(viaBearer.status).toBe(200);
    expect(await viaBearer.json()).toEqual(list);
  });

  // ---------------------------------------------------------------- DELETE /auth/passkeys/{id}

  it('spec / D13: DELETE /auth/passkeys/{id} with two passkeys → 204 and it is gone; the last one → 409 {error} and it stays', async () => {
    const alice = await person('pk-delete');
    const phone = new SoftwareAuthenticator();
    expect((await alice.browser.enrol(phone, 'Phone')).status).toBe(200);
    const rows = await h.db.select().from(passkeys).where(eq(passkeys.userId, alice.userId)).orderBy(passkeys.id);
    const [laptop, phoneRow] = rows as [(typeof rows)[number], (typeof rows)[number]];

    const removed = await alice.browser.request(`/auth/passkeys/${phoneRow.id}`, { method: 'DELETE' });
    expect(removed.status).toBe(204);
    expect(await removed.text()).toBe('');
    expect(await h.db.select().from(passkeys).where(eq(passkeys.id, phoneRow.id))).toHaveLength(0);
    const list = (await (await alice.browser.request('/auth/passkeys')).json()) as { id: number }[];
    expect(list.map((p) => p.id)).toEqual([laptop.id]);

    const last = await alice.browser.request(`/auth/passkeys/${laptop.id}`, { method: 'DELETE' });
    expect(last.status).toBe(409);
    expect(await last.json()).toEqual({ error: expect.any(String) });
    expect(await h.db.select().from(passkeys).where(eq(passkeys.id, laptop.id))).toHaveLength(1);
    expect(((await (await alice.browser.request('/auth/passkeys')).json()) as unknown[]).length).toBe(1);
  });

  it('DELETE /auth/passkeys/{id}: someone else\'s id → 404 (theirs stays), an unknown id → 404, a non-numeric id → 400; nothing is removed', async () => {
    const alice = await person('pk-404');
    expect((await alice.browser.enrol(new SoftwareAuthenticator(), 'Spare')).status).toBe(200);
    const bob = await person('pk-404-other');
    expect((await bob.browser.enrol(new SoftwareAuthenticator(), 'Bob spare')).status).toBe(200);
    const bobKeys = await h.db.select().from(passkeys).where(eq(passkeys.userId, bob.userId));
    expect(bobKeys).toHaveLength(2);
    const countAll = async () => (await h.db.select().from(passkeys).where(inArray(passkeys.userId, [alice.userId, bob.userId]))).length;
    const before = await countAll();

    const cases: [label: string, id: string, status: number][] = [
      ["Bob's passkey", String(bobKeys[0]!.id), 404],
      ['unknown id', '2147483000', 404],
      ['an id too large for any row', '99999999999999', 404],
      ['non-numeric', 'abc', 400],
      ['negative', '-1', 400],
      ['fractional', '1.5', 400],
    ];
    for (const [label, id, status] of cases) {
      const res = await alice.browser.request(`/auth/passkeys/${id}`, { method: 'DELETE' });
      expect(res.status, label).toBe(status);
      expect(await res.json(), label).toEqual({ error: expect.any(String) });
    }
    expect(await countAll()).toBe(before);
    expect(await h.db.select().from(passkeys).where(eq(passkeys.id, bobKeys[0]!.id))).toHaveLength(1);
  });

  it('after DELETE /auth/passkeys/{id} the removed authenticator can no longer sign in (auth/finish 400, the session stays half); the remaining one still can', async () => {
    const alice = await person('pk-removed');
    const phone = new SoftwareAuthenticator();
    expect((await alice.browser.enrol(phone, 'Phone')).status).toBe(200);
    const [phoneRow] = await h.db.select().from(passkeys).where(eq(passkeys.credentialId, phone.id));
    // Control: before removal the phone signs in.
    const control = new Browser(h);
    expect((await control.login(alice.email, alice.password)).status).toBe(200);
    expect((await control.assert(phone)).status).toBe(200);

    expect((await alice.browser.request(`/auth/passkeys/${phoneRow!.id}`, { method: 'DELETE' })).status).toBe(204);

    const attempt = new Browser(h);
    expect((await attempt.login(alice.email, alice.password)).status).toBe(200);
    const refused = await attempt.assert(phone);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: expect.any(String) });
    await expectAuthenticationRequired(await attempt.request('/auth/me'), 'still a half-session');
    expect((await attempt.assert(alice.authenticator)).status).toBe(200);
    expect((await attempt.request('/auth/me')).status).toBe(200);
  });

  // ---------------------------------------------------------------- GET /auth/tokens

  it('spec Connection / D5: GET /auth/tokens lists a minted token as exactly {id: sha256 hex, client_id "ledger-cli", client_name from oauth_clients, kind "access", label, last_used_at, expires_at}; revoked, expired and other users\' tokens are not listed; bearer accepted', async () => {
    const alice = await person('tok-list');
    const audience = h.config.apiOrigin;
    const script = await mintToken(h.db, { userId: alice.userId, label: 'backup-script', days: 30, audience });
    const revoked = await mintToken(h.db, { userId: alice.userId, label: 'revoked', days: 30, audience });
    await h.db.update(tokens).set({ revokedAt: sql`now()` }).where(eq(tokens.hash, sha256Hex(revoked)));
    const expired = await mintToken(h.db, { userId: alice.userId, label: 'expired', days: 30, audience });
    await h.db.update(tokens).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(tokens.hash, sha256Hex(expired)));
    const bob = await person('tok-list-other');

    const list = await listTokens(alice.browser.request('/auth/tokens'));
    expect(ids(list)).toEqual([sha256Hex(alice.token), sha256Hex(script)].sort());
    for (const row of list) {
      expect(Object.keys(row).sort()).toEqual(['client_id', 'client_name', 'expires_at', 'grant_id', 'id', 'kind', 'label', 'last_used_at']);
      expect(row.id).toMatch(/^[0-9a-f]{64}$/);
      expect(row.expires_at).toMatch(ISO_UTC);
    }
    const stored = await tokenRow(sha256Hex(script));
    const cliName = await clientName('ledger-cli');
    expect(cliName.length).toBeGreaterThan(0);
    expect(list.find((row) => row.id === sha256Hex(script))).toStrictEqual({
      id: sha256Hex(script),
      client_id: 'ledger-cli',
      client_name: cliName,
      kind: 'access',
      grant_id: null,
      label: 'backup-script',
      last_used_at: null,
      expires_at: stored.expiresAt.toISOString(),
    });
    expect(Math.abs(stored.expiresAt.getTime() - (Date.now() + 30 * DAY))).toBeLessThan(60_000);
    expect(list.find((row) => row.id === sha256Hex(alice.token))).toMatchObject({ label: null, kind: 'access', client_id: 'ledger-cli' });
    expect(ids(list)).not.toContain(sha256Hex(bob.token));

    // Bearer accepted; the token used is stamped before the listing, so its last_used_at is a timestamp now.
    const viaBearer = await listTokens(h.call(script, 'GET', '/auth/tokens'));
    expect(ids(viaBearer)).toEqual(ids(list));
    const used = viaBearer.find((row) => row.id === sha256Hex(script))!;
    expect(used.last_used_at).toMatch(ISO_UTC);
    expect(used.last_used_at).toBe((await tokenRow(sha256Hex(script))).lastUsedAt!.toISOString());

    // Bob sees his own token only.
    expect(ids(await listTokens(bob.browser.request('/auth/tokens')))).toEqual([sha256Hex(bob.token)]);
  });

  it('spec Connection ("one row per connection"): of an OAuth grant R1 (retired) → R2 (live refresh) → A2 (access) only R2 is listed, as kind "refresh" of client ledger-desktop', async () => {
    const alice = await person('tok-grant');
    const r1 = await insertToken(alice.userId, { kind: 'refresh', retired: true });
    const a1 = await insertToken(alice.userId, { kind: 'access', parent: r1 });
    const r2 = await insertToken(alice.userId, { kind: 'refresh', parent: r1 });
    const a2 = await insertToken(alice.userId, { kind: 'access', parent: r2 });
    expect((await h.call(a2, 'GET', '/accounts')).status).toBe(200);

    const list = await listTokens(alice.browser.request('/auth/tokens'));
    expect(ids(list)).toEqual([sha256Hex(alice.token), sha256Hex(r2)].sort());
    for (const hidden of [r1, a1, a2]) expect(ids(list)).not.toContain(sha256Hex(hidden));
    const stored = await tokenRow(sha256Hex(r2));
    // Using A2 was a use of the grant: the connection's row (R2) carries the stamp A2 got.
    expect(stored.lastUsedAt).toEqual((await tokenRow(sha256Hex(a2))).lastUsedAt);
    expect(list.find((row) => row.id === sha256Hex(r2))).toStrictEqual({
      id: sha256Hex(r2),
      client_id: 'ledger-desktop',
      client_name: await clientName('ledger-desktop'),
      kind: 'refresh',
      // D25: the grant's family, the same as the retired R1's.
      grant_id: (await tokenRow(sha256Hex(r1))).grantId,
      label: null,
      last_used_at: expect.stringMatching(ISO_UTC),
      expires_at: stored.expiresAt.toISOString(),
    });
    expect(list.find((row) => row.id === sha256Hex(r2))!.last_used_at).toBe(stored.lastUsedAt!.toISOString());
  });

  // ---------------------------------------------------------------- DELETE /auth/tokens/{id}

  it('spec DELETE /auth/tokens/{id}: 204 for an own live minted token, which then fails as a bearer (401) and leaves the list; the other tokens stay', async () => {
    const alice = await person('tok-delete');
    const script = await mintToken(h.db, { userId: alice.userId, label: 'to revoke', days: 30, audience: h.config.apiOrigin });
    expect((await h.call(script, 'GET', '/accounts')).status).toBe(200);

    const res = await alice.browser.request(`/auth/tokens/${sha256Hex(script)}`, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');

    await expectAuthenticationRequired(await h.call(script, 'GET', '/accounts'), 'revoked token');
    expect((await tokenRow(sha256Hex(script))).revokedAt).not.toBeNull();
    const list = await listTokens(alice.browser.request('/auth/tokens'));
    expect(ids(list)).toEqual([sha256Hex(alice.token)]);
    expect((await h.call(alice.token, 'GET', '/accounts')).status).toBe(200);
  });

  it('spec Refresh token live → revoked, "descendants revoked": DELETE of a grant\'s live refresh token R2 revokes A2 and a deeper child (revoked_at set); another grant and the minted token stay live', async () => {
    const alice = await person('tok-family');
    const r1 = await insertToken(alice.userId, { kind: 'refresh', retired: true });
    const r2 = await insertToken(alice.userId, { kind: 'refresh', parent: r1 });
    const a2 = await insertToken(alice.userId, { kind: 'access', parent: r2 });
    const deeper = await insertToken(alice.userId, { kind: 'access', parent: a2 });
    // Another grant of the same user and client, unrelated to the first.
    const q = await insertToken(alice.userId, { kind: 'refresh' });
    const qa = await insertToken(alice.userId, { kind: 'access', parent: q });
    for (const t of [a2, deeper, qa]) expect((await h.call(t, 'GET', '/accounts')).status).toBe(200);

    const res = await alice.browser.request(`/auth/tokens/${sha256Hex(r2)}`, { method: 'DELETE' });
    expect(res.status).toBe(204);

    for (const t of [r2, a2, deeper]) expect((await tokenRow(sha256Hex(t))).revokedAt, 'revoked').not.toBeNull();
    for (const t of [a2, deeper]) await expectAuthenticationRequired(await h.call(t, 'GET', '/accounts'), 'descendant access token');
    for (const t of [q, qa, alice.token]) expect((await tokenRow(sha256Hex(t))).revokedAt, 'untouched').toBeNull();
    expect((await h.call(qa, 'GET', '/accounts')).status).toBe(200);
    expect((await h.call(alice.token, 'GET', '/accounts')).status).toBe(200);

    const list = await listTokens(alice.browser.request('/auth/tokens'));
    expect(ids(list)).toEqual([sha256Hex(alice.token), sha256Hex(q)].sort());
  });

  it('spec DELETE /auth/tokens/{id}: 404 {error} for an unknown id, someone else\'s token (which stays live), an already revoked one, an expired one, a retired refresh token and malformed ids; nothing changes', async () => {
    const alice = await person('tok-404');
    const audience = h.config.apiOrigin;
    const bob = await person('tok-404-other');
    const revoked = await mintToken(h.db, { userId: alice.userId, label: 'revoked', days: 30, audience });
    expect((await alice.browser.request(`/auth/tokens/${sha256Hex(revoked)}`, { method: 'DELETE' })).status).toBe(204);
    const expired = await mintToken(h.db, { userId: alice.userId, label: 'expired', days: 30, audience });
    await h.db.update(tokens).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(tokens.hash, sha256Hex(expired)));
    const r1 = await insertToken(alice.userId, { kind: 'refresh', retired: true });
    const r2 = await insertToken(alice.userId, { kind: 'refresh', parent: r1 });
    const live = sha256Hex(alice.token);

    const snapshot = async () =>
      (await h.db.select().from(tokens).where(inArray(tokens.userId, [alice.userId, bob.userId])).orderBy(tokens.hash)).map((t) => ({
        hash: t.hash,
        revokedAt: t.revokedAt,
        retiredAt: t.retiredAt,
      }));
    const before = await snapshot();

    const cases: [label: string, id: string][] = [
      ['unknown', randomBytes(32).toString('hex')],
      ["Bob's live token", sha256Hex(bob.token)],
      ['already revoked', sha256Hex(revoked)],
      ['expired', sha256Hex(expired)],
      ['retired refresh token of a grant', sha256Hex(r1)],
      ['malformed: not hex', 'abc'],
      ['malformed: a live id in upper case', live.toUpperCase()],
      ['malformed: a live id missing its last digit', live.slice(0, 63)],
      ['malformed: a live id with a digit added', `${live}0`],
      ['malformed: the raw token instead of its digest', alice.token],
    ];
    for (const [label, id] of cases) {
      const res = await alice.browser.request(`/auth/tokens/${encodeURIComponent(id)}`, { method: 'DELETE' });
      expect(res.status, label).toBe(404);
      expect(await res.json(), label).toEqual({ error: expect.any(String) });
    }
    expect(await snapshot()).toEqual(before);
    expect((await h.call(bob.token, 'GET', '/accounts')).status).toBe(200);
    expect((await h.call(alice.token, 'GET', '/accounts')).status).toBe(200);
    expect((await tokenRow(sha256Hex(r2))).revokedAt).toBeNull();
  });

  it('error rule 5: DELETE /auth/tokens/{id} with a bearer token is 403 {error}, for its own id and for another live token of the user; both stay live', async () => {
    const alice = await person('tok-403');
    const other = await mintToken(h.db, { userId: alice.userId, label: 'other', days: 30, audience: h.config.apiOrigin });
    for (const target of [alice.token, other]) {
      const res = await h.call(alice.token, 'DELETE', `/auth/tokens/${sha256Hex(target)}`);
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ error: expect.any(String) });
      expect((await tokenRow(sha256Hex(target))).revokedAt).toBeNull();
    }
    expect((await h.call(other, 'GET', '/accounts')).status).toBe(200);
    expect(ids(await listTokens(h.call(alice.token, 'GET', '/auth/tokens')))).toEqual([sha256Hex(alice.token), sha256Hex(other)].sort());
  });
});
