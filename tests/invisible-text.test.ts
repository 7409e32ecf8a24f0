import { beforeAll, expect, it } from 'vitest';
import { addUser } from '../src/identity/users';
import { SoftwareAuthenticator } from './support/authenticator';
import { Browser } from './support/browser';
import { describeEachDatabase } from './support/harness';
import { json } from './support/http';

// Issue 26 item 6, D25: text we store (account names, descriptions, import-rule patterns, client
// names, imported descriptions) loses Unicode default-ignorable and format characters, then is
// NFC; uniqueness is decided on the result (account names without case, D6). The text-direction
// controls stay refused with a 400 naming the field (README, "Choices where the spec is silent").

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** The characters of the attack: each is invisible, and each is gone from what we store. */
const INVISIBLE = [
  0x200b, 0x200c, 0x200d, 0x2060, 0x00ad, 0x3164, 0x115f, 0xe0000, 0xe0001, 0xe0041, 0xe007f, 0x034f, 0x180e, 0x1d173, 0xfeff,
].map((cp) => [`U+${cp.toString(16).toUpperCase().padStart(4, '0')}`, String.fromCodePoint(cp)] as const);

const CSV_OPTIONS = { date_column: 'Date', description_column: 'Description', amount_column: 'Amount', date_format: 'YYYY-MM-DD', decimal: '.' } as const;
const csvFile = (...rows: string[]) => ['Date,Description,Amount', ...rows].join('\n') + '\n';

