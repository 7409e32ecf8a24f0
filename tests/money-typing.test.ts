import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import i18next from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatCentsIn, readAmount } from '../src/web/money';

// D19: money typed by people, read exactly or refused with a sentence, in the browser's locale.
// Issue 6/7 finding 1: "30.005" was saved as 30,005.00.

const LOCALES = ['en', 'de', 'fr'] as const;
const AMOUNT_MAX_CENTS = 10 ** 15;
const cents = fc.integer({ min: 0, max: AMOUNT_MAX_CENTS });

const catalogue = (language: 'en' | 'de') => JSON.parse(readFileSync(`src/web/locales/${language}.json`, 'utf8')) as Record<string, unknown>;

// The refusals are the web app's catalogue's sentences (D29), in the language of the moment, as in the browser.
beforeAll(async () => {
  await i18next.init({
    lng: 'en',
    fallbackLng: false,
    resources: { en: { translation: catalogue('en') }, de: { translation: catalogue('de') } },
    interpolation: { escapeValue: false },
  });
});

describe('readAmount (D19)', () => {
  for (const locale of LOCALES) {
    it(`[${locale}] reads back every amount as the locale writes it, grouped or not`, () => {
      fc.assert(
        fc.property(cents, fc.boolean(), (value, grouping) => {
          expect(readAmount(formatCentsIn(value, locale, grouping), { locale })).toEqual({ cents: value });
        }),
      );
    });

    it(`[${locale}] reads whole numbers and one or two decimals after either mark`, () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 10 ** 12 }), fc.constantFrom('.', ','), fc.integer({ min: 0, max: 99 }), fc.boolean(), (units, mark, hundredths, short) => {
          expect(readAmount(String(units), { locale })).toEqual({ cents: units * 100 });
          const typed = short && hundredths % 10 === 0 ? `${units}${mark}${hundredths / 10}` : `${units}${mark}${String(hundredths).padStart(2, '0')}`;
          expect(readAmount(typed, { locale })).toEqual({ cents: units * 100 + hundredths });
        }),
      );
    });

    it(`[${locale}] refuses three or more decimals that are not the locale's grouping`, () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 10 ** 9 }), fc.constantFrom('.', ','), fc.stringMatching(/^\d{3,6}$/), (units, mark, decimals) => {
          const typed = `${units}${mark}${decimals}`;
          const reading = readAmount(typed, { locale });
          // Only the locale's own grouping of a 4+-digit whole (with 2+ groups, or decimals) is a number.
          if ('cents' in reading) {
            expect(formatCentsIn(reading.cents, locale).replace(/\s/g, ' ').startsWith(typed.replace(/\s/g, ' '))).toBe(true);
            expect(typed.split(mark).length).toBeGreaterThan(2);
          } else {
            expect(reading.error).toMatch(/^“/);
          }
        }),
      );
    });

    it(`[${locale}] never understands a string as something its own formatting contradicts`, () => {
      fc.assert(
        fc.property(fc.stringMatching(/^-?[0-9.,  ]{1,12}$/), (typed) => {
          const reading = readAmount(typed, { locale, signed: true });
          if ('cents' in reading) {
            const digits = typed.replace(/[^0-9]/g, '').replace(/^0+/, '');
            expect(String(Math.abs(reading.cents)).replace(/^0+/, '').startsWith(digits.replace(/0+$/, '')) || reading.cents === 0).toBe(true);
          }
        }),
      );
    });
  }

  it('the issue\'s examples, as an English, a German and a French browser reads them', () => {
    const read = (typed: string, locale: string, signed = false) => readAmount(typed, { locale, signed });
    expect(read('30.005', 'en')).toEqual({ error: '“30.005” has more than two decimals: an amount has cents at most, like 1,234.56.' });
    expect(read('30.005', 'de')).toEqual({ error: '“30.005” is ambiguous: write 30005 for the whole number, or put the cents after a comma, like 1.234,56.' });
    expect(read('30.005', 'fr')).toEqual({ error: '“30.005” has more than two decimals: an amount has cents at most, like 1\u202f234,56.' });
    expect(read('1.234,56', 'de')).toEqual({ cents: 123456 });
    expect(read('1.234,56', 'en')).toEqual({ error: '“1.234,56” is not an amount here: write it like 1,234.56 or 1234.56.' });
    expect(read('1 234,56', 'fr')).toEqual({ cents: 123456 });
    expect(read('1,234.56', 'en')).toEqual({ cents: 123456 });
    expect(read('1,234', 'en')).toMatchObject({ error: expect.stringContaining('ambiguous') });
    expect(read('1,234,567', 'en')).toEqual({ cents: 123456700 });
    for (const locale of LOCALES) {
      expect(read('12,5', locale)).toEqual({ cents: 1250 });
      expect(read('0.10', locale)).toEqual({ cents: 10 });
      expect(read('-5', locale)).toMatchObject({ error: expect.stringContaining('without a minus sign') });
      expect(read('-5', locale, true)).toEqual({ cents: -500 });
      expect(read('−5,25', locale, true)).toEqual({ cents: -525 });
      expect(read('', locale)).toEqual({ error: 'Enter an amount.' });
      expect(read('12.', locale)).toMatchObject({ error: expect.any(String) });
      expect(read('1e3', locale)).toMatchObject({ error: expect.any(String) });
      expect(read('10000000000000.01', locale)).toMatchObject({ error: expect.stringContaining('more than Ledger keeps') });
    }
  });

  it('D29 with D19: in either language an amount reads as that language writes it: 1,234.56 in English and 1.234,56 in German, the other refused in the person’s words', async () => {
    await i18next.changeLanguage('en');
    expect(readAmount('1,234.56', { locale: 'en' })).toEqual({ cents: 123456 });
    expect(readAmount('1.234,56', { locale: 'en' })).toEqual({ error: '“1.234,56” is not an amount here: write it like 1,234.56 or 1234.56.' });
    await i18next.changeLanguage('de');
    try {
      expect(readAmount('1.234,56', { locale: 'de-DE' })).toEqual({ cents: 123456 });
      expect(readAmount('1,234.56', { locale: 'de-DE' })).toEqual({ error: '„1,234.56“ ist hier kein Betrag: Schreiben Sie ihn etwa als 1.234,56 oder 1234,56.' });
      expect(readAmount('30.005', { locale: 'de-DE' })).toEqual({
        error: '„30.005“ ist nicht eindeutig: Schreiben Sie 30005 für die ganze Zahl, oder setzen Sie die Cent hinter ein Komma, etwa 1.234,56.',
      });
      expect(readAmount('30,005', { locale: 'de-DE' })).toEqual({ error: '„30,005“ hat mehr als zwei Nachkommastellen: Ein Betrag hat höchstens Cent, etwa 1.234,56.' });
      expect(readAmount('', { locale: 'de-DE' })).toEqual({ error: 'Bitte geben Sie einen Betrag ein.' });
      expect(readAmount('-5', { locale: 'de-DE' })).toMatchObject({ error: expect.stringMatching(/^Bitte geben Sie den Betrag ohne Minuszeichen ein \(„-5“\)/) });
      // Either language keeps D19's plain forms: one mark, one or two decimals.
      for (const locale of ['en', 'de-DE']) {
        expect(readAmount('12,5', { locale })).toEqual({ cents: 1250 });
        expect(readAmount('0.10', { locale })).toEqual({ cents: 10 });
        expect(readAmount('1234.56', { locale })).toEqual({ cents: 123456 });
        expect(readAmount('1234,56', { locale })).toEqual({ cents: 123456 });
      }
    } finally {
      await i18next.changeLanguage('en');
    }
  });
});
