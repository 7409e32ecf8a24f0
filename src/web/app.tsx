import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { api, ApiError, onSessionLost, type BookStyle, type Me } from './api';
import { WORDS, type Words } from './words';

/** The signed-in person, the book style and its wording, and navigation: shared by every page. */
interface AppState {
  me: Me | null;
  /** Why the person is on the sign-in page again (their session ended), if that is why. */
  notice: string | null;
  bookStyle: BookStyle;
  words: Words;
  path: string;
  navigate(to: string): void;
  refresh(): Promise<void>;
  setBookStyle(style: BookStyle): void;
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

export const SESSION_ENDED = 'Your session has ended. Sign in again to carry on where you were.';

export function AppProvider({ children }: { children: (loading: boolean) => ReactNode }) {
  const [me, setMe] = useState<Me | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [bookStyle, setBookStyle] = useState<BookStyle>('personal');
  const [path, setPath] = useState(currentPath());
  const [loading, setLoading] = useState(true);
  const signedIn = useRef(false);

  const refresh = useCallback(async () => {
    try {
      const who = await api<Me>('GET', '/auth/me');
      setBookStyle((await api<{ book_style: BookStyle }>('GET', '/settings')).book_style);
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
  }, []);

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

  const state: AppState = { me, notice, bookStyle, words: WORDS[bookStyle], path, navigate, refresh, setBookStyle };
  return <AppContext.Provider value={state}>{children(loading)}</AppContext.Provider>;
}
