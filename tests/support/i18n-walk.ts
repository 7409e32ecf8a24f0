import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';

// D29 (issue 38): a page shown in one language shows no sentence of the other's catalogue. The
// English catalogue's sentences are the probe: each message's longest fixed part (between its
// {{placeholders}}) of at least three words is looked for in the page's visible text.

type Catalogue = { [key: string]: string | Catalogue };

function flatten(catalogue: Catalogue, prefix = ''): Array<[string, string]> {
  return Object.entries(catalogue).flatMap(([key, value]) => {
    const full = prefix ? `${prefix}.${key}` : key;
    return typeof value === 'string' ? [[full, value] as [string, string]] : flatten(value, full);
  });
}

/** Messages of the catalogue of `language`, with the part of each that is looked for. */
export function probesOf(language: 'en' | 'de', sections?: string[]): Array<{ key: string; probe: string }> {
  const catalogue = JSON.parse(readFileSync(path.resolve(`src/web/locales/${language}.json`), 'utf8')) as Catalogue;
  return flatten(catalogue)
    .filter(([key]) => !sections || sections.includes(key.split('.')[0]!))
    .flatMap(([key, message]) => {
      const parts = message
        .split(/\{\{[^}]*\}\}|<\/?\w+>|<\d+>|<\/\d+>/)
        .map((part) => part.trim())
        .filter((part) => part.split(/\s+/).length >= 3);
      const probe = parts.sort((a, b) => b.length - a.length)[0];
      return probe ? [{ key, probe }] : [];
    });
}

/** The English sentences (by key) that the page shows now, in its visible text. */
export async function englishOnScreen(page: Page, sections?: string[]): Promise<string[]> {
  const text = (await page.evaluate(() => document.body.innerText)).replace(/\s+/g, ' ');
  return probesOf('en', sections)
    .filter(({ probe }) => text.includes(probe.replace(/\s+/g, ' ')))
    .map(({ key, probe }) => `${key}: “${probe}”`);
}

/** The German sentences (by key) that the page shows now: an English page shows none. */
export async function germanOnScreen(page: Page, sections?: string[]): Promise<string[]> {
  const text = (await page.evaluate(() => document.body.innerText)).replace(/\s+/g, ' ');
  return probesOf('de', sections)
    .filter(({ probe }) => text.includes(probe.replace(/\s+/g, ' ')))
    .map(({ key, probe }) => `${key}: “${probe}”`);
}
