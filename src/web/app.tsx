import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { api, ApiError, type BookStyle, type Me } from './api';
import { WORDS, type Words } from './words';

/** The signed-in person, the book style and its wording, and navigation: shared by every page. */
interface AppState {
  me: Me | null;
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

export function AppProvider({ children }: { children: (loading: boolean) => ReactNode }) {
  const [me, setMe] = useState<Me | null>(null);
  const [bookStyle, setBookStyle] = useState<BookStyle>('personal');
  const [path, setPath] = useState(currentPath());
  const [loading, setLoading] = useState(true);

  const refresh = useCallback(async () => {
    try {
      const who = await api<Me>('GET', '/auth/me');
      setMe(who);
      setBookStyle((await api<{ book_style: BookStyle }>('GET', '/settings')).book_style);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) throw error;
      setMe(null);
    } finally {
      setLoading(false);
    }
  }, []);

  useEffect(() => {
    void refresh();
    const onPop = () => setPath(currentPath());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, [refresh]);

  const navigate = useCallback((to: string) => {
    window.history.pushState(null, '', to);
    setPath(currentPath());
    window.scrollTo(0, 0);
  }, []);

  const state: AppState = { me, bookStyle, words: WORDS[bookStyle], path, navigate, refresh, setBookStyle };
  return <AppContext.Provider value={state}>{children(loading)}</AppContext.Provider>;
}