describeEachDatabase('invisible characters in text we store (issue 26 item 6, D25)', (h) => {
  let token: string;
  const ids: Record<string, number> = {};
  const api = (method: string, path: string, body?: unknown) => h.call(token, method, path, body);
  const register = (client_name: string) =>
    h.request('/oauth/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name, redirect_uris: ['http://127.0.0.1:8765/callback'] }),
    });

  beforeAll(async () => {
    ({ token } = await h.userWithToken('invisible@example.com'));
    for (const [name, kind] of [['Bank', 'asset'], ['Suspense', 'expense'], ['Café', 'expense']] as const) {
      const res = await api('POST', '/accounts', { name, kind });
      expect(res.status).toBe(201);
      ids[name] = (await json<{ id: number }>(res)).id;
    }
  });

  it('account names lose each invisible character; the result beside an existing name is a duplicate', async () => {
    for (const [what, ch] of INVISIBLE) {
      const res = await api('POST', '/accounts', { name: `Sav${ch}ings ${what}`, kind: 'asset' });
      expect(res.status, what).toBe(201);
      expect((await json<Json>(res)).name, what).toBe(`Savings ${what}`);
      // `Ba<ch>nk` beside `Bank`, and a case variant of it: refused as a duplicate.
      for (const name of [`Ba${ch}nk`, `${ch}bA${ch}NK${ch}`]) {
        const twin = await api('POST', '/accounts', { name, kind: 'asset' });
        expect(twin.status, `${what} ${JSON.stringify(name)}`).toBe(400);
        expect(await json(twin)).toEqual({ error: 'an account with that name already exists' });
      }
      // Renaming another account to it is refused too.
      const rename = await api('PUT', `/accounts/${ids['Suspense']}`, { name: `Ba${ch}nk` });
      expect(rename.status, what).toBe(400);
    }
    // Nothing but invisible characters is no name.
    const empty = await api('POST', '/accounts', { name: INVISIBLE.map(([, ch]) => ch).join(''), kind: 'asset' });
    expect(empty.status).toBe(400);
    expect(await json(empty)).toEqual({ error: 'name is required' });
    const names = (await json<Json[]>(await api('GET', '/accounts'))).map((a) => a.name as string);
    expect(names.filter((n) => /^bank$/i.test(n))).toEqual(['Bank']);
    for (const name of names) expect(name).toBe(name.normalize('NFC'));
  });

  it('account names are stored NFC: `Cafe\\u0301` is `Café`, and a duplicate of it', async () => {
    const twin = await api('POST', '/accounts', { name: 'Cafe\u0301', kind: 'expense' });
    expect(twin.status).toBe(400);
    expect(await json(twin)).toEqual({ error: 'an account with that name already exists' });
    const twinCase = await api('POST', '/accounts', { name: 'CAFE\u0301', kind: 'expense' });
    expect(twinCase.status).toBe(400);
    const created = await api('POST', '/accounts', { name: 'Tea\u200B Cafe\u0301', kind: 'expense' });
    expect(created.status).toBe(201);
    expect((await json<Json>(created)).name).toBe('Tea Café');
  });

  it('the text-direction controls stay refused with a 400 naming the field', async () => {
    for (const ch of ['\u202E', '\u2066', '\u200F', '\u061C']) {
      const res = await api('POST', '/accounts', { name: `Evil${ch}x`, kind: 'asset' });
      expect(res.status).toBe(400);
      expect(await json(res)).toEqual({ error: 'name must not contain text-direction control characters or line separators' });
    }
  });

  it('transaction descriptions lose each invisible character and are stored NFC', async () => {
    for (const [what, ch] of [...INVISIBLE, ['combining acute', '']] as const) {
      const res = await api('POST', '/transactions', {
        occurred_on: '2026-02-01',
        description: `${ch}Co${ch}ffee at Cafe\u0301 ${what}${ch}`,
        entries: [{ account_id: ids['Bank'], amount_cents: -250 }, { account_id: ids['Café'], amount_cents: 250 }],
      });
      expect(res.status, what).toBe(201);
      const { id } = await json<{ id: number }>(res);
      expect((await json<Json>(await api('GET', `/transactions/${id}`))).description, what).toBe(`Coffee at Café ${what}`);
    }
    const empty = await api('POST', '/transactions', {
      occurred_on: '2026-02-01',
      description: '\u200B\u2060\uFEFF',
      entries: [{ account_id: ids['Bank'], amount_cents: -1 }, { account_id: ids['Café'], amount_cents: 1 }],
    });
    expect(empty.status).toBe(400);
    expect(await json(empty)).toEqual({ error: 'description is required' });
  });

  it('import-rule patterns lose each invisible character and are stored NFC', async () => {
    for (const [what, ch] of INVISIBLE) {
      const res = await api('POST', '/import-rules', { pattern: `Ba${ch}ker${ch}y Cafe\u0301 ${what}`, account_id: ids['Café'] });
      expect(res.status, what).toBe(201);
      const rule = await json<Json>(res);
      expect(rule.pattern, what).toBe(`Bakery Café ${what}`);
      expect((await api('DELETE', `/import-rules/${rule.id}`)).status).toBe(204);
    }
    const empty = await api('POST', '/import-rules', { pattern: '\u200B\u00AD', account_id: ids['Café'] });
    expect(empty.status).toBe(400);
    expect(await json(empty)).toEqual({ error: 'pattern is required' });
  });

  it('a registered client_name loses each invisible character (U+061C too) and is NFC', async () => {
    for (const [what, ch] of [...INVISIBLE, ['U+061C', '\u061C']] as const) {
      const res = await register(`My${ch} scr${ch}ipt Cafe\u0301`);
      expect(res.status, what).toBe(201);
      expect((await json<Json>(res)).client_name, what).toBe('My script Café');
    }
    const res = await register('\u200B\u3164\u115F');
    expect(res.status).toBe(201);
    expect((await json<Json>(res)).client_name).toBe('an unnamed client');
  });

  it('a passkey\'s name loses each invisible character and is NFC', async () => {
    await addUser(h.db, 'passkeys@invisible.example', 'a password for the passkey names');
    const person = new Browser(h);
    await person.signIn('passkeys@invisible.example', 'a password for the passkey names', new SoftwareAuthenticator());
    for (const [label, char] of INVISIBLE.slice(0, 5)) {
      const res = await person.enrol(new SoftwareAuthenticator(), `Pho${char}ne ${label} Cafe\u0301`);
      expect(res.status, label).toBe(200);
    }
    const names = ((await json<{ name: string }[]>(await person.request('/auth/passkeys'))).map((p) => p.name)).slice(1);
    expect(names).toEqual(INVISIBLE.slice(0, 5).map(([label]) => `Phone ${label} Café`));
  });

  it('an imported CSV description loses each invisible character and is NFC', async () => {
    const rows = INVISIBLE.map(([what, ch], i) => `2026-03-${String(i + 1).padStart(2, '0')},${ch}Ba${ch}kery Cafe\u0301 ${what}${ch},-4.80`);
    const res = await api('POST', '/imports', {
      account_id: ids['Bank'],
      format: 'csv',
      content: csvFile(...rows),
      unmatched_account_id: ids['Suspense'],
      csv: CSV_OPTIONS,
    });
    expect(res.status).toBe(201);
    const result = await json<Json>(res);
    expect(result.errors).toEqual([]);
    expect(result.created).toHaveLength(INVISIBLE.length);
    for (const [i, id] of (result.created as number[]).entries()) {
      const what = INVISIBLE[i]![0];
      expect((await json<Json>(await api('GET', `/transactions/${id}`))).description, what).toBe(`Bakery Café ${what}`);
    }
  });
});
