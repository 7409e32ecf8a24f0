import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// D29 (issue 38): every word of the web app comes from a catalogue, one file per language. This
// test fails when a key is missing in either catalogue, when a key is in the catalogues but no
// code uses it, when the code asks for a key no catalogue has, and when a message's placeholders
// ({{name}}) differ between the languages.

const LOCALES = path.resolve('src/web/locales');
const LANGUAGES = ['en', 'de'] as const;
/** i18next's plural suffixes (Intl.PluralRules categories): `key_one` and `key_other` are one key, `key`. */
const PLURAL = /_(zero|one|two|few|many|other)$/;
/** i18next's context suffixes for the book style (D12): t('nav.people', {context: bookStyle}) reads `nav.people_club`. */
const CONTEXT = /_(personal|club)$/;

type Catalogue = { [key: string]: string | Catalogue };

function flatten(catalogue: Catalogue, prefix = ''): Map<string, string> {
  const flat = new Map<string, string>();
  for (const [key, value] of Object.entries(catalogue)) {
    const full = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') flat.set(full, value);
    else for (const [k, v] of flatten(value, full)) flat.set(k, v);
  }
  return flat;
}

const catalogues = Object.fromEntries(LANGUAGES.map((language) => [language, flatten(JSON.parse(readFileSync(path.join(LOCALES, `${language}.json`), 'utf8')) as Catalogue)])) as Record<
  (typeof LANGUAGES)[number],
  Map<string, string>
>;

/** A message's key without its plural suffix: what the code asks for. */
const baseOf = (key: string) => key.replace(PLURAL, '').replace(CONTEXT, '');
const placeholdersOf = (message: string) => [...new Set([...message.matchAll(/\{\{\s*([\w.]+)(?:\s*,[^}]*)?\s*\}\}/g)].map((m) => m[1]))].sort();

/** Every source file of the web app (and the book's word modules the web app renders through). */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'locales' ? [] : sources(full);
    return /\.(ts|tsx)$/.test(name) ? [full] : [];
  });
}
const code = sources(path.resolve('src/web'))
  .map((file) => readFileSync(file, 'utf8'))
  .join('\n');

/** Keys the code names whole, in quotes or backquotes (t('a.b'), i18nKey="a.b", a table of keys). */
const literalKeys = new Set([...code.matchAll(/['"`]([a-z][\w]*(?:\.[\w]+)+)['"`]/g)].map((m) => m[1]!));
/** Keys the code builds, `a.b.${…}`: every key under that prefix counts as used. */
const builtPrefixes = [...code.matchAll(/`([a-z][\w]*(?:\.[\w]+)*\.)\$\{/g)].map((m) => m[1]!);
/** Keys the code asks for with t('…') literally. */
const askedKeys = new Set([...code.matchAll(/\bt\(\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!));

describe('the web app’s message catalogues (D29, issue 38)', () => {
  it('both catalogues have the same keys', () => {
    const [en, de] = [catalogues.en, catalogues.de];
    expect(en.size).toBeGreaterThan(0);
    expect([...en.keys()].filter((k) => !de.has(k)), 'in en.json, missing in de.json').toEqual([]);
    expect([...de.keys()].filter((k) => !en.has(k)), 'in de.json, missing in en.json').toEqual([]);
  });

  it('a message has the same placeholders in both languages', () => {
    const differing = [...catalogues.en].flatMap(([key, english]) => {
      const german = catalogues.de.get(key);
      if (german === undefined) return [];
      const [a, b] = [placeholdersOf(english), placeholdersOf(german)];
      return JSON.stringify(a) === JSON.stringify(b) ? [] : [`${key}: en ${a.join(',') || '-'} / de ${b.join(',') || '-'}`];
    });
    expect(differing).toEqual([]);
  });

  it('no message is empty, and none is left untranslated by mistake (the same long English sentence in both)', () => {
    const empty = [...catalogues.en, ...catalogues.de].filter(([, message]) => message.trim() === '').map(([key]) => key);
    expect(empty).toEqual([]);
    const same = [...catalogues.en].filter(([key, english]) => english.split(/\s+/).length >= 4 && catalogues.de.get(key) === english).map(([key]) => key);
    expect(same).toEqual([]);
  });

  it('every key is used by the code', () => {
    const unused = [...new Set([...catalogues.en.keys()].map(baseOf))].filter((key) => !literalKeys.has(key) && !builtPrefixes.some((prefix) => key.startsWith(prefix)));
    expect(unused).toEqual([]);
  });

  it('every key the code asks for is in the catalogues', () => {
    const known = new Set([...catalogues.en.keys()].map(baseOf));
    const missing = [...askedKeys].filter((key) => !known.has(key) && !catalogues.en.has(key));
    expect(missing).toEqual([]);
  });
});
