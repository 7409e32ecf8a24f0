import { invalid } from '../../errors';
import { parsePlainAmount } from './amounts';
import { parseIsoDate } from './dates';
import { cleanDescription, collectLine, counterparty, joinTexts, LineFault, lineFault, shown, type ParsedStatement, type StatedBalance } from './statement';
import { at, checkWellFormed, child, children, parseXml, refuseDeclarations, textOf, type XmlValue } from './xml';

// D16: an ISO 20022 camt.053 statement (BankToCustomerStatement), any version banks send: 001.02 to
// 001.08 and later, told by the namespace of <Document>. Each Ntry is a line, numbered in document
// order across the file's Stmt elements: Amt signed by CdtDbtInd (CRDT money in, DBIT out), the
// booking date (BookgDt, else ValDt), AcctSvcrRef (else NtryRef) as the bank's reference.

const CAMT_053 = /^urn:iso:std:iso:20022:tech:xsd:camt\.053\.001\.\d{2}$/;
const REPEATING = new Set(['Stmt', 'Bal', 'Ntry', 'NtryDtls', 'TxDtls', 'Ustrd']);

export function parseCamt053(text: string): ParsedStatement {
  refuseDeclarations(text);
  checkWellFormed(text);
  const root = parseXml(text, REPEATING);
  const name = Object.keys(root)[0];
  if (name !== 'Document') throw invalid(`the file is not a camt.053 statement: its root element is <${name?.slice(0, 40)}>, not <Document>`);
  const document = child(root, 'Document');
  const namespace = namespaceOf(document);
  if (namespace === undefined) throw invalid('the file is not a camt.053 statement: <Document> has no namespace (xmlns)');
  if (!CAMT_053.test(namespace)) throw invalid(`the file is not a camt.053 statement: <Document> is in the namespace ${shown(namespace, 100)}`);

  const statements = children(at(document, 'BkToCstmrStmt'), 'Stmt');
  if (statements.length === 0) throw invalid('the camt.053 file holds no statement (BkToCstmrStmt/Stmt)');
  const accounts = [...new Set(statements.map(accountOf).filter((a) => a !== ''))];
  if (accounts.length > 1) {
    throw invalid(`the camt.053 file holds statements of ${accounts.length} accounts (${accounts.map((a) => a.slice(0, 40)).join(', ')}); import one account at a time`);
  }

  const statement: ParsedStatement = { lines: [], errors: [] };
  let n = 0;
  for (const entry of statements.flatMap((s) => children(s, 'Ntry'))) {
    n++;
    if (!collectLine(statement, n, `Ntry ${n}`, () => readEntry(entry))) break;
  }
  const opening = statedBalance(statements, 0, ['OPBD', 'PRCD']);
  const closing = statedBalance(statements, statements.length - 1, ['CLBD']);
  if (opening || closing) statement.balances = { opening, closing };
  return statement;
}

/**
 * D16 statement balances: the first Bal of Stmt `index` whose type code is one of `codes` (OPBD
 * or PRCD open a statement, CLBD closes it; CLAV, ITBD and the rest are not balances of the
 * book), signed by its CdtDbtInd. A Bal that cannot be read refuses the file, naming it: it is
 * no line to leave out.
 */
function statedBalance(statements: readonly XmlValue[], index: number, codes: readonly string[]): StatedBalance | null {
  const balances = children(statements[index], 'Bal');
  const k = balances.findIndex((b) => codes.includes(textOf(at(b, 'Tp', 'CdOrPrtry', 'Cd'))?.trim() ?? ''));
  if (k === -1) return null;
  const balance = balances[k]!;
  const field = (...path: string[]) => textOf(at(balance, ...path))?.trim() ?? '';
  try {
    const direction = field('CdtDbtInd');
    if (direction !== 'CRDT' && direction !== 'DBIT') {
      throw lineFault(direction === '' ? 'CdtDbtInd is missing' : `CdtDbtInd ${shown(direction)} is neither CRDT nor DBIT`);
    }
    const amount = parsePlainAmount('Amt', field('Amt'), false);
    const written = field('Dt', 'Dt') || field('Dt', 'DtTm');
    if (written === '') throw lineFault('Dt is missing');
    return { on: parseIsoDate('Dt', written), amount_cents: direction === 'CRDT' || amount === 0 ? amount : -amount };
  } catch (error) {
    if (error instanceof LineFault) throw invalid(`Stmt ${index + 1} Bal ${k + 1} (${field('Tp', 'CdOrPrtry', 'Cd')}): ${error.message}`);
    throw error;
  }
}

/**
 * The namespace <Document> is in: its default namespace, else (a prefixed `<ns2:Document>`, the
 * prefix dropped in parsing) the camt.053 namespace among those it declares, else the first.
 */
