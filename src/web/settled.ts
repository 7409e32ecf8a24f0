import { useEffect, useRef, useState } from 'react';

/**
 * Issue 37 item 1: what a person types is asked for once they pause, not at every keystroke:
 * `value` as it was `ms` after its last change (at once the first time).
 */
export function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * Issue 37 item 1: answers arrive in any order, so only the latest request's answer may be shown.
 * `begin()` starts a request and returns a check that stays true until a newer one begins; an
 * answer whose check is false is dropped (a slow "v" never overwrites "visa card"). `join()`
 * returns the same check for the request under way, for a follow-up (the next page, the print)
 * that must not outlive it and must not cancel it either.
 */
export function useLatestRequest(): { begin(): () => boolean; join(): () => boolean } {
  const latest = useRef(0);
  const checkOf = (request: number) => () => request === latest.current;
  return { begin: () => checkOf(++latest.current), join: () => checkOf(latest.current) };
}
