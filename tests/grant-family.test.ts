import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf, type Db } from '../src/db/database';
import { issueTokenPair, type TokenPair } from '../src/oauth/grants';
import { signInNewPerson } from './support/browser';
import { openTestDatabase, postgresAvailable, type TestDatabase } from './support/databases';
import { describeEachDatabase } from './support/harness';
import { formInit, sha256Hex } from './support/http';
import { freePort, startServe, type ServeProcess } from './support/processes';
import { addUser } from '../src/identity/users';

// Issue 26 items 2 and 3 (D25; spec: Refresh token; RFC 9700 §4.14.2). A replay of a retired
// refresh token (p0, past its 10 s grace) sent together with a rotation of the live one (p1): the
// replay's revocation read a snapshot that could not see the pair the rotation was inserting, and
// rotation never checked that its family was alive, so the new pair survived (26 of 40 trials on
// one instance, 5 of 20 across two). Now a family is one grant row that rotation and revocation
// both take first: whichever goes second sees the other, and the family is dead every time.
// And a connection that keeps rotating could not be revoked by its id (the live refresh token's
// digest, retired by the time DELETE arrived): DELETE /auth/grants/{grant_id} ends it.

const TRIALS = 100;
/** Trials sent at once: each is a pair of requests racing each other, not the pool. */
const AT_ONCE = 10;
const refreshForm = (token: string) => ({ grant_type: 'refresh_token', refresh_token: token, client_id: 'ledger-cli' });

type Send = (path: string, init: RequestInit) => Promise<Response>;

interface Family {
  p0: TokenPair;
  p1: TokenPair;
}

/** `TRIALS` families of `userId`, each rotated once (p0 → p1) through `send`, every p0 then past its grace. */
async function retiredFamilies(db: Db, send: Send, userId: number, audience: string): Promise<Family[]> {
  const families: Family[] = [];
  for (let i = 0; i < TRIALS; i++) {
    const p0 = await issueTokenPair(db, { userId, clientId: 'ledger-cli', audience });
    const rotated = await send('/oauth/token', formInit(refreshForm(p0.refresh_token)));
    expect(rotated.status).toBe(200);
    families.push({ p0, p1: (await rotated.json()) as TokenPair });
  }
  // The 10 s grace, waited out by every p0 at once (the spec's clock is the database's now()).
  await db.execute(sql`update tokens set retired_at = now() - interval '11 seconds' where user_id = ${userId} and retired_at is not null`);
  return families;
}

/**
 * Sends each family's replay of p0 (through `replayVia`) together with the rotation of p1 (through
 * `rotateVia`), then checks that the family is dead: the replay refused, and whatever the rotation
 * answered, no token of the family live and the pair it may have issued refused everywhere.
 */
async function raceReplaysAndRotations(db: Db, families: Family[], replayVia: Send, rotateVia: Send, check: Send) {
  const outcomes = { rotationFirst: 0, replayFirst: 0 };
  for (let start = 0; start < families.length; start += AT_ONCE) {
    await Promise.all(
      families.slice(start, start + AT_ONCE).map(async ({ p0, p1 }, i) => {
        const trial = `trial ${start + i}`;
        const [replay, rotation] = await Promise.all([
          replayVia('/oauth/token', formInit(refreshForm(p0.refresh_token))),
          rotateVia('/oauth/token', formInit(refreshForm(p1.refresh_token))),
        ]);
        expect(replay.status, `${trial}: the replay`).toBe(400);
        expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');
        expect([200, 400], `${trial}: the rotation`).toContain(rotation.status);
        if (rotation.status === 200) {
          outcomes.rotationFirst++;
          const p2 = (await rotation.json()) as TokenPair;
          const use = await check('/accounts', { headers: { authorization: `Bearer ${p2.access_token}` } });
          expect(use.status, `${trial}: the access token the rotation issued`).toBe(401);
          const next = await check('/oauth/token', formInit(refreshForm(p2.refresh_token)));
          expect(next.status, `${trial}: a rotation of the refresh token it issued`).toBe(400);
        } else {
          outcomes.replayFirst++;
        }
        const live = rowsOf<{ n: string }>(
          await db.execute(sql`select count(*) as n from tokens
            where grant_id = (select grant_id from tokens where hash = ${sha256Hex(p0.refresh_token)})
              and revoked_at is null and expires_at > now()`),
        );
        expect(Number(live[0]!.n), `${trial}: live tokens of the family`).toBe(0);
      }),
    );
  }
  return outcomes;
}

