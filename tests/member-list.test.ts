import { describe, expect, it } from 'vitest';
import { readDate, readMemberList } from '../src/web/member-list';

// Issue 40 item 1 (D27): a member list pasted from a spreadsheet, read in the browser before it
// is sent — the separator, English and German headers, each row's line in the pasted text (the
// header is row 1, blank lines counted), dates as spreadsheets write them, and the problems named.

describe('a pasted member list (D27, issue 40 item 1)', () => {
  it('reads a tab-separated copy with English headers; rows keep their line, blank lines counted', () => {
    const list = readMemberList('Name\tEmail\tIBAN\tMember no.\n\nAnna Schmidt\ta@example.org\tde89 3704 0044 0532 0130 00\t7\nBen\t\t\t\n', false);
    expect(list).toMatchObject({ ok: true, columns: ['name', 'email', 'iban', 'member_no'], ignored: [] });
    if (!list.ok) throw new Error('unreadable');
    expect(list.rows).toEqual([
      { line: 3, person: { name: 'Anna Schmidt', email: 'a@example.org', iban: 'DE89370400440532013000', member_no: '7' }, problems: [] },
      { line: 4, person: { name: 'Ben' }, problems: [] },
    ]);
  });

  it('reads German headers and `;` CSV (Vorname and Nachname joined, Mandatsreferenz with its date, Eintritt as 01.03.2024); other columns are left out and said', () => {
    const text = 'Vorname;Nachname;Mitglieds-Nr.;Mandatsreferenz;Mandatsdatum;Eintritt;Telefon\nJürgen;Weiß;12;MAND-12;1.3.2024;01.03.2024;0301234\n';
    const list = readMemberList(text, false);
    if (!list.ok) throw new Error('unreadable');
    expect(list.ignored).toEqual(['Telefon']);
    expect(list.rows[0]).toEqual({ line: 2, person: { name: 'Jürgen Weiß', member_no: '12', joined_on: '2024-03-01', mandate: { id: 'MAND-12', signed_on: '2024-03-01' } }, problems: [] });
  });

  it('names each problem at its row: the IBAN check digits, a date that is no date, a mandate without its date, a name twice', () => {
    const text = ['Name,IBAN,Mandate,Joined', 'Anna,DE89370400440532013001,,', 'Ben,,M-1,', 'Cleo,,,31.02.2024', 'anna,,,'].join('\r\n');
    const list = readMemberList(text, false);
    if (!list.ok) throw new Error('unreadable');
    expect(list.rows.map((r) => [r.line, r.problems])).toEqual([
      [2, [{ code: 'iban', reason: 'checkDigits', value: 'DE89370400440532013001' }]],
      [3, [{ code: 'mandateWithoutDate' }]],
      [4, [{ code: 'badDate', column: 'joined_on', value: '31.02.2024' }]],
      [5, [{ code: 'sameName', line: 2 }]],
    ]);
  });

  it('refuses a list without a name column, and an empty one', () => {
    expect(readMemberList('Email\tIBAN\nx@example.org\t\n', false)).toEqual({ ok: false, reason: 'noNameColumn' });
    expect(readMemberList(' \n\n', false)).toEqual({ ok: false, reason: 'empty' });
  });

  it('reads dates as ISO, German and slashed in the locale’s order; no such day is none', () => {
    expect(readDate('2024-02-29', false)).toBe('2024-02-29');
    expect(readDate('2023-02-29', false)).toBeNull();
    expect(readDate('3/1/2024', true)).toBe('2024-03-01');
    expect(readDate('3/1/2024', false)).toBe('2024-01-03');
    expect(readDate('1.3.24', false)).toBe('2024-03-01');
    expect(readDate('31.04.2024', false)).toBeNull();
    expect(readDate('soon', false)).toBeNull();
  });
});
