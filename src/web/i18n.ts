import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';

/**
 * D29: every word the web app shows comes from a message catalogue, English and German, one file
 * per language (src/web/locales/<language>.json, a section per page). The language follows the
 * browser (the first of de/en in navigator.languages, else English) until a person chooses one on
 * Settings or the sign-in page; the choice is kept in this browser. Only the catalogue in use is
 * downloaded: each is its own chunk, loaded before the first render and when another is chosen.
 * Plurals are i18next's, on Intl.PluralRules (`key_one` / `key_other`), never rules of ours.
 */
export const LANGUAGES = ['en', 'de'] as const;
export type Language = (typeof LANGUAGES)[number];

/** The language's own name, as the chooser shows it (never translated: a person finds their own). */
export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', de: 'Deutsch' };

const CHOSEN = 'ledger.language';

const catalogues: Record<Language, () => Promise<{ default: Record<string, unknown> }>> = {
  en: () => import('./locales/en.json'),
  de: () => import('./locales/de.json'),
};

/** The browser's language tags, most wanted first (none outside a browser: Node runs some web modules in tests). */
const browserTags = (): readonly string[] => (typeof navigator === 'undefined' ? [] : (navigator.languages ?? [navigator.language]));

const isLanguage = (value: unknown): value is Language => LANGUAGES.includes(value as Language);

/** The language a person chose in this browser, if any. */
function chosenLanguage(): Language | null {
  try {
    const kept = localStorage.getItem(CHOSEN);
    return isLanguage(kept) ? kept : null;
  } catch {
    return null;
  }
}

/** D29: the first of de/en among the browser's languages (de-AT counts as de), else English. */
export function browserLanguage(languages: readonly string[] = browserTags()): Language {
  for (const tag of languages) {
    const base = tag.toLowerCase().split('-')[0];
    if (isLanguage(base)) return base;
  }
  return 'en';
}

/**
 * The locale for Intl (dates, numbers, money, D29): the browser's own tag when it is of the chosen
 * language (en-GB keeps its day-month order, de-CH its marks), else the language itself.
 */
export function locale(): string {
  const language = currentLanguage();
  const own = browserTags().find((tag) => tag.toLowerCase().split('-')[0] === language);
  return own ?? (language === 'de' ? 'de-DE' : 'en');
}

export function currentLanguage(): Language {
  const language = i18next.resolvedLanguage ?? i18next.language;
  return isLanguage(language) ? language : 'en';
}

const listeners = new Set<() => void>();
/** Called after the language changed (money.ts rebuilds its formatters). */
export function onLanguageChanged(listener: () => void): void {
  listeners.add(listener);
}

async function load(language: Language): Promise<void> {
  if (i18next.hasResourceBundle(language, 'translation')) return;
  const { default: catalogue } = await catalogues[language]();
  i18next.addResourceBundle(language, 'translation', catalogue);
}

/** Before the first render: the chosen (or the browser's) language, its catalogue loaded. */
export async function startI18n(): Promise<void> {
  const language = chosenLanguage() ?? browserLanguage();
  await i18next.use(initReactI18next).init({
    lng: language,
    fallbackLng: false,
    supportedLngs: [...LANGUAGES],
    resources: {},
    partialBundledLanguages: true,
    // React escapes what it renders; i18next's own escaping would show &amp; in text.
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  await load(language);
  await i18next.changeLanguage(language);
  document.documentElement.lang = language;
  for (const listener of listeners) listener();
}

/** A person's choice (Settings, sign-in page): loaded, shown at once, kept in this browser. */
export async function chooseLanguage(language: Language): Promise<void> {
  await load(language);
  try {
    localStorage.setItem(CHOSEN, language);
  } catch {
    // A browser that keeps nothing still shows the language until the page is reloaded.
  }
  await i18next.changeLanguage(language);
  document.documentElement.lang = language;
  for (const listener of listeners) listener();
}

/** The translation function outside React (formatters, confirm dialogs). Inside components: useTranslation(). */
export const t = i18next.t.bind(i18next);
