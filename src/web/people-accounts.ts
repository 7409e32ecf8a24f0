import { useEffect, useState } from 'react';
import { api, type Person } from './api';

// D27: people's accounts are shown under People (Members), not among the other accounts. The
// pages that list accounts ask GET /people which accounts are people's; the API's own lists and
// reports keep them like any account.

let asking: Promise<Map<number, string>> | null = null;

/** The accounts that are people's (account id → the person's name); one request for every picker on a page at once. */
export function peopleAccounts(): Promise<Map<number, string>> {
  asking ??= api<Person[]>('GET', '/people')
    .then((people) => new Map(people.map((p) => [p.account_id, p.name])))
    // A book the API cannot list people for (an older server) has none to keep apart.
    .catch(() => new Map<number, string>())
    .finally(() => setTimeout(() => (asking = null), 0));
  return asking;
}

/** The accounts that are people's, read when the page shows (null until known). */
export function usePeopleAccounts(): Map<number, string> | null {
  const [accounts, setAccounts] = useState<Map<number, string> | null>(null);
  useEffect(() => {
    let current = true;
    void peopleAccounts().then((found) => current && setAccounts(found));
    return () => {
      current = false;
    };
  }, []);
  return accounts;
}
