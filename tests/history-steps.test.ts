import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from './support/harness';
import { json } from './support/http';

// Issue 37 items 6 and 7 over the API, on each database: every step of the book's history leaves
// its record and reads as what it was. A skipped reminder writes a change record (D15, D21); a
// reminder posted by hand names its schedule; GET /changes reads beside a transaction's creation
// the statement line that made it or was linked to it since (D16), and beside a receipt's record
// its transaction (D22); the change log's CSV (D22) tells each in History's words, an opening
// balance of a card as "opening balance: we owe …", never as money out.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const csvFile = (...rows: string[]) => ['Date,Description,Amount', ...rows].join('\n') + '\n';
const PLAIN = { date_column: 'Date', description_column: 'Description', amount_column: 'Amount', date_format: 'YYYY-MM-DD', decimal: '.' } as const;
const TODAY = new Date().toISOString().slice(0, 10);

describeEachDatabase('the steps of the book\'s history (issue 37 items 6 and 7; D15, D16, D21, D22)', (h) => {
  let token: string;
  const ids: Record<string, number> = {};
  const api = (method: string, path: string, body?: unknown) => h.call(token, method, path, body);
  const ok = async (res: Response, status: number) => {
    expect(res.status, await res.clone().text()).toBe(status);
    return res.status === 204 ? null : json(res);
  };
  const changesOf = async (query: string): Promise<Json[]> => (await ok(await api('GET', `/changes?${query}&limit=500`), 200)).changes;
  const summaries = async () => (await (await api('GET', '/export/changes.csv')).text()).split('\r\n');
  const hand = async (account: string, occurred_on: string, description: string, cents: number, other: string) =>
    (await ok(await api('POST', '/transactions', { occurred_on, description, entries: [{ account_id: ids[account], amount_cents: cents }, { account_id: ids[other], amount_cents: -cents }] }), 201)).id as number;

  beforeAll(async () => {
    ({ token } = await h.userWithToken('treasurer@history-steps.example'));
    for (const [name, kind] of [['Sparkasse', 'asset'], ['Rent', 'expense'], ['Fees', 'expense'], ['Dues', 'income'], ['Visa card', 'liability'], ['Starting balances', 'equity']] as const) {
      ids[name] = (await ok(await api('POST', '/accounts', { name, kind }), 201)).id;
    }
  });

  it('issue 37 item 6 (D15, D21): skipping a reminder writes one change record (subject schedule, action update, after.skipped_on); a 409 writes none', async () => {
    const made = await ok(await api('POST', '/schedules', {
      description: 'Hall rent', start_on: '2026-03-01', every: 'month', mode: 'remind',
      entries: [{ account_id: ids.Rent, amount_cents: 85_000 }, { account_id: ids.Sparkasse, amount_cents: -85_000 }],
    }), 201);
    await ok(await api('POST', `/schedules/${made.id}/occurrences/2026-03-01/skip`), 204);
    const records = await changesOf(`subject=schedule&subject_id=${made.id}`);
    expect(records.map((c) => c.action)).toEqual(['update', 'create']);
    const skip = records[0];
    expect(skip).toMatchObject({ via: 'token', actor_email: 'treasurer@history-steps.example', client_id: 'ledger-cli', subject_id: made.id });
    expect(skip.before).toMatchObject({ description: 'Hall rent', next_on: '2026-03-01' });
    expect(skip.after).toMatchObject({ description: 'Hall rent', next_on: '2026-04-01', skipped_on: '2026-03-01' });
    expect(skip.before.skipped_on).toBeUndefined();
    // Already skipped: 409, and no second record.
    expect((await api('POST', `/schedules/${made.id}/occurrences/2026-03-01/skip`)).status).toBe(409);
    expect(await changesOf(`subject=schedule&subject_id=${made.id}`)).toHaveLength(2);
    // A date ahead skipped leaves next_on as it is; the record still names the date.
    await ok(await api('POST', `/schedules/${made.id}/occurrences/2026-06-01/skip`), 204);
    expect((await changesOf(`subject=schedule&subject_id=${made.id}`))[0].after).toMatchObject({ next_on: '2026-04-01', skipped_on: '2026-06-01' });

    // The one wording of History and the auditors' CSV.
    const lines = await summaries();
    expect(lines.find((l) => l.includes(`,schedule,${made.id},update,`) && l.includes('Mar 1'))).toMatch(/,"?treasurer@history-steps\.example skipped “Hall rent” of Mar 1, 2026 with a token\."?$/);

    // Posted by hand: the transaction's record carries the schedule (D21) and names it.
    const posted = await ok(await api('POST', `/schedules/${made.id}/occurrences/2026-04-01/post`), 201);
    const [created] = await changesOf(`subject=transaction&subject_id=${posted.id}`);
    expect(created).toMatchObject({ action: 'create', via: 'token', schedule_id: made.id });
    expect((await summaries()).find((l) => l.includes(`,transaction,${posted.id},create,`))).toMatch(
      /treasurer@history-steps\.example posted “Hall rent” \(€850\.00\) of Apr 1, 2026 from the schedule “Hall rent” with a token\."?$/,
    );
  });

  it('issue 37 item 6 (D16): an imported line is told as imported from the statement of its account; a hand entry linked since, as linked to the bank line', async () => {
    const typed = await hand('Sparkasse', '2026-10-02', 'Dues Anna', 6_000, 'Dues');
    const request = { account_id: ids.Sparkasse, format: 'csv', content: csvFile('2026-10-30,BANK FEE OCTOBER,-7.50', '2026-10-03,DUES ANNA SCHMIDT,60.00'), unmatched_account_id: ids.Fees, csv: PLAIN };
    const preview = await ok(await api('POST', '/imports/preview', request), 200);
    expect(preview.lines.map((l: Json) => l.match_of)).toEqual([null, typed]);
    const result = await ok(await api('POST', '/imports', { ...request, matches: [{ line: 3, transaction_id: typed }] }), 201);
    const [fee] = result.created;

    const [imported] = await changesOf(`subject=transaction&subject_id=${fee}`);
    expect(imported.statement_line).toEqual({ account_id: ids.Sparkasse, account_name: 'Sparkasse', occurred_on: '2026-10-30', linked: false });
    const [linked] = await changesOf(`subject=transaction&subject_id=${typed}`);
    expect(linked.statement_line).toEqual({ account_id: ids.Sparkasse, account_name: 'Sparkasse', occurred_on: '2026-10-03', linked: true });
    // Only a creation carries it: an update of the imported transaction reads as before.
    await ok(await api('PUT', `/transactions/${fee}`, { occurred_on: '2026-10-30', description: 'Bank fee October', entries: imported.after.entries.map((e: Json) => ({ account_id: e.account_id, amount_cents: e.amount_cents })) }), 200);
    const [update] = await changesOf(`subject=transaction&subject_id=${fee}`);
    expect(update.action).toBe('update');
    expect(update.statement_line).toBeUndefined();

    const lines = await summaries();
    expect(lines.find((l) => l.includes(`,transaction,${fee},create,`))).toMatch(
      /treasurer@history-steps\.example imported “BANK FEE OCTOBER” \(€7\.50\) from the statement of Sparkasse of Oct 30, 2026 with a token\."?$/,
    );
    expect(lines.find((l) => l.includes(`,transaction,${typed},create,`))).toMatch(
      /treasurer@history-steps\.example recorded “Dues Anna” \(€60\.00\) with a token, since linked to the bank line of Oct 3, 2026 on Sparkasse\."?$/,
    );
  });

  it('issue 37 item 6 (D22): a receipt\'s record names its transaction by description and date, as the log held it then', async () => {
    const tx = await hand('Fees', '2026-03-03', 'Printer paper', 1_999, 'Sparkasse');
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    const upload = await h.request(`/transactions/${tx}/attachments?name=till.png`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'image/png' }, body: new Uint8Array(png) });
    const receipt = await ok(upload, 201);
    // Renamed after the receipt was added: the receipt's record keeps the name it had then.
    const before = await ok(await api('GET', `/transactions/${tx}`), 200);
    await ok(await api('PUT', `/transactions/${tx}`, { occurred_on: '2026-03-04', description: 'Office paper', entries: before.entries.map((e: Json) => ({ account_id: e.account_id, amount_cents: e.amount_cents })) }), 200);
    const [record] = await changesOf(`subject=attachment&subject_id=${receipt.id}`);
    expect(record.transaction).toEqual({ id: tx, description: 'Printer paper', occurred_on: '2026-03-03' });
    expect((await summaries()).find((l) => l.includes(`,attachment,${receipt.id},create,`))).toMatch(/added the receipt “till\.png” to “Printer paper” of Mar 3, 2026 with a token\."?$/);
  });

  it('issue 37 item 7 (D6, D12): a card\'s opening balance is told as "opening balance: we owe …", not as money out', async () => {
    const opening = await hand('Starting balances', TODAY, 'Opening balance of Visa card', 120_433, 'Visa card');
    const line = (await summaries()).find((l) => l.includes(`,transaction,${opening},create,`));
    expect(line).toContain('recorded “Opening balance of Visa card” (opening balance: we owe €1,204.33 on Visa card) with a token.');
  });
});
