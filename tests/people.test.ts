import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { restoreBackup, writeBackup } from '../src/admin/backup';
import { describeChange, type Wording } from '../src/book/change-words';
import { duesOccurrences, duesPlans, people } from '../src/db/schema';
import { describeEachDatabase } from './support/harness';
import { openTestDatabase } from './support/databases';
import { rowsByTable, writeVersion1 } from './support/backups';
import { json } from './support/http';

// Issue 40 (D27) over HTTP, on both databases: people and their own accounts (every status and
// shape but direct debit and dues), a name clash that writes nothing, the batch all or nothing
// with every bad row by index, forget, change records without personal data, the 409s of an
// account in use (a person's, a plan's income account), a statement, and a backup round trip.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const IBAN = 'DE89370400440532013000';

describeEachDatabase('issue 40: people (D27)', (h) => {
  let token: string;
  let userId: number;
  const ids: Record<string, number> = {};
  const api = (method: string, path: string, body?: unknown) => h.call(token, method, path, body);
  const expectStatus = async (res: Response, status: number) => {
    expect(res.status, await res.clone().text()).toBe(status);
    return res.status === 204 ? undefined : json(res);
  };
  const refused = async (res: Response, status: number, words: RegExp | string) => {
    const body = await expectStatus(res, status);
    expect(body.error).toMatch(words);
    return body;
  };
  const count = async (table: 'people' | 'accounts') => (await json(await api('GET', table === 'people' ? '/people' : '/accounts'))).length;
  const changesOf = async (subjectId: number) => (await json(await api('GET', `/changes?subject=person&subject_id=${subjectId}`))).changes;
  let planId: number;
  let otherPlanId: number;

  beforeAll(async () => {
    ({ token, userId } = await h.userWithToken('treasurer@people.example'));
    for (const [name, kind] of [['Bank', 'asset'], ['Dues', 'income'], ['Youth dues', 'income'], ['Taken name', 'expense']] as const) {
      ids[name] = (await expectStatus(await api('POST', '/accounts', { name, kind }), 201)).id;
    }
    // The dues plans' own routes are another engineer's; a plan row is all a person needs here. They
    // start far ahead, so no dues are due (dues posting is tested with the plans).
    [{ id: planId }] = await h.db.insert(duesPlans).values({ name: 'Adult', amountCents: 500, every: 'month', startOn: '2099-01-01', incomeAccountId: ids.Dues!, createdBy: userId }).returning({ id: duesPlans.id }) as [{ id: number }];
    [{ id: otherPlanId }] = await h.db.insert(duesPlans).values({ name: 'Youth', amountCents: 3000, every: 'year', startOn: '2099-01-01', incomeAccountId: ids['Youth dues']!, createdBy: userId }).returning({ id: duesPlans.id }) as [{ id: number }];
  });

  it('D27: POST /people → 201 Person, exactly its shape; its own asset account named as the person, made with it; IBAN without spaces in capitals; one change record without personal data', async () => {
    const made = await expectStatus(await api('POST', '/people', {
      name: '  Anna Schmidt ', email: 'anna@example.org', iban: 'de89 3704 0044 0532 0130 00', member_no: 'M-001',
      joined_on: '2025-01-15', mandate: { id: 'MANDATE-001', signed_on: '2025-01-10' }, dues_plan_id: planId, note: 'pays in cash\nsometimes',
    }), 201);
    expect(made).toEqual({
      id: expect.any(Number), name: 'Anna Schmidt', email: 'anna@example.org', iban: IBAN, member_no: 'M-001', joined_on: '2025-01-15',
      left_on: null, mandate: { id: 'MANDATE-001', signed_on: '2025-01-10' }, dues_plan_id: planId, note: 'pays in cash\nsometimes',
      account_id: expect.any(Number), balance_cents: 0,
    });
    ids.anna = made.id;
    const accounts: Json[] = await json(await api('GET', '/accounts'));
    expect(accounts.find((a) => a.id === made.account_id)).toEqual({ id: made.account_id, name: 'Anna Schmidt', kind: 'asset' });
    expect(await expectStatus(await api('GET', `/people/${made.id}`), 200)).toEqual(made);
    // D27: a person created keeps dues_from null (charged from joined_on).
    const [row] = await h.db.select({ duesFrom: people.duesFrom }).from(people).where((await import('drizzle-orm')).eq(people.id, made.id));
    expect(row!.duesFrom).toBeNull();
    const records = await changesOf(made.id);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ subject: 'person', subject_id: made.id, action: 'create', before: null, actor_email: 'treasurer@people.example', via: 'token' });
    expect(records[0].after).toEqual({ id: made.id, name: 'Anna Schmidt', member_no: 'M-001', dues_plan_id: planId, joined_on: '2025-01-15', left_on: null });
    // None for the person's account.
    expect((await json(await api('GET', `/changes?subject=account&subject_id=${made.account_id}`))).changes).toEqual([]);
  });

  it('D27: a minimal person; absent optional fields are null; blank text is none', async () => {
    const made = await expectStatus(await api('POST', '/people', { name: 'Bernd Müller', email: '  ', iban: '' }), 201);
    expect(made).toMatchObject({ name: 'Bernd Müller', email: null, iban: null, member_no: null, joined_on: null, left_on: null, mandate: null, dues_plan_id: null, note: null, balance_cents: 0 });
    ids.bernd = made.id;
  });

  it('D27: every bad field is a 400 naming it, and nothing is written', async () => {
    const before = [await count('people'), await count('accounts')];
    const cases: [Json, RegExp][] = [
      [{}, /name is required/],
      [{ name: '   ' }, /name is required/],
      [{ name: 'x'.repeat(101) }, /name has at most 100/],
      [{ name: 'Bad Iban', iban: 'DE89370400440532013001' }, /iban's check digits are wrong/],
      [{ name: 'Bad Iban', iban: 'DE8937040044053201300' }, /iban has the wrong length/],
      [{ name: 'Bad Iban', iban: 'XX89370400440532013000' }, /iban does not start with a known country/],
      [{ name: 'Bad Iban', iban: 'not an iban!' }, /iban must be an IBAN/],
      [{ name: 'Bad Iban', iban: 42 }, /iban must be text/],
      [{ name: 'Bad Email', email: 'nobody' }, /email must be an email address/],
      [{ name: 'Long No', member_no: 'x'.repeat(36) }, /member_no has at most 35/],
      [{ name: 'Taken No', member_no: 'M-001' }, /member_no M-001 is taken by Anna Schmidt/],
      [{ name: 'Mandate', mandate: { id: 'has space', signed_on: '2025-01-01' } }, /mandate\.id must be/],
      [{ name: 'Mandate', mandate: { id: 'x'.repeat(36), signed_on: '2025-01-01' } }, /mandate\.id must be/],
      [{ name: 'Mandate', mandate: { id: 'ÄÖÜ', signed_on: '2025-01-01' } }, /mandate\.id must be/],
      [{ name: 'Mandate', mandate: { id: 'OK-1' } }, /signed_on is required/],
      [{ name: 'Mandate', mandate: { id: 'OK-1', signed_on: '2025-02-30' } }, /mandate\.signed_on must be a date/],
      [{ name: 'Mandate', mandate: 'OK-1' }, /mandate must be an object/],
      [{ name: 'Dates', joined_on: '2025-13-01' }, /joined_on must be a date/],
      [{ name: 'Dates', joined_on: '2025-03-01', left_on: '2025-02-28' }, /left_on must not be before joined_on/],
      [{ name: 'Plan', dues_plan_id: 999_999 }, /dues_plan_id names no dues plan/],
      [{ name: 'Plan', dues_plan_id: 0 }, /dues_plan_id must be a positive integer/],
      [{ name: 'Plan', dues_plan_id: '1' }, /dues_plan_id must be a positive integer/],
      // A name clash with any account (case-blind): 400 by the spec's constraint rule.
      [{ name: 'taken NAME' }, /name: an account named Taken name exists already/],
      [{ name: 'anna schmidt' }, /name: an account named Anna Schmidt exists already/],
    ];
    for (const [body, words] of cases) await refused(await api('POST', '/people', body), 400, words);
    expect([await count('people'), await count('accounts')]).toEqual(before);
    // Never a 500: not JSON, not an object.
    await refused(await api('POST', '/people', '{'), 400, /not valid JSON/);
    await refused(await api('POST', '/people', '42'), 400, /JSON object/);
  });

  it('D27: GET /people by name; ?q= accent- and case-blind on name, email and member_no; ?active_on=', async () => {
    await expectStatus(await api('POST', '/people', { name: 'Zoë Ærø', joined_on: '2025-03-01', left_on: '2025-06-30', email: 'zoe@club.example' }), 201);
    await expectStatus(await api('POST', '/people', { name: 'carl Weiß', member_no: 'X-77', joined_on: '2026-01-01' }), 201);
    const names = async (query: string) => (await expectStatus(await api('GET', `/people${query}`), 200)).map((p: Json) => p.name);
    expect(await names('')).toEqual(['Anna Schmidt', 'Bernd Müller', 'carl Weiß', 'Zoë Ærø']);
    expect(await names('?q=MULLER')).toEqual(['Bernd Müller']);
    expect(await names('?q=weiss')).toEqual(['carl Weiß']);
    expect(await names('?q=zoe')).toEqual(['Zoë Ærø']);
    expect(await names('?q=aero')).toEqual(['Zoë Ærø']);
    expect(await names('?q=ANNA@EXAMPLE')).toEqual(['Anna Schmidt']);
    expect(await names('?q=x-7')).toEqual(['carl Weiß']);
    expect(await names('?q=%25')).toEqual([]);
    expect(await names('?active_on=2025-07-01')).toEqual(['Anna Schmidt', 'Bernd Müller']);
    expect(await names('?active_on=2025-06-30')).toEqual(['Anna Schmidt', 'Bernd Müller', 'Zoë Ærø']);
    expect(await names('?active_on=2024-12-31')).toEqual(['Bernd Müller']);
    expect(await names('?active_on=2026-01-01&q=WEISS')).toEqual(['carl Weiß']);
    expect(await names('?active_on=2025-07-01&q=WEISS')).toEqual([]);
    await refused(await api('GET', '/people?active_on=2025-02-30'), 400, /active_on must be a date/);
    await refused(await api('GET', '/people/abc'), 400, /person id must be a positive integer/);
    await refused(await api('GET', '/people/99999999'), 404, 'no such person');
  });

  it('D27: PUT replaces (absent optional → null), renames the account, a plan change sets dues_from to today; one change record each', async () => {
    const made = await expectStatus(await api('POST', '/people', {
      name: 'Dora Put', email: 'dora@example.org', iban: IBAN, member_no: 'P-1', mandate: { id: 'M1', signed_on: '2025-01-01' }, note: 'n', dues_plan_id: planId,
    }), 201);
    const replaced = await expectStatus(await api('PUT', `/people/${made.id}`, { name: 'Dora Renamed', dues_plan_id: planId, joined_on: '2025-02-01' }), 200);
    expect(replaced).toEqual({
      ...made, name: 'Dora Renamed', email: null, iban: null, member_no: null, mandate: null, note: null, joined_on: '2025-02-01',
    });
    const account = (await json(await api('GET', '/accounts'))).find((a: Json) => a.id === made.account_id);
    expect(account.name).toBe('Dora Renamed');
    const { eq } = await import('drizzle-orm');
    const duesFrom = async () => (await h.db.select({ d: people.duesFrom }).from(people).where(eq(people.id, made.id)))[0]!.d;
    expect(await duesFrom()).toBeNull(); // the plan did not change
    await expectStatus(await api('PUT', `/people/${made.id}`, { name: 'Dora Renamed', dues_plan_id: otherPlanId }), 200);
    expect(await duesFrom()).toBe(new Date().toISOString().slice(0, 10));
    const records = await changesOf(made.id);
    expect(records.map((r: Json) => r.action)).toEqual(['update', 'update', 'create']);
    expect(records[1].before).toEqual({ id: made.id, name: 'Dora Put', member_no: 'P-1', dues_plan_id: planId, joined_on: null, left_on: null });
    expect(records[1].after).toEqual({ id: made.id, name: 'Dora Renamed', member_no: null, dues_plan_id: planId, joined_on: '2025-02-01', left_on: null });
    // A rename to a case variant of its own name is allowed; to another account's name is not, and writes nothing.
    await expectStatus(await api('PUT', `/people/${made.id}`, { name: 'DORA renamed', dues_plan_id: otherPlanId }), 200);
    await refused(await api('PUT', `/people/${made.id}`, { name: 'Bank' }), 400, /name: an account named Bank exists already/);
    await refused(await api('PUT', `/people/${made.id}`, { name: 'X', member_no: 'M-001' }), 400, /member_no M-001 is taken/);
    expect((await json(await api('GET', `/people/${made.id}`))).name).toBe('DORA renamed');
    expect(await changesOf(made.id)).toHaveLength(4);
    await refused(await api('PUT', '/people/99999999', { name: 'Nobody' }), 404, 'no such person');
    // A person may keep their own member number.
    await expectStatus(await api('PUT', `/people/${made.id}`, { name: 'DORA renamed', member_no: 'P-2' }), 200);
    await expectStatus(await api('PUT', `/people/${made.id}`, { name: 'DORA renamed', member_no: 'P-2' }), 200);
  });

  it('D27: forget clears email, IBAN, mandate and note; the name stays; one change record; no record ever held personal data', async () => {
    const forgotten = await expectStatus(await api('POST', `/people/${ids.anna}/forget`), 200);
    expect(forgotten).toMatchObject({ name: 'Anna Schmidt', email: null, iban: null, mandate: null, note: null, member_no: 'M-001', dues_plan_id: planId });
    const records = await changesOf(ids.anna!);
    expect(records.map((r: Json) => r.action)).toEqual(['update', 'create']);
    const all = JSON.stringify((await json(await api('GET', '/changes?subject=person&limit=500'))).changes);
    for (const secret of ['anna@example.org', IBAN, 'MANDATE-001', 'pays in cash', 'dora@example.org', 'zoe@club.example']) expect(all).not.toContain(secret);
    await refused(await api('POST', '/people/99999999/forget'), 404, 'no such person');
  });

  it("D27, D15: History tells a person's records in words (members in a club, people in a personal book) and never personal data", async () => {
    const words = (bookStyle: 'club' | 'personal'): Wording => ({ money: (c) => (c / 100).toFixed(2), date: (d) => d, bookStyle });
    const tell = async (subjectId: number, style: 'club' | 'personal' = 'club') => (await changesOf(subjectId)).map((c: Json) => describeChange(c, words(style)));
    const dora = (await json(await api('GET', '/people?q=dora')))[0];
    const told = await tell(dora.id);
    expect(told.at(-1)).toBe('treasurer@people.example added Dora Put to the members with a token.');
    expect(told.at(-2)).toBe('treasurer@people.example changed the name from “Dora Put” to “Dora Renamed”, the member number from “P-1” to none, the date joined from none to 2025-02-01 of Dora Renamed with a token.');
    expect(told.at(-3)).toBe(`treasurer@people.example changed the date joined from 2025-02-01 to none, the dues plan from plan ${planId} to plan ${otherPlanId} of Dora Renamed with a token.`);
    expect(told.at(-4)).toBe('treasurer@people.example renamed Dora Renamed to DORA renamed with a token.');
    expect((await tell(ids.anna!, 'personal'))[0]).toBe('treasurer@people.example changed or forgot the personal data of Anna Schmidt with a token.');
    expect((await tell(ids.anna!, 'personal'))[1]).toBe('treasurer@people.example added Anna Schmidt to the people with a token.');
  });

  it('D27: people created at once under one name or one member number: one is made, the others are 400 naming the field, and no account is left without its person', async () => {
    const before = [await count('people'), await count('accounts')];
    const same = await Promise.all([1, 2, 3, 4].map(() => api('POST', '/people', { name: 'Race Person' })));
    expect(same.map((r) => r.status).sort()).toEqual([201, 400, 400, 400]);
    for (const r of same.filter((x) => x.status === 400)) expect((await r.json()).error).toMatch(/^name: an account (named Race Person|with that name) exists already/);
    const numbered = await Promise.all(['Race A', 'Race B', 'Race C'].map((name) => api('POST', '/people', { name, member_no: 'RACE-1' })));
    expect(numbered.map((r) => r.status).sort()).toEqual([201, 400, 400]);
    for (const r of numbered.filter((x) => x.status === 400)) expect((await r.json()).error).toMatch(/^member_no (RACE-1 )?is taken/);
    expect([await count('people'), await count('accounts')]).toEqual([before[0]! + 2, before[1]! + 2]);
    const people: Json[] = await json(await api('GET', '/people'));
    const accounts: Json[] = await json(await api('GET', '/accounts'));
    for (const p of people) expect(accounts.find((a) => a.id === p.account_id)?.name, p.name).toBe(p.name);
  });

  it('D27: POST /people/batch → 201 {created} in order, or all or nothing with every bad row by 0-based index (a clash within the batch too)', async () => {
    const before = [await count('people'), await count('accounts')];
    const bad = await refused(await api('POST', '/people/batch', { people: [
      { name: 'Row Zero' },
      { name: 'Row One', iban: 'DE00370400440532013000' },
      { name: 'row zero' },
      { name: 'Row Three', member_no: 'B-1' },
      { name: 'Row Four', member_no: 'B-1' },
      { name: 'Bank' },
      { name: 'Row Six', dues_plan_id: 999_999 },
      'not a person',
    ] }), 400, /rows cannot be taken/);
    expect(bad.errors).toEqual([
      { index: 1, error: "iban's check digits are wrong" },
      { index: 7, error: 'the request body must be a JSON object' },
    ]);
    // Field problems are found first; then the book's rules, every row named.
    const clash = await refused(await api('POST', '/people/batch', { people: [
      { name: 'Row Zero' }, { name: 'row zero' }, { name: 'Row Three', member_no: 'B-1' }, { name: 'Row Four', member_no: 'B-1' },
      { name: 'Bank' }, { name: 'Row Six', dues_plan_id: 999_999 }, { name: 'Row Seven', member_no: 'M-001' },
    ] }), 400, /rows cannot be taken/);
    expect(clash.errors).toEqual([
      { index: 1, error: 'name: row 1 has the name row zero already' },
      { index: 3, error: 'member_no: row 3 has the member number B-1 already' },
      { index: 4, error: "name: an account named Bank exists already (a person's account is named as the person)" },
      { index: 5, error: 'dues_plan_id names no dues plan' },
      { index: 6, error: 'member_no M-001 is taken by Anna Schmidt' },
    ]);
    const one = await refused(await api('POST', '/people/batch', { people: [{ name: 'Fine' }, { name: 'Bad', email: 'x' }] }), 400, 'row 2: email must be an email address');
    expect(one.errors).toEqual([{ index: 1, error: 'email must be an email address' }]);
    expect([await count('people'), await count('accounts')]).toEqual(before);
    await refused(await api('POST', '/people/batch', { people: [] }), 400, /at least one/);
    await refused(await api('POST', '/people/batch', {}), 400, /people/);
    const made = await expectStatus(await api('POST', '/people/batch', { people: [
      { name: 'Batch B', member_no: 'B-2', iban: 'GB82 WEST 1234 5698 7654 32' }, { name: 'Batch A', joined_on: '2025-01-01' }, { name: 'Batch C', dues_plan_id: planId },
    ] }), 201);
    expect(made).toEqual({ created: [expect.any(Number), expect.any(Number), expect.any(Number)] });
    const got = await Promise.all(made.created.map(async (id: number) => json(await api('GET', `/people/${id}`))));
    expect(got.map((p) => p.name)).toEqual(['Batch B', 'Batch A', 'Batch C']);
    expect(got[0].iban).toBe('GB82WEST12345698765432');
    for (const p of got) expect((await changesOf(p.id)).map((r: Json) => r.action)).toEqual(['create']);
    expect([await count('people'), await count('accounts')]).toEqual([before[0]! + 3, before[1]! + 3]);
  });

  it("D27: a person's account is in use: rename, kind change or delete by /accounts → 409 naming the person; a plan's income account: kind change or delete → 409 naming the plan", async () => {
    const anna = await json(await api('GET', `/people/${ids.anna}`));
    await refused(await api('PUT', `/accounts/${anna.account_id}`, { name: 'Someone else' }), 409, /Anna Schmidt/);
    await refused(await api('PUT', `/accounts/${anna.account_id}`, { kind: 'liability' }), 409, /Anna Schmidt/);
    await refused(await api('DELETE', `/accounts/${anna.account_id}`), 409, /Anna Schmidt/);
    await refused(await api('PUT', `/accounts/${ids.Dues}`, { kind: 'expense' }), 409, /Adult/);
    await refused(await api('DELETE', `/accounts/${ids['Youth dues']}`), 409, /Youth/);
    // Renaming a plan's income account is fine.
    await expectStatus(await api('PUT', `/accounts/${ids.Dues}`, { name: 'Membership dues' }), 200);
    expect((await json(await api('GET', '/accounts'))).find((a: Json) => a.id === anna.account_id).name).toBe('Anna Schmidt');
  });

  it('D27: statement of account (natural sign, oldest first, D7 defaults) and balance_cents; DELETE → 204 with its account, 409 when it has entries', async () => {
    const p = await expectStatus(await api('POST', '/people', { name: 'Erik Statement' }), 201);
    const post = async (occurred_on: string, amount: number, description: string) =>
      expectStatus(await api('POST', '/transactions', { occurred_on, description, entries: [
        { account_id: p.account_id, amount_cents: amount }, { account_id: amount > 0 ? ids.Dues : ids.Bank, amount_cents: -amount },
      ] }), 201);
    const t1 = await post('2025-01-01', 500, 'Adult 2025-01');
    const t2 = await post('2025-02-01', 500, 'Adult 2025-02');
    const t3 = await post('2025-02-10', -700, 'Payment');
    const t4 = await post('2025-03-01', 500, 'Adult 2025-03');
    expect((await json(await api('GET', `/people/${p.id}`))).balance_cents).toBe(800);
    const all = await expectStatus(await api('GET', `/people/${p.id}/statement`), 200);
    expect(all).toEqual({
      person_id: p.id, name: 'Erik Statement', from: '2025-01-01', to: '2025-03-01', opening_cents: 0,
      lines: [
        { transaction_id: t1.id, occurred_on: '2025-01-01', description: 'Adult 2025-01', amount_cents: 500, balance_cents: 500 },
        { transaction_id: t2.id, occurred_on: '2025-02-01', description: 'Adult 2025-02', amount_cents: 500, balance_cents: 1000 },
        { transaction_id: t3.id, occurred_on: '2025-02-10', description: 'Payment', amount_cents: -700, balance_cents: 300 },
        { transaction_id: t4.id, occurred_on: '2025-03-01', description: 'Adult 2025-03', amount_cents: 500, balance_cents: 800 },
      ],
      closing_cents: 800,
    });
    const part = await expectStatus(await api('GET', `/people/${p.id}/statement?from=2025-02-05&to=2025-02-28`), 200);
    expect(part).toMatchObject({ from: '2025-02-05', to: '2025-02-28', opening_cents: 1000, closing_cents: 300 });
    expect(part.lines.map((l: Json) => l.transaction_id)).toEqual([t3.id]);
    await refused(await api('GET', `/people/${p.id}/statement?from=2025-02-30`), 400, /from must be a date/);
    await refused(await api('GET', '/people/99999999/statement'), 404, 'no such person');
    // DELETE: 409 while the account has entries; 204 once it has none, and the account goes too.
    await refused(await api('DELETE', `/people/${p.id}`), 409, 'the account has entries');
    for (const t of [t1, t2, t3, t4]) await expectStatus(await api('DELETE', `/transactions/${t.id}`), 204);
    await expectStatus(await api('DELETE', `/people/${p.id}`), 204);
    await refused(await api('GET', `/people/${p.id}`), 404, 'no such person');
    expect((await json(await api('GET', '/accounts'))).some((a: Json) => a.id === p.account_id)).toBe(false);
    const records = await changesOf(p.id);
    expect(records[0]).toMatchObject({ action: 'delete', after: null, before: { id: p.id, name: 'Erik Statement', member_no: null, dues_plan_id: null, joined_on: null, left_on: null } });
    await refused(await api('DELETE', `/people/${p.id}`), 404, 'no such person');
    // The name is free again.
    await expectStatus(await api('POST', '/accounts', { name: 'Erik Statement', kind: 'expense' }), 201);
  });

  it('D27, D14: a backup carries people, plans and dues occurrences; restored, GET /people and who owes are the same; an older backup without them restores', async () => {
    const bernd = await json(await api('GET', `/people/${ids.bernd}`));
    await h.db.insert(duesOccurrences).values({ planId, personId: ids.anna!, occursOn: '2025-02-01', transactionId: null });
    await expectStatus(await api('POST', '/transactions', { occurred_on: '2025-04-01', description: 'Advance', entries: [
      { account_id: bernd.account_id, amount_cents: 1234 }, { account_id: ids.Bank, amount_cents: -1234 },
    ] }), 201);
    const dir = mkdtempSync(path.join(tmpdir(), 'ledger-people-'));
    const target = await openTestDatabase(h.backend);
    try {
      const file = path.join(dir, 'book.ledger-backup');
      await writeBackup(h.db, file);
      await restoreBackup(target.db, file);
      const { createApp } = await import('../src/http/app');
      const app = createApp({ db: target.db, config: h.config, log: { info() {}, error() {} } });
      const read = (p: string) => Promise.resolve(app.request(new URL(p, h.config.apiOrigin).href, { headers: { authorization: `Bearer ${token}` } }));
      for (const p of ['/people', `/people/${ids.bernd}`, '/reports/people?as_of=2025-12-31', `/people/${ids.bernd}/statement`, '/changes?subject=person&limit=500']) {
        const [mine, theirs] = await Promise.all([api('GET', p), read(p)]);
        expect(theirs.status, p).toBe(200);
        expect(await theirs.json(), p).toEqual(await mine.json());
      }
      const plans = await target.db.select().from(duesPlans);
      expect(plans.map((p) => p.name).sort()).toEqual(['Adult', 'Youth']);
      const occurrences = await target.db.select().from(duesOccurrences);
      expect(occurrences).toMatchObject([{ planId, personId: ids.anna, occursOn: '2025-02-01' }]);
      // A person made after the restore gets an id past every restored one.
      const res = await Promise.resolve(app.request(new URL('/people', h.config.apiOrigin).href, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'After the restore' }),
      }));
      expect(res.status).toBe(201);
      const list = await json(await api('GET', '/people'));
      expect((await res.json()).id).toBeGreaterThan(Math.max(...list.map((p: Json) => p.id)));
      // A backup of schema 18 (before people) restores with none, and the rest as before.
      const rows = rowsByTable(file);
      for (const table of ['dues_plans', 'people', 'dues_occurrences']) delete rows[table];
      // Without its people the book's own accounts stay; the change log is cut to what schema 18 held.
      rows.changes = rows.changes!.filter((c: Json) => c.subject !== 'person');
      const older = writeVersion1(path.join(dir, 'schema-18.ledger-backup'), 18, rows);
      const third = await openTestDatabase(h.backend);
      try {
        await restoreBackup(third.db, older);
        expect(await third.db.select().from(people)).toEqual([]);
        expect(await third.db.select().from(duesPlans)).toEqual([]);
        const app3 = createApp({ db: third.db, config: h.config, log: { info() {}, error() {} } });
        const res3 = await Promise.resolve(app3.request(new URL('/accounts', h.config.apiOrigin).href, { headers: { authorization: `Bearer ${token}` } }));
        expect(await res3.json()).toEqual(await json(await api('GET', '/accounts')));
      } finally {
        await third.close();
      }
    } finally {
      await target.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
