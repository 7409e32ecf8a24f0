import { useEffect, useState } from 'react';
import { api } from '../api';

// Issue 6/7 finding 7: one report of the Reports page, asked for again whenever its path changes.
// An answer to a path asked for before the current one is dropped (a slow first answer never
// overwrites a newer one), and a refused request clears the figures it would have replaced, so
// that no figure of another period stands under the error.

export interface Report<T> {
  /** The figures of the latest answer, or null before the first one and after a refusal. */
  data: T | null;
  /** Why the latest request was refused, or null. */
  error: string | null;
  /** Whether `data` answers the current path (false while a newer request is on its way). */
  current: boolean;
}

/** GET `path` (nothing while it is null) and hold the answer of the latest path only. */
export function useReport<T>(path: string | null): Report<T> {
  const [answer, setAnswer] = useState<{ path: string; data: T | null; error: string | null } | null>(null);

  useEffect(() => {
    if (path === null) return;
    let latest = true;
    api<T>('GET', path).then(
      (data) => latest && setAnswer({ path, data, error: null }),
      (e: Error) => latest && setAnswer({ path, data: null, error: e.message }),
    );
    return () => {
      latest = false;
    };
  }, [path]);

  if (path === null || answer === null) return { data: null, error: null, current: false };
  return { data: answer.data, error: answer.error, current: answer.path === path };
}
