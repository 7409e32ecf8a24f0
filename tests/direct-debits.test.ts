import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { sql } from 'drizzle-orm';
import { beforeAll, expect, it } from 'vitest';
import { restoreBackup, writeBackup } from '../src/admin/backup';
import { epcText } from '../src/book/sepa';
import { describeEachDatabase } from './support/harness';
import { openTestDatabase } from './support/databases';
import { json } from './support/http';

// Issue 41 (D27's direct debit) over HTTP, on both databases: the creditor in Settings (opt-in,
// checked as a bank would), a collection (every status and shape, the transactions, who is skipped
// and why), the pain.008 file field by field in both versions (names with ä, ß, &, <), a second
// collection that collects nothing, two at once that cannot both collect, a deletion that makes
// people owe again, a closed period, and a backup round trip.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const CREDITOR = { creditor_name: 'TSV Grün-Weiß & Co <Kasse>', creditor_iban: 'DE89 3704 0044 0532 0130 00', creditor_id: 'DE98ZZZ09999999999' };
const ANNA_IBAN = 'DE02120300000000202051';
const JUERGEN_IBAN = 'DE02500105170137075030';

/** Today plus `days`, as PostgreSQL and the server count (UTC). */
const dayFromToday = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false, isArray: (name) => name === 'DrctDbtTxInf' });

