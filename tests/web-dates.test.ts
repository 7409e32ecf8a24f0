import { describe, expect, it } from 'vitest';
import { daysBefore, formatDate } from '../src/web/money';
import { dayInWords } from '../src/web/pages/ScheduleForm';

// D21's bounds (2026-11-27) in the web app: dates run from 0001-01-01 to 9999-12-31 and years below
// 1000 are those years, never 1900 + n. The web app's own date helpers used Date.UTC, which reads
// years 0–99 as 1900–1999 ("Feb 9, 1905" for 0005-02-09), and toISOString, which writes years past
// 9999 as `+010000`. The expected texts are made from Date.parse of the ISO text, which reads a
// four-digit year as written, in the locale the helpers use (the process's).

const medium = (iso: string) => new Date(Date.parse(`${iso}T00:00:00Z`)).toLocaleDateString(undefined, { timeZone: 'UTC', dateStyle: 'medium' });
const withWeekday = (iso: string) =>
  new Date(Date.parse(`${iso}T00:00:00Z`)).toLocaleDateString(undefined, { timeZone: 'UTC', weekday: 'short', year: 'numeric', month: 'short', day: 'numeric' });

describe('the web app\'s dates for years 0001–0999 (D21 bounds)', () => {
  it('formatDate of 0005-02-09 shows year 5, not 1905; the ends of the range show as themselves', () => {
    const shown = formatDate('0005-02-09');
    expect(shown).toBe(medium('0005-02-09'));
    expect(shown).not.toMatch(/1905/);
    // The year's own figures: 5 in every locale's medium style (en-US: "Feb 9, 5").
    expect(shown.match(/\d+/g)).toContain('5');
    for (const iso of ['0001-01-01', '0099-12-31', '0100-02-28', '0999-06-15', '1999-12-31', '9999-12-31']) expect(formatDate(iso), iso).toBe(medium(iso));
    expect(formatDate('0001-01-01')).not.toMatch(/1901|\+/);
    expect(formatDate('9999-12-31')).not.toMatch(/10000|\+/);
  });

  it('the schedule preview\'s day in words has the real year and weekday: 0001-01-01 was a Monday (1901-01-01 a Tuesday)', () => {
    expect(dayInWords('0001-01-01')).toBe(withWeekday('0001-01-01'));
    expect(dayInWords('0001-01-01')).not.toMatch(/1901/);
    expect(dayInWords('0004-02-29')).toBe(withWeekday('0004-02-29'));
    expect(dayInWords('9999-12-31')).toBe(withWeekday('9999-12-31'));
  });

  it('daysBefore counts in the real year and stays within 0001-01-01 … 9999-12-31', () => {
    expect(daysBefore('0050-03-01', 1)).toBe('0050-02-28');
    expect(daysBefore('0004-03-01', 1)).toBe('0004-02-29');
    expect(daysBefore('0001-01-31', 30)).toBe('0001-01-01');
    expect(daysBefore('0001-01-05', 10)).toBe('0001-01-01');
    expect(daysBefore('9999-12-30', -5)).toBe('9999-12-31');
    expect(daysBefore('2026-03-01', 1)).toBe('2026-02-28');
    expect(daysBefore('2026-11-27', 30)).toBe('2026-10-28');
  });
});