describeEachDatabase('a refresh-token family is one unit (issue 26 items 2 and 3, D25)', (h) => {
  const send: Send = (path, init) => h.request(path, init);

  it(`replay ∥ rotation, ${TRIALS} trials: the family is dead every time, whichever goes first`, async () => {
    const person = await signInNewPerson(h, 'replays@families.example', 'a password for the replays');
    const families = await retiredFamilies(h.db, send, person.userId, h.config.apiOrigin);
    const outcomes = await raceReplaysAndRotations(h.db, families, send, send, send);
    expect(outcomes.rotationFirst + outcomes.replayFirst).toBe(TRIALS);
  }, 60_000);

  it("an attacker rotating a stolen token in a loop does not outlive the victim's replay", async () => {
    const person = await signInNewPerson(h, 'stolen@families.example', 'a password for the stolen token');
    const victim = await issueTokenPair(h.db, { userId: person.userId, clientId: 'ledger-cli', audience: h.config.apiOrigin });
    let stolen = (await (await send('/oauth/token', formInit(refreshForm(victim.refresh_token)))).json()) as TokenPair;
    await h.db.execute(sql`update tokens set retired_at = now() - interval '11 seconds' where hash = ${sha256Hex(victim.refresh_token)}`);
    let rotations = 0;
    let replay: Promise<Response> | undefined;
    for (; rotations < 50; rotations++) {
      if (rotations === 5) replay = send('/oauth/token', formInit(refreshForm(victim.refresh_token)));
      const res = await send('/oauth/token', formInit(refreshForm(stolen.refresh_token)));
      if (res.status !== 200) break;
      stolen = (await res.json()) as TokenPair;
    }
    expect((await replay!).status).toBe(400);
    expect(rotations, 'the attacker was stopped').toBeLessThan(50);
    expect((await h.call(stolen.access_token, 'GET', '/accounts')).status).toBe(401);
    expect((await send('/oauth/token', formInit(refreshForm(stolen.refresh_token)))).status).toBe(400);
  });

  it('DELETE /auth/grants/{grant_id} ends a connection that keeps rotating: 204, the newest pair dead, the family gone from the list', async () => {
    const person = await signInNewPerson(h, 'rotating@families.example', 'a password for the rotating app');
    const first = await issueTokenPair(h.db, { userId: person.userId, clientId: 'ledger-cli', audience: h.config.apiOrigin });
    const listed = (await (await person.browser.request('/auth/tokens')).json()) as { id: string; kind: string; grant_id: string | null }[];
    const row = listed.find((c) => c.id === sha256Hex(first.refresh_token))!;
    expect(row.grant_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

    // The app rotates without pause; the person revokes from a list drawn before.
    let current = first;
    let rotating = true;
    let rotations = 0;
    const app = (async () => {
      while (rotating && rotations < 500) {
        const res = await send('/oauth/token', formInit(refreshForm(current.refresh_token)));
        if (res.status !== 200) return res.status;
        current = (await res.json()) as TokenPair;
        rotations++;
      }
      return 200;
    })();
    while (rotations < 3) await new Promise((r) => setTimeout(r, 5));
    // The spec's route by the row's id: that token is retired by now (the hole of item 3).
    expect((await person.browser.request(`/auth/tokens/${row.id}`, { method: 'DELETE' })).status).toBe(404);
    const ended = await person.browser.request(`/auth/grants/${row.grant_id}`, { method: 'DELETE' });
    expect(ended.status).toBe(204);
    expect(await ended.text()).toBe('');
    const stoppedWith = await Promise.race([app, new Promise<number>((r) => setTimeout(() => r(0), 10_000))]);
    rotating = false;
    expect(stoppedWith, 'the rotating app is refused once the family is revoked').toBe(400);
    expect((await h.call(current.access_token, 'GET', '/accounts')).status).toBe(401);
    const after = (await (await person.browser.request('/auth/tokens')).json()) as { grant_id: string | null }[];
    expect(after.map((c) => c.grant_id)).not.toContain(row.grant_id);
    expect((await person.browser.request(`/auth/grants/${row.grant_id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it("404 {error} for what is not a live family of the caller, changing nothing; someone else's stays live; a bearer token is refused (403)", async () => {
    const alice = await signInNewPerson(h, 'alice@families.example', 'a password for alice here');
    const bob = await signInNewPerson(h, 'bob@families.example', 'a password for bob here');
    const audience = h.config.apiOrigin;
    const grantOf = async (pair: TokenPair) =>
      rowsOf<{ grant_id: string }>(await h.db.execute(sql`select grant_id::text from tokens where hash = ${sha256Hex(pair.refresh_token)}`))[0]!.grant_id;
    const bobs = await issueTokenPair(h.db, { userId: bob.userId, clientId: 'ledger-cli', audience });
    const expired = await issueTokenPair(h.db, { userId: alice.userId, clientId: 'ledger-cli', audience });
    await h.db.execute(sql`update tokens set expires_at = now() - interval '1 second' where hash = ${sha256Hex(expired.refresh_token)}`);
    const revoked = await issueTokenPair(h.db, { userId: alice.userId, clientId: 'ledger-cli', audience });
    expect((await h.postForm('/oauth/revoke', { token: revoked.refresh_token })).status).toBe(200);
    const own = await issueTokenPair(h.db, { userId: alice.userId, clientId: 'ledger-cli', audience });

    for (const [what, id] of [
      ['unknown', randomUUID()],
      ["someone else's", await grantOf(bobs)],
      ['expired', await grantOf(expired)],
      ['revoked', await grantOf(revoked)],
      ['malformed', 'not-a-uuid'],
      ['a token digest', sha256Hex(own.refresh_token)],
      ['an integer', '1'],
    ] as const) {
      const res = await alice.browser.request(`/auth/grants/${encodeURIComponent(id)}`, { method: 'DELETE' });
      expect(res.status, what).toBe(404);
      expect(await res.json(), what).toEqual({ error: expect.any(String) });
    }
    expect((await h.call(bobs.access_token, 'GET', '/accounts')).status).toBe(200);
    expect((await h.call(own.access_token, 'GET', '/accounts')).status).toBe(200);
    // Session-only, like the spec's credential routes: a bearer token cannot end a connection.
    const byBearer = await h.call(alice.token, 'DELETE', `/auth/grants/${await grantOf(own)}`);
    expect(byBearer.status).toBe(403);
    expect((await h.call(own.access_token, 'GET', '/accounts')).status).toBe(200);
    // The upper-case spelling of a uuid names the same family.
    expect((await alice.browser.request(`/auth/grants/${(await grantOf(own)).toUpperCase()}`, { method: 'DELETE' })).status).toBe(204);
    expect((await h.call(own.access_token, 'GET', '/accounts')).status).toBe(401);
  });

  it('a password change revokes every family: none of them rotates again (spec rule 6, D25)', async () => {
    const person = await signInNewPerson(h, 'rule6@families.example', 'a password before the change');
    const pair = await issueTokenPair(h.db, { userId: person.userId, clientId: 'ledger-cli', audience: h.config.apiOrigin });
    const changed = await person.browser.post('/auth/password', { current_password: person.password, new_password: 'a password after the change' });
    expect(changed.status).toBe(204);
    const revokedGrants = rowsOf<{ n: string }>(
      await h.db.execute(sql`select count(*) as n from grants where user_id = ${person.userId} and revoked_at is null`),
    );
    expect(Number(revokedGrants[0]!.n)).toBe(0);
    expect((await send('/oauth/token', formInit(refreshForm(pair.refresh_token)))).status).toBe(400);
  });
});

/** `ledger serve` on the shared database; each instance binds a port of its own. */
async function startInstance(databaseUrl: string): Promise<ServeProcess> {
  const port = await freePort();
  return startServe({
    env: { DATABASE_URL: databaseUrl, BIND_ADDR: `127.0.0.1:${port}`, WEB_BIND_ADDR: 'off', API_ORIGIN: 'http://localhost:38081' },
  });
}

describe.skipIf(!postgresAvailable())('a refresh-token family is one unit across two instances (issue 26 item 2, D25, D10)', () => {
  let database: TestDatabase;
  let instances: ServeProcess[];

  beforeAll(async () => {
    database = await openTestDatabase('postgres');
    instances = await Promise.all([startInstance(database.url!), startInstance(database.url!)]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all((instances ?? []).map((i) => i.stop()));
    await database?.close();
  });

  it(`replay on one instance ∥ rotation on the other, ${TRIALS} trials: the family is dead every time`, async () => {
    const [a, b] = instances.map((i): Send => (path, init) => fetch(`${i.url}${path}`, init)) as [Send, Send];
    const { id: userId } = await addUser(database.db, 'two@families.example', 'a password for two instances');
    const families = await retiredFamilies(database.db, a, userId, 'http://localhost:38081');
    const outcomes = await raceReplaysAndRotations(database.db, families, a, b, a);
    expect(outcomes.rotationFirst + outcomes.replayFirst).toBe(TRIALS);
  }, 90_000);
});
