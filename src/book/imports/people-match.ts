import { ne } from 'drizzle-orm';
import type { Db } from '../../db/database';
import { people } from '../../db/schema';
import { foldCase } from './rules';
import { collapseWhitespace, compactIban, type StatementLine } from './statement';

// D27 payments in (D16): each statement line is matched to at most one person, in this order:
// (1) the line's counterparty IBAN is the person's; else (2) the line's text holds the person's
// member number or mandate id as a whole word; else (3) the counterparty's name is the person's,
// read as people write names at banks ("SCHMIDT, ANNA", "MUELLER" for Müller). When two people fit
// at one step, that step decides nothing and the next one is asked: a family paying two members'
// dues from one account is told apart by the member number in the text.

/** How a line was matched to its person (the preview's `person_match`). */
export type PersonMatchKind = 'iban' | 'reference' | 'name';

export interface PersonMatch {
  person_id: number;
  account_id: number;
  person_match: PersonMatchKind;
}

interface Candidate {
  id: number;
  accountId: number;
}

/** The book's people, indexed by each of D27's three keys; built from one query per import. */
export interface PeopleMatcher {
  byIban: Map<string, Candidate[]>;
  /** Member numbers and mandate ids, case folded. */
  byReference: Map<string, Candidate[]>;
  /** The lengths of those references: the only lengths a line's text is looked up at. */
  referenceLengths: Set<number>;
  byName: Map<string, Candidate[]>;
}

/**
 * The people a statement of `statementAccountId` can be matched to, in one query; null when the
 * book has none (then nothing is asked per line). A person whose own account is the statement's
 * is left out: a line cannot be booked against the account it is on.
 */
export async function loadPeopleMatcher(db: Db, statementAccountId: number): Promise<PeopleMatcher | null> {
  const rows = await db
    .select({ id: people.id, accountId: people.accountId, name: people.name, iban: people.iban, memberNo: people.memberNo, mandateId: people.mandateId })
    .from(people)
    .where(ne(people.accountId, statementAccountId))
    .orderBy(people.id);
  if (rows.length === 0) return null;
  const matcher: PeopleMatcher = { byIban: new Map(), byReference: new Map(), referenceLengths: new Set(), byName: new Map() };
  for (const row of rows) {
    const candidate = { id: row.id, accountId: row.accountId };
    const iban = compactIban(row.iban ?? undefined);
    if (iban) add(matcher.byIban, iban, candidate);
    for (const reference of new Set([row.memberNo, row.mandateId].map((r) => foldCase(collapseWhitespace(r ?? ''))).filter((r) => r !== ''))) {
      add(matcher.byReference, reference, candidate);
      matcher.referenceLengths.add(reference.length);
    }
    const name = nameKey(row.name);
    if (name) add(matcher.byName, name, candidate);
  }
  return matcher;
}

function add(index: Map<string, Candidate[]>, key: string, candidate: Candidate): void {
  const list = index.get(key) ?? [];
  if (!list.some((c) => c.id === candidate.id)) list.push(candidate);
  index.set(key, list);
}

/** The one person a line belongs to by D27's order, or null. */
export function matchPerson(matcher: PeopleMatcher | null, line: Pick<StatementLine, 'description' | 'counterparty_iban' | 'counterparty_name'>): PersonMatch | null {
  if (matcher === null) return null;
  const byIban = line.counterparty_iban === undefined ? [] : (matcher.byIban.get(line.counterparty_iban) ?? []);
  if (byIban.length === 1) return found(byIban[0]!, 'iban');
  const byReference = referencesIn(matcher, line.description);
  if (byReference.length === 1) return found(byReference[0]!, 'reference');
  const key = line.counterparty_name === undefined ? '' : nameKey(line.counterparty_name);
  const byName = key === '' ? [] : (matcher.byName.get(key) ?? []);
  if (byName.length === 1) return found(byName[0]!, 'name');
  return null;
}

const found = (candidate: Candidate, kind: PersonMatchKind): PersonMatch => ({ person_id: candidate.id, account_id: candidate.accountId, person_match: kind });

/** The people whose member number or mandate id the text holds as a whole word, each once. */
function referencesIn(matcher: PeopleMatcher, text: string): Candidate[] {
  const hits = new Map<number, Candidate>();
  for (const word of wholeWords(foldCase(text), matcher.referenceLengths)) {
    for (const c of matcher.byReference.get(word) ?? []) hits.set(c.id, c);
  }
  return [...hits.values()];
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
/** Characters that join the parts of one reference ("M-0042-B", "2024/17", "42,50"): a reference followed by one of them and more letters or digits is part of a longer one. */
const JOINERS = new Set(['-', '/', '.', '_', '+', ',']);

/**
 * D27 "as a whole word": every piece of `text` of one of the `lengths` that is neither inside a
 * longer run of letters and digits nor joined to one by - / . _ + or a comma, so "M-0042" is not
 * found in "M-00421" or "M-0042-B", but is in "Beitrag M-0042, Maerz" and "(M-0042)". Only the
 * pieces that start and end at such a boundary are looked up: a few per word of the text, however
 * many people the book has.
 */
export function wholeWords(text: string, lengths: Iterable<number>): string[] {
  const word = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) word[i] = isLetterOrDigit(text.charCodeAt(i), text[i]!) ? 1 : 0;
  // Whether position i (between text[i - 1] and text[i]) is no part of a longer reference on its left or right.
  const openLeft = (i: number) => i === 0 || !(word[i - 1] || (JOINERS.has(text[i - 1]!) && i >= 2 && word[i - 2]));
  const openRight = (i: number) => i === text.length || !(word[i] || (JOINERS.has(text[i]!) && i + 1 < text.length && word[i + 1]));
  const sizes = [...lengths];
  const found: string[] = [];
  for (let start = 0; start < text.length; start++) {
    if (!openLeft(start)) continue;
    for (const size of sizes) {
      if (start + size <= text.length && openRight(start + size)) found.push(text.slice(start, start + size));
    }
  }
  return found;
}

/** ASCII by its code (most of a statement's text), anything else by Unicode's letter and number classes. */
function isLetterOrDigit(code: number, char: string): boolean {
  if (code < 128) return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
  return LETTER_OR_DIGIT.test(char);
}

const GERMAN_SPELLING: Record<string, string> = { ä: 'ae', ö: 'oe', ü: 'ue', ß: 'ss' };

/**
 * D27: a name as compared: case folded, ä ö ü as ae oe ue and ß as ss (so "MUELLER" is Müller and
 * "Müller" is Mueller), other accents dropped, punctuation read as a space, the words in sorted
 * order ("SCHMIDT, ANNA" is Anna Schmidt). Empty when no letter or digit is left.
 */
export function nameKey(name: string): string {
  const spelled = name.normalize('NFC').toLowerCase().replace(/[äöüß]/gu, (ch) => GERMAN_SPELLING[ch]!);
  const plain = spelled.normalize('NFD').replace(/\p{M}/gu, '');
  return plain.split(/[^\p{L}\p{N}]+/u).filter((word) => word !== '').sort().join(' ');
}
