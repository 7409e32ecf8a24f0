import { expect, it } from 'vitest';
import { sql, type SQL } from 'drizzle-orm';
import { openConnection, rowsOf } from '../src/db/database';
import { issueTokenPair } from '../src/oauth/grants';
import { signInNewPerson } from './support/browser';
import { describeEachDatabase } from './support/harness';
import { sha256Hex } from './support/http';

// Issue 26 item 4 (spec rule 6, D10): a password change racing a refresh-token rotation. The
// password change held the user's row FOR UPDATE and then revoked the tokens; the rotation retired
// its token and then inserted the new pair, whose foreign key waits for that row: each waited for
// the other, PostgreSQL broke the deadlock (40P01) and a request answered 500. Now every grant
// takes the user's row first (KEY SHARE) and the password change does too (FOR UPDATE): one order.
//
// The interleaving is held open, not hoped for: a second connection holds the row of one of the
// user's tokens, so the password change stops inside its revocation, with the user's row locked;
// the rotation is sent then, and the held row released once the rotation waits too.

const ROUNDS = 3;

describeEachDatabase('a password change racing a rotation (issue 26 item 4)', (h) => {
  it('never a 500: the rotation waits for the password change and is refused, and every token of the user is revoked (rule 6)', async () => {
    const person = await signInNewPerson(h, 'rotating@races.example', 'the first password of this race');
    const holder = openConnection(h.database.url);
    // Read on the harness's pool: the holder's one connection is inside its transaction.
    const count = async (query: SQL) => Number(rowsOf<{ n: string }>(await h.db.execute(query))[0]!.n);
    const waiting = () => count(sql`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
    const until = async (condition: () => Promise<boolean>) => {
      for (let i = 0; i < 200 && !(await condition()); i++) await new Promise((r) => setTimeout(r, 25));
    };
    let password = person.password;
    try {
      for (let round = 0; round < ROUNDS; round++) {
        // Scanned first by the revocation: issued before the pair the rotation redeems.
        const held = await issueTokenPair(h.db, { userId: person.userId, clientId: 'ledger-cli', audience: h.config.apiOrigin });
        const pair = await issueTokenPair(h.db, { userId: person.userId, clientId: 'ledger-cli', audience: h.config.apiOrigin });
        const next = `${person.password} ${round}`;
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        let locked!: () => void;
        const isLocked = new Promise<void>((resolve) => (locked = resolve));
        const holding = holder.begin(async (tx) => {
          await tx`select hash from tokens where hash = ${sha256Hex(held.refresh_token)} for update`;
          locked();
          await released;
        });
        await isLocked;
        const change = person.browser.post('/auth/password', { current_password: password, new_password: next });
        await until(async () => (await waiting()) >= 1);
        const rotation = h.postForm('/oauth/token', { grant_type: 'refresh_token', refresh_token: pair.refresh_token, client_id: 'ledger-cli' });
        await until(async () => (await waiting()) >= 2);
        release();
        await holding;
        const [changed, rotated] = await Promise.all([change, rotation]);
        expect(changed.status, `round ${round}: the password change`).toBe(204);
        password = next;
        expect(rotated.status, `round ${round}: the rotation, ${await rotated.clone().text()}`).toBe(400);
        expect(((await rotated.json()) as { error: string }).error).toBe('invalid_grant');
        const live = await count(sql`select count(*) as n from tokens where user_id = ${person.userId} and revoked_at is null and retired_at is null and expires_at > now()`);
        expect(live, `round ${round}: live tokens of the user`).toBe(0);
      }
    } finally {
      await holder.end({ timeout: 5 });
    }
  }, 120_000);
});
