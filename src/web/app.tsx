import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { api, ApiError, onSessionLost, type BookSettings, type BookStyle, type Me } from './api';
import { t } from './i18n';
import { DEFAULT_CURRENCY, formatDate, setBookCurrency } from './money';
import { wordsOf, type Words } from './words';

/** The signed-in person, the book style and its wording, and navigation: shared by every page. */
interface AppState {
  me: Me | null;
  /** Why the person is on the sign-in page again (their session ended), if that is why (the page words it, D29). */
  notice: typeof SESSION_ENDED | null;
  bookStyle: BookStyle;
  words: Words;
  path: string;
  navigate(to: string): void;
  refresh(): Promise<void>;
  setBookStyle(style: BookStyle): void;
  /** D20: the book's currency (every figure shows in it) and the last day of the closed period. */
  currency: string;
  closedThrough: string | null;
  /** D20: PUT /settings with part of them, shown once the API accepts it (a refusal is thrown). */
  saveSettings(patch: Partial<BookSettings>): Promise<void>;
}

const AppContext = createContext<AppState | null>(null);

export function useApp(): AppState {
  const state = useContext(AppContext);
  if (!state) throw new Error('useApp outside AppProvider');
  return state;
}

function currentPath(): string {
  return window.location.pathname + window.location.search;
}

export const SESSION_ENDED = 'sessionEnded';

export function AppProvider({ children }: { children: (loading: boolean) => ReactNode }) {
  const [me, setMe] = useState<Me | null>(null);
  const [notice, setNotice] = useState<typeof SESSION_ENDED | null>(null);
  const [bookStyle, setBookStyle] = useState<BookStyle>('personal');
  const [currency, setCurrency] = useState(DEFAULT_CURRENCY);
  const [closedThrough, setClosedThrough] = useState<string | null>(null);
  const [path, setPath] = useState(currentPath());
  const [loading, setLoading] = useState(true);
  const signedIn = useRef(false);

  const applySettings = useCallback((settings: Partial<BookSettings>) => {
    if (settings.book_style) setBookStyle(settings.book_style);
    if (settings.currency) {
      // Before the state changes, so that the render it causes formats in the new currency.
      setBookCurrency(settings.currency);
      setCurrency(settings.currency);
    }
    if (settings.closed_through !== undefined) setClosedThrough(settings.closed_through);
  }, []);

  const saveSettings = useCallback(
    async (patch: Partial<BookSettings>) => {
      applySettings(await api<BookSettings>('PUT', '/settings', patch));
    },
    [applySettings],
  );

  const refresh = useCallback(async () => {
    try {
      const who = await api<Me>('GET', '/auth/me');
      applySettings(await api<BookSettings>('GET', '/settings'));
      signedIn.current = true;
      setNotice(null);
      setMe(who);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) throw error;
      signedIn.current = false;
      setMe(null);
    } finally {
      setLoading(false);
    }
  }, [applySettings]);

  useEffect(() => {
    void refresh();
    // A 401 while signed in: back to sign-in on the same path, which reloads once signed in again.
    onSessionLost(() => {
      if (!signedIn.current) return;
      signedIn.current = false;
      setNotice(SESSION_ENDED);
      setMe(null);
    });
    const onPop = () => setPath(currentPath());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, [refresh]);

  const navigate = useCallback((to: string) => {
    window.history.pushState(null, '', to);
    setPath(currentPath());
    window.scrollTo(0, 0);
  }, []);

  // D12 in the chosen language (D29): read again when the book style or the language changes.
  const { i18n } = useTranslation();
  const language = i18n.resolvedLanguage;
  const words = useMemo(() => wordsOf(bookStyle), [bookStyle, language]);
  const state: AppState = { me, notice, bookStyle, words, path, navigate, refresh, setBookStyle, currency, closedThrough, saveSettings };
  return <AppContext.Provider value={state}>{children(loading)}</AppContext.Provider>;
}

/**
 * D20: why a transaction dated `date` cannot be written (recorded, corrected, deleted or
 * restored) while the books are closed through `closedThrough`, said before anything is sent;
 * null when it can.
 */
export function closedBooksRefusal(date: string, closedThrough: string | null, action: 'recorded' | 'changed' | 'deleted' | 'restored'): string | null {
  if (!closedThrough || !date || date > closedThrough) return null;
  const words = { through: formatDate(closedThrough), date: formatDate(date) };
  // D29: one whole sentence per action (German puts the verb elsewhere).
  switch (action) {
    case 'recorded':
      return t('common.closedBooks.recorded', words);
    case 'changed':
      return t('common.closedBooks.changed', words);
    case 'deleted':
      return t('common.closedBooks.deleted', words);
    case 'restored':
      return t('common.closedBooks.restored', words);
  }
}