describeEachDatabase('issue 41: collecting dues by SEPA direct debit (D27)', (h) => {
  let token: string;
  const ids: Record<string, number> = {};
  const person: Record<string, Json> = {};
  const api = (method: string, path: string, body?: unknown) => h.call(token, method, path, body);
  const expectStatus = async (res: Response, status: number) => {
    expect(res.status, await res.clone().text()).toBe(status);
    return res.status === 204 ? undefined : json(res);
  };
  const refused = async (res: Response, status: number, words: RegExp) => {
    const body = await expectStatus(res, status);
    expect(body.error).toMatch(words);
  };
  const balanceOf = async (name: string) => (await expectStatus(await api('GET', `/people/${person[name].id}`), 200)).balance_cents;
  const charge = (name: string, occurred_on: string, description: string, cents: number) =>
    api('POST', '/transactions', { occurred_on, description, entries: [{ account_id: person[name].account_id, amount_cents: cents }, { account_id: ids.Dues, amount_cents: -cents }] });
  const pay = (name: string, occurred_on: string, cents: number) =>
    api('POST', '/transactions', { occurred_on, description: `Payment ${name}`, entries: [{ account_id: ids.Bank, amount_cents: cents }, { account_id: person[name].account_id, amount_cents: -cents }] });
  const collectOn = dayFromToday(5);

  beforeAll(async () => {
    ({ token } = await h.userWithToken('treasurer@dd.example'));
    for (const [name, kind] of [['Bank', 'asset'], ['Dues', 'income']] as const) ids[name] = (await expectStatus(await api('POST', '/accounts', { name, kind }), 201)).id;
    const make = async (key: string, body: Json) => (person[key] = await expectStatus(await api('POST', '/people', body), 201));
    await make('anna', { name: 'Anna Schmidt', iban: ANNA_IBAN, mandate: { id: 'M-0042', signed_on: '2024-01-15' } });
    await make('juergen', { name: 'Jürgen Weiß & Söhne <Test>', iban: JUERGEN_IBAN, mandate: { id: 'W.2024-7', signed_on: '2024-03-01' } });
    await make('carl', { name: 'Carl Ohne', mandate: { id: 'C-1', signed_on: '2024-01-01' } });
    await make('dora', { name: 'Dora Später', iban: 'DE12500105170648489890', mandate: { id: 'D-1', signed_on: dayFromToday(30) } });
    await make('erna', { name: 'Erna Nichts', iban: 'DE75512108001245126199' });
    await make('fritz', { name: 'Fritz Ohne Mandat', iban: 'AT611904300234573201' });
    // Anna: three months charged, one paid: the two newest are open (payments settle the oldest first).
    for (const [month, cents] of [['01', 500], ['02', 500], ['03', 500]] as const) await expectStatus(await charge('anna', `2026-${month}-01`, `Membership 2026-${month}`, cents), 201);
    await expectStatus(await pay('anna', '2026-01-20', 500), 201);
    await expectStatus(await charge('juergen', '2026-01-01', 'Youth 2026', 3000), 201);
    await expectStatus(await charge('carl', '2026-01-01', 'Membership 2026-01', 500), 201);
    await expectStatus(await charge('dora', '2026-01-01', 'Membership 2026-01', 500), 201);
    await expectStatus(await charge('fritz', '2026-01-01', 'Membership 2026-01', 700), 201);
  });

  it('D27: Settings has no sepa until set; each field is checked as a bank would (422 naming it); a good one is kept in capitals without spaces; {"sepa": null} removes it', async () => {
    const plain = await expectStatus(await api('GET', '/settings'), 200);
    expect(plain).not.toHaveProperty('sepa');
    const put = (sepa: unknown) => api('PUT', '/settings', { sepa });
    for (const [bad, words] of [
      [{ ...CREDITOR, creditor_iban: 'DE89370400440532013001' }, /sepa\.creditor_iban's check digits are wrong/],
      [{ ...CREDITOR, creditor_id: 'DE99ZZZ09999999999' }, /sepa\.creditor_id's check digits are wrong/],
      [{ ...CREDITOR, creditor_id: 'nonsense' }, /sepa\.creditor_id must be a creditor identifier/],
      [{ ...CREDITOR, creditor_bic: 'NOTABIC' }, /sepa\.creditor_bic/],
      [{ ...CREDITOR, creditor_name: '  ' }, /sepa\.creditor_name/],
      [{ ...CREDITOR, creditor_name: 'x'.repeat(71) }, /sepa\.creditor_name has at most 70/],
      [{ creditor_name: 'TSV' }, /sepa/],
      ['yes', /sepa/],
    ] as const) {
      const res = await put(bad);
      expect(res.status, JSON.stringify(bad)).toBe(422);
      expect(await res.text()).toMatch(words);
    }
    expect(await expectStatus(await api('GET', '/settings'), 200)).toEqual(plain);
    const set = await expectStatus(await put({ ...CREDITOR, creditor_bic: 'cobadeff xxx' }), 200);
    expect(set.sepa).toEqual({ creditor_name: CREDITOR.creditor_name, creditor_iban: 'DE89370400440532013000', creditor_bic: 'COBADEFFXXX', creditor_id: 'DE98ZZZ09999999999' });
    expect(await expectStatus(await put(null), 200)).toEqual(plain);
    await expectStatus(await put(CREDITOR), 200);
  });

  it('D27: 400 for a bad body, a date before today, or a person unknown; 409 without creditor details, in another currency, or in a closed period — nothing written', async () => {
    await refused(await api('POST', '/direct-debits', {}), 400, /collect_on/);
    await refused(await api('POST', '/direct-debits', { collect_on: '2026-02-30' }), 400, /collect_on/);
    await refused(await api('POST', '/direct-debits', { collect_on: dayFromToday(-1) }), 400, /collect_on must be today/);
    await refused(await api('POST', '/direct-debits', { collect_on: collectOn, people: [] }), 400, /people/);
    await refused(await api('POST', '/direct-debits', { collect_on: collectOn, people: ['1'] }), 400, /people/);
    await refused(await api('POST', '/direct-debits', { collect_on: collectOn, people: [999_999] }), 400, /no person 999999/);
    await expectStatus(await api('PUT', '/settings', { sepa: null }), 200);
    await refused(await api('POST', '/direct-debits', { collect_on: collectOn }), 409, /creditor details/);
    await expectStatus(await api('PUT', '/settings', { sepa: CREDITOR, currency: 'CHF' }), 200);
    await refused(await api('POST', '/direct-debits', { collect_on: collectOn }), 409, /collects euros; this book keeps CHF/);
    await expectStatus(await api('PUT', '/settings', { currency: 'EUR', closed_through: collectOn }), 200);
    await refused(await api('POST', '/direct-debits', { collect_on: collectOn }), 409, /closed through/);
    await expectStatus(await api('PUT', '/settings', { closed_through: null }), 200);
    expect(await expectStatus(await api('GET', '/direct-debits'), 200)).toEqual([]);
    expect((await json(await api('GET', '/accounts'))).some((a: Json) => a.name === 'Direct debits in transit')).toBe(false);
    expect(await balanceOf('anna')).toBe(1000);
  });

  it('D27: GET /direct-debits/draft says who a collection would take and for how much, and who is skipped and why — nothing written', async () => {
    const draft = await expectStatus(await api('GET', `/direct-debits/draft?collect_on=${collectOn}`), 200);
    expect(draft).toEqual({
      collect_on: collectOn,
      people: [
        { person_id: person.anna.id, name: 'Anna Schmidt', amount_cents: 1000 },
        { person_id: person.juergen.id, name: 'Jürgen Weiß & Söhne <Test>', amount_cents: 3000 },
      ],
      count: 2,
      total_cents: 4000,
      skipped: [
        { person_id: person.carl.id, reason: 'no_iban' },
        { person_id: person.dora.id, reason: 'mandate_after_collect_on' },
        { person_id: person.fritz.id, reason: 'no_mandate' },
      ],
    });
    await refused(await api('GET', '/direct-debits/draft?collect_on=soon'), 400, /collect_on/);
    expect(await expectStatus(await api('GET', '/direct-debits'), 200)).toEqual([]);
    expect(await balanceOf('anna')).toBe(1000);
  });

  let collection: Json;
  it('D27: POST /direct-debits collects everyone who owes and can be collected, one transaction each by name, and says who is skipped and why; they owe nothing afterwards', async () => {
    collection = await expectStatus(await api('POST', '/direct-debits', { collect_on: collectOn }), 201);
    expect(collection).toEqual({
      id: expect.any(Number), collect_on: collectOn, message_id: expect.stringMatching(/^DD-\d{8}-[0-9A-F]{8}$/),
      transaction_ids: [expect.any(Number), expect.any(Number)], count: 2, total_cents: 1000 + 3000,
      skipped: [
        { person_id: person.carl.id, reason: 'no_iban' },
        { person_id: person.dora.id, reason: 'mandate_after_collect_on' },
        { person_id: person.fritz.id, reason: 'no_mandate' },
      ],
    });
    expect(collection.message_id.length).toBeLessThanOrEqual(35);
    const [annaTx, juergenTx] = await Promise.all(collection.transaction_ids.map(async (id: number) => expectStatus(await api('GET', `/transactions/${id}`), 200)));
    const transit = (await json(await api('GET', '/accounts'))).find((a: Json) => a.name === 'Direct debits in transit');
    expect(transit).toMatchObject({ kind: 'asset' });
    expect(annaTx).toMatchObject({ occurred_on: collectOn, entries: [{ account_id: transit.id, amount_cents: 1000 }, { account_id: person.anna.account_id, amount_cents: -1000 }] });
    expect(juergenTx).toMatchObject({ occurred_on: collectOn, entries: [{ account_id: transit.id, amount_cents: 3000 }, { account_id: person.juergen.account_id, amount_cents: -3000 }] });
    expect(await balanceOf('anna')).toBe(0);
    expect(await balanceOf('juergen')).toBe(0);
    expect(await balanceOf('carl')).toBe(500);
    expect(await expectStatus(await api('GET', `/direct-debits/${collection.id}`), 200)).toEqual(collection);
    expect(await expectStatus(await api('GET', '/direct-debits'), 200)).toEqual([collection]);
  });

  it('D27: a second collection collects nothing (409 in words), so the same dues are never collected twice', async () => {
    await refused(await api('POST', '/direct-debits', { collect_on: collectOn }), 409, /nobody who owes can be collected/);
    await refused(await api('POST', '/direct-debits', { collect_on: collectOn, people: [person.anna.id, person.erna.id] }), 409, /nobody owes anything/);
    expect(await expectStatus(await api('GET', '/direct-debits'), 200)).toHaveLength(1);
  });

  const fileOf = async (version?: string) => {
    const res = await api('GET', `/direct-debits/${collection.id}/pain.008.xml${version ? `?version=${version}` : ''}`);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${collection.message_id}.xml"`);
    return res.text();
  };

  for (const version of ['001.08', '001.02'] as const) {
    it(`D27: the pain.008.${version} file, field by field: one PmtInf (DD, SEPA, CORE, RCUR, the date, the creditor), one DrctDbtTxInf per person in EPC characters, every id ≤ 35`, async () => {
      const xml = await fileOf(version === '001.08' ? undefined : version);
      // Well-formed XML, by libxml2 (xmllint ships with Debian's libxml2-utils; skipped where absent).
      try {
        const dir = mkdtempSync(path.join(tmpdir(), 'ledger-pain-'));
        writeFileSync(path.join(dir, 'file.xml'), xml);
        execFileSync('xmllint', ['--noout', path.join(dir, 'file.xml')]);
        rmSync(dir, { recursive: true, force: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      const doc = parser.parse(xml).Document;
      expect(doc['@xmlns']).toBe(`urn:iso:std:iso:20022:tech:xsd:pain.008.${version}`);
      const { GrpHdr, PmtInf } = doc.CstmrDrctDbtInitn;
      expect(GrpHdr).toMatchObject({ MsgId: collection.message_id, NbOfTxs: '2', CtrlSum: '40.00', InitgPty: { Nm: 'TSV Gruen-Weiss Co Kasse' } });
      expect(PmtInf).toMatchObject({
        PmtMtd: 'DD', NbOfTxs: '2', CtrlSum: '40.00',
        PmtTpInf: { SvcLvl: { Cd: 'SEPA' }, LclInstrm: { Cd: 'CORE' }, SeqTp: 'RCUR' },
        ReqdColltnDt: collectOn,
        Cdtr: { Nm: 'TSV Gruen-Weiss Co Kasse' },
        CdtrAcct: { Id: { IBAN: 'DE89370400440532013000' } },
        CdtrSchmeId: { Id: { PrvtId: { Othr: { Id: 'DE98ZZZ09999999999', SchmeNm: { Prtry: 'SEPA' } } } } },
      });
      const txs = PmtInf.DrctDbtTxInf;
      expect(txs).toHaveLength(2);
      expect(txs[0]).toMatchObject({
        PmtId: { EndToEndId: `${collection.message_id}-1` },
        InstdAmt: { '#text': '10.00', '@Ccy': 'EUR' },
        DrctDbtTx: { MndtRltdInf: { MndtId: 'M-0042', DtOfSgntr: '2024-01-15' } },
        Dbtr: { Nm: 'Anna Schmidt' },
        DbtrAcct: { Id: { IBAN: ANNA_IBAN } },
        RmtInf: { Ustrd: 'Membership 2026-02, Membership 2026-03' },
      });
      expect(txs[1]).toMatchObject({
        PmtId: { EndToEndId: `${collection.message_id}-2` },
        InstdAmt: { '#text': '30.00', '@Ccy': 'EUR' },
        DrctDbtTx: { MndtRltdInf: { MndtId: 'W.2024-7', DtOfSgntr: '2024-03-01' } },
        Dbtr: { Nm: 'Juergen Weiss Soehne Test' },
        DbtrAcct: { Id: { IBAN: JUERGEN_IBAN } },
        RmtInf: { Ustrd: 'Youth 2026' },
      });
      // No BIC inside the EEA: the agents say NOTPROVIDED.
      expect(txs[0].DbtrAgt).toEqual({ FinInstnId: { Othr: { Id: 'NOTPROVIDED' } } });
      // Every id ≤ 35 characters; every text in the EPC's characters.
      const ids = [GrpHdr.MsgId, PmtInf.PmtInfId, ...txs.flatMap((t: Json) => [t.PmtId.InstrId, t.PmtId.EndToEndId, t.DrctDbtTx.MndtRltdInf.MndtId])];
      for (const id of ids) expect(String(id).length, id).toBeLessThanOrEqual(35);
      for (const text of [GrpHdr.InitgPty.Nm, ...txs.flatMap((t: Json) => [t.Dbtr.Nm, t.RmtInf.Ustrd])]) expect(text).toMatch(/^[A-Za-z0-9/?:().,'+\- ]+$/);
    });
  }

  it('D27: the pre-notifications say each person collected the amount, date, mandate and creditor identifier, as JSON and as CSV for a mail merge', async () => {
    const notes = await expectStatus(await api('GET', `/direct-debits/${collection.id}/pre-notifications`), 200);
    expect(notes).toEqual([
      { person_id: person.anna.id, name: 'Anna Schmidt', email: null, amount_cents: 1000, collect_on: collectOn, mandate_id: 'M-0042', creditor_name: CREDITOR.creditor_name, creditor_id: 'DE98ZZZ09999999999', remittance: 'Membership 2026-02, Membership 2026-03' },
      { person_id: person.juergen.id, name: 'Jürgen Weiß & Söhne <Test>', email: null, amount_cents: 3000, collect_on: collectOn, mandate_id: 'W.2024-7', creditor_name: CREDITOR.creditor_name, creditor_id: 'DE98ZZZ09999999999', remittance: 'Youth 2026' },
    ]);
    const res = await api('GET', `/direct-debits/${collection.id}/pre-notifications.csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(await res.text()).toBe(
      'name,email,amount,collect_on,mandate_id,creditor_name,creditor_id,remittance\r\n' +
      `Anna Schmidt,,10.00,${collectOn},M-0042,TSV Grün-Weiß & Co <Kasse>,DE98ZZZ09999999999,"Membership 2026-02, Membership 2026-03"\r\n` +
      `Jürgen Weiß & Söhne <Test>,,30.00,${collectOn},W.2024-7,TSV Grün-Weiß & Co <Kasse>,DE98ZZZ09999999999,Youth 2026\r\n`,
    );
    await refused(await api('GET', '/direct-debits/999999/pre-notifications'), 404, /no such direct debit/);
  });

  it('D27: the file refuses an unknown version (400) and an unknown collection (404)', async () => {
    await refused(await api('GET', `/direct-debits/${collection.id}/pain.008.xml?version=001.07`), 400, /version/);
    await refused(await api('GET', '/direct-debits/999999/pain.008.xml'), 404, /no such direct debit/);
    await refused(await api('GET', '/direct-debits/x'), 400, /./);
  });

  it('D27: the EPC characters: ä ö ü → ae oe ue, ß → ss, other letters lose their accents, anything else a space', () => {
    expect(epcText('Müller & Söhne <GbR>')).toBe('Mueller Soehne GbR');
    expect(epcText('ÄÖÜ ß é à ñ ç Ø')).toBe('AeOeUe ss e a n c');
    expect(epcText("O'Brien (Kasse) +49/7: 1.2,3?")).toBe("O'Brien (Kasse) +49/7: 1.2,3?");
    expect(epcText('a\tb"c;d€e')).toBe('a b c d e');
  });

  it('D27: two collections at once: one collects, the other finds nothing to collect', async () => {
    await expectStatus(await charge('anna', '2026-04-01', 'Membership 2026-04', 500), 201);
    const both = await Promise.all([0, 1].map(() => api('POST', '/direct-debits', { collect_on: collectOn })));
    expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
    const made = await json(both.find((r) => r.status === 201)!);
    expect(made).toMatchObject({ count: 1, total_cents: 500 });
    expect(await balanceOf('anna')).toBe(0);
    await expectStatus(await api('DELETE', `/direct-debits/${made.id}`), 204);
    expect(await balanceOf('anna')).toBe(500);
  });

  it('D27, D14: a backup carries the creditor and the collections; restored, the collection and its file are the same', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ledger-dd-backup-'));
    const target = await openTestDatabase(h.backend);
    try {
      const file = path.join(dir, 'book.ledger-backup');
      await writeBackup(h.db, file);
      await restoreBackup(target.db, file);
      const { createApp } = await import('../src/http/app');
      const app = createApp({ db: target.db, config: h.config, log: { info() {}, error() {} } });
      const read = (p: string) => Promise.resolve(app.request(new URL(p, h.config.apiOrigin).href, { headers: { authorization: `Bearer ${token}` } }));
      for (const p of ['/settings', '/direct-debits', `/direct-debits/${collection.id}`]) {
        const [mine, theirs] = await Promise.all([api('GET', p), read(p)]);
        expect(theirs.status, p).toBe(200);
        expect(await theirs.json(), p).toEqual(await mine.json());
      }
      // The file differs only in its creation time.
      const stamp = (xml: string) => xml.replace(/<CreDtTm>[^<]*<\/CreDtTm>/, '');
      const theirs = await read(`/direct-debits/${collection.id}/pain.008.xml`);
      expect(stamp(await theirs.text())).toBe(stamp(await fileOf()));
    } finally {
      await target.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('D27: the bank\'s credit of the batch, imported later, is matched to the collection (amount and its id in the text) and moves the total from "Direct debits in transit" to the bank; a returned debit makes its person owe again', async () => {
    const day = new Date().toISOString().slice(0, 10).split('-').reverse().join('.');
    const csv = [
      'Buchungstag;Auftraggeber/Empfänger;IBAN;Verwendungszweck;Betrag (EUR)',
      `${day};TSV Gruen-Weiss;;SEPA-Lastschrift Sammler ${collection.message_id}.P1 Anzahl 2;40,00`,
      `${day};Schmidt, Anna;${ANNA_IBAN};RUECKLASTSCHRIFT MREF M-0042 Membership;-10,00`,
      `${day};TSV Gruen-Weiss;;Sammler ${collection.message_id} falscher Betrag;39,00`,
    ].join('\n');
    const body = {
      account_id: ids.Bank, unmatched_account_id: ids.Dues, format: 'csv', content: csv,
      csv: { date_column: 'Buchungstag', description_column: 'Verwendungszweck', amount_column: 'Betrag (EUR)', date_format: 'DD.MM.YYYY', decimal: ',', iban_column: 'IBAN', name_column: 'Auftraggeber/Empfänger' },
    };
    const transit = (await json(await api('GET', '/accounts'))).find((a: Json) => a.name === 'Direct debits in transit');
    const preview = await expectStatus(await api('POST', '/imports/preview', body), 200);
    expect(preview.lines.map((l: Json) => [l.amount_cents, l.counter_account_id, l.person_id, l.person_match])).toEqual([
      [4000, transit.id, null, null],
      [-1000, person.anna.account_id, person.anna.id, 'iban'],
      [3900, ids.Dues, null, null],
    ]);
    const annaBefore = await balanceOf('anna');
    await expectStatus(await api('POST', '/imports', body), 201);
    const register = await expectStatus(await api('GET', `/reports/accounts/${transit.id}/register?from=2000-01-01&to=2100-01-01`), 200);
    expect(register.closing_balance_cents).toBe(0);
    expect(register.entries.map((e: Json) => e.amount_cents)).toEqual([-4000, 1000, 3000]);
    expect(await balanceOf('anna')).toBe(annaBefore + 1000);
  });

  it('D27: DELETE /direct-debits/{id} deletes its transactions and the people owe again; then 404', async () => {
    const annaBefore = await balanceOf('anna');
    await expectStatus(await api('DELETE', `/direct-debits/${collection.id}`), 204);
    expect(await balanceOf('anna')).toBe(annaBefore + 1000);
    expect(await balanceOf('juergen')).toBe(3000);
    for (const id of collection.transaction_ids) await refused(await api('GET', `/transactions/${id}`), 404, /no such transaction/);
    await refused(await api('GET', `/direct-debits/${collection.id}`), 404, /no such direct debit/);
    await refused(await api('DELETE', `/direct-debits/${collection.id}`), 404, /no such direct debit/);
    expect(await expectStatus(await api('GET', '/direct-debits'), 200)).toEqual([]);
  });

  it('D27: forget clears a person\'s IBAN and mandate from the collections too; the file then refuses in words (409), never holding them again', async () => {
    const made = await expectStatus(await api('POST', '/direct-debits', { collect_on: collectOn, people: [person.anna.id] }), 201);
    expect(made.count).toBe(1);
    await expectStatus(await api('POST', `/people/${person.anna.id}/forget`), 200);
    const rows = await h.db.execute(sql`select debtor_iban, mandate_id, mandate_signed_on from direct_debit_items where person_id = ${person.anna.id}`);
    expect([...(rows as Iterable<Json>)].map((r) => [r.debtor_iban, r.mandate_id, r.mandate_signed_on])).toEqual([[null, null, null]]);
    await refused(await api('GET', `/direct-debits/${made.id}/pain.008.xml`), 409, /were forgotten/);
  });
});
