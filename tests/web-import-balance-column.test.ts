import { describe, expect, it } from 'vitest';
import { csvOptions, guessMapping } from '../src/web/pages/ImportCsv';

// Issue 37 item 5 (D16 `csv.balance_column`): the Import page's first mapping of a CSV file finds
// the column of the balance after each line by its header, in any case and with or without
// accents, and sends it; a file without one sends none. The page itself: tests/web-import.test.ts.

const file = (header: string) => `${header}\n2026-10-01,Coffee,-2.50,97.50\n`;

describe('issue 37 item 5 (D16 csv.balance_column): the balance column found by its header', () => {
  it.each([
    ['Date,Description,Amount,Saldo', 'Saldo'],
    ['Date,Description,Amount,SALDO', 'SALDO'],
    ['Date,Description,Amount,Kontostand (EUR)', 'Kontostand (EUR)'],
    ['Date,Description,Amount,Running Balance', 'Running Balance'],
    ['Date,Description,Amount,balance', 'balance'],
    ['Date,Description,Amount,Sáldo', 'Sáldo'],
  ])('%s → %s, sent as csv.balance_column', (header, column) => {
    const mapping = guessMapping(file(header));
    expect(mapping.balance).toBe(column);
    expect(csvOptions(mapping).balance_column).toBe(column);
  });

  it('a file without one: no balance column, none sent', () => {
    const mapping = guessMapping('Date,Description,Amount,Reference\n2026-10-01,Coffee,-2.50,X1\n');
    expect(mapping.balance).toBe('');
    expect(csvOptions(mapping)).not.toHaveProperty('balance_column');
  });
});