function namespaceOf(document: XmlValue | undefined): string | undefined {
  if (document === undefined || typeof document === 'string' || Array.isArray(document)) return undefined;
  const declared = (name: string) => (typeof document[name] === 'string' ? (document[name] as string).trim() : undefined);
  const prefixed = Object.keys(document).filter((name) => name.startsWith('@_xmlns:')).map(declared).filter((ns) => ns !== undefined);
  return declared('@_xmlns') ?? prefixed.find((ns) => CAMT_053.test(ns)) ?? prefixed[0];
}

function accountOf(statement: XmlValue): string {
  const id = at(statement, 'Acct', 'Id');
  return (textOf(child(id, 'IBAN')) ?? textOf(at(id, 'Othr', 'Id')) ?? '').replace(/\s+/g, '');
}

function readEntry(entry: XmlValue) {
  const field = (...path: string[]) => textOf(at(entry, ...path))?.trim() ?? '';
  const direction = field('CdtDbtInd');
  if (direction !== 'CRDT' && direction !== 'DBIT') {
    throw lineFault(direction === '' ? 'CdtDbtInd is missing' : `CdtDbtInd ${shown(direction)} is neither CRDT nor DBIT`);
  }
  const amount = parsePlainAmount('Amt', field('Amt'), false);
  return {
    occurred_on: bookingDate(entry),
    // 0 stays 0, never -0.
    amount_cents: direction === 'CRDT' || amount === 0 ? amount : -amount,
    description: cleanDescription(describe(entry, direction), 'the description is empty: there is no party name, Ustrd or AddtlNtryInf'),
    reference: field('AcctSvcrRef') || field('NtryRef') || null,
    ...counterpartyOf(entry, direction),
  };
}

/**
 * D27 payments in: the other party of an entry (the debtor for money in, the creditor for money
 * out, as describe() reads it): RltdPties DbtrAcct/CdtrAcct Id/IBAN and Dbtr/Cdtr Nm (Pty/Nm from
 * 001.08). A batch entry whose transactions name different parties names none: it is no one
 * person's payment.
 */
function counterpartyOf(entry: XmlValue, direction: 'CRDT' | 'DBIT') {
  const party = direction === 'CRDT' ? 'Dbtr' : 'Cdtr';
  const parties = children(entry, 'NtryDtls').flatMap((details) => children(details, 'TxDtls')).map((tx) => {
    const related = at(tx, 'RltdPties');
    const named = child(related, party);
    return counterparty(textOf(at(related, `${party}Acct`, 'Id', 'IBAN')), textOf(child(named, 'Nm')) ?? textOf(at(named, 'Pty', 'Nm')));
  });
  const agreed = (values: (string | undefined)[]) => {
    const given = new Set(values.filter((value) => value !== undefined));
    return given.size === 1 ? [...given][0] : undefined;
  };
  return counterparty(agreed(parties.map((p) => p.counterparty_iban)), agreed(parties.map((p) => p.counterparty_name)));
}

/** BookgDt (Dt or DtTm), else ValDt: the date part, as the bank wrote it. */
function bookingDate(entry: XmlValue): string {
  for (const [element, kind] of [['BookgDt', 'Dt'], ['BookgDt', 'DtTm'], ['ValDt', 'Dt'], ['ValDt', 'DtTm']] as const) {
    const value = textOf(at(entry, element, kind))?.trim();
    if (value) return parseIsoDate(`${element}/${kind}`, value);
  }
  throw lineFault('there is no booking date (BookgDt) or value date (ValDt)');
}

/**
 * D16 description of an entry: for each transaction (NtryDtls/TxDtls) the other party's name (the
 * debtor's for money in, the creditor's for money out; `Nm` up to 001.07, `Pty/Nm` from 001.08) and
 * its unstructured remittance lines (Ustrd, which may repeat: one text, joined by spaces), joined
 * by DESCRIPTION_JOINER; several transactions of one entry (a batch) joined by "; ". Without any of
 * them, the entry's AddtlNtryInf.
 */
function describe(entry: XmlValue, direction: 'CRDT' | 'DBIT'): string {
  const party = direction === 'CRDT' ? 'Dbtr' : 'Cdtr';
  const transactions = children(entry, 'NtryDtls').flatMap((details) => children(details, 'TxDtls'));
  const texts = transactions.map((tx) => {
    const related = at(tx, 'RltdPties', party);
    const name = textOf(child(related, 'Nm')) ?? textOf(at(related, 'Pty', 'Nm'));
    const remittance = children(at(tx, 'RmtInf'), 'Ustrd').map(textOf).filter((t) => t !== undefined).join(' ');
    return joinTexts([name, remittance]);
  });
  return joinTexts(texts, '; ') || (textOf(child(entry, 'AddtlNtryInf')) ?? '');
}
