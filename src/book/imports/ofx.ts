import { invalid } from '../../errors';
import { parsePlainAmount } from './amounts';
import { parseOfxDate } from './dates';
import { ofxToXml } from './ofx-sgml';
import { cleanDescription, collectLine, counterparty, joinTexts, lineAt, LineFault, lineFault, type ParsedStatement, type StatedBalance } from './statement';
import { at, child, children, parseXml, refuseDeclarations, textOf, type XmlValue } from './xml';

// D16: an OFX statement, 1.x (SGML, after its `OFXHEADER:100` header lines) or 2.x (XML, after
// `<?xml …?><?OFX …?>`), QFX (Quicken's OFX) alike. The header is not read: the content arrives as
// text already, whatever its CHARSET says. Each STMTTRN is a line, numbered in document order:
// DTPOSTED's date, TRNAMT, NAME and MEMO joined (statement.ts DESCRIPTION_JOINER), FITID as the
// bank's reference.

const REPEATING = new Set(['STMTTRNRS', 'STMTRS', 'CCSTMTTRNRS', 'CCSTMTRS', 'STMTTRN']);

interface Statement {
  body: XmlValue;
  account: string;
}

export function parseOfx(text: string): ParsedStatement {
  const start = text.search(/<OFX[\s>]/i);
  if (start === -1) {
    if (/<html[\s>]/i.test(text)) throw invalid('the file is a web page (HTML), not an OFX statement');
    throw invalid('the file is not an OFX statement: it has no <OFX> element');
  }
  refuseDeclarations(text);
  const firstLine = lineAt(text, start);
  // Well-formed by construction (ofx-sgml.ts checks the nesting and names, escapes the text), so
  // no second check by XMLValidator.
  const ofx = child(parseXml(ofxToXml(text.slice(start), firstLine), REPEATING), 'OFX');

  const statements = statementsOf(ofx);
  if (statements.length === 0) throw invalid('the OFX file holds no bank or credit card statement (STMTRS or CCSTMTRS)');
  const accounts = [...new Set(statements.map((s) => s.account).filter((a) => a !== ''))];
  if (accounts.length > 1) {
    throw invalid(`the OFX file holds statements of ${accounts.length} accounts (${accounts.map((a) => a.slice(0, 40)).join(', ')}); import one account at a time`);
  }

  const statement: ParsedStatement = { lines: [], errors: [] };
  let n = 0;
  for (const transaction of statements.flatMap((s) => transactionsOf(s.body))) {
    n++;
    if (!collectLine(statement, n, `STMTTRN ${n}`, () => readTransaction(transaction))) break;
  }
  const closing = ledgerBalance(statements.at(-1)!.body);
  if (closing) statement.balances = { opening: null, closing };
  return statement;
}

/**
 * D16 statement balances: OFX states the closing balance only, LEDGERBAL (BALAMT as of DTASOF)
 * of the last statement, signed as the account holder sees it (a card's debt negative). A
 * LEDGERBAL that cannot be read refuses the file, naming it.
 */
function ledgerBalance(body: XmlValue): StatedBalance | null {
  const balance = child(body, 'LEDGERBAL');
  if (balance === undefined) return null;
  const field = (name: string) => textOf(child(balance, name))?.trim() ?? '';
  try {
    const asOf = field('DTASOF');
    if (asOf === '') throw lineFault('DTASOF is missing');
    return { on: parseOfxDate('DTASOF', asOf), amount_cents: parsePlainAmount('BALAMT', field('BALAMT'), true) };
  } catch (error) {
    if (error instanceof LineFault) throw invalid(`LEDGERBAL: ${error.message}`);
    throw error;
  }
}

/** Bank statements (STMTRS) and credit card statements (CCSTMTRS), each with its account's ACCTID. */
function statementsOf(ofx: XmlValue | undefined): Statement[] {
  const bank = children(at(ofx, 'BANKMSGSRSV1'), 'STMTTRNRS').flatMap((r) => children(r, 'STMTRS'));
  const cards = children(at(ofx, 'CREDITCARDMSGSRSV1'), 'CCSTMTTRNRS').flatMap((r) => children(r, 'CCSTMTRS'));
  return [
    ...bank.map((body) => ({ body, account: textOf(at(body, 'BANKACCTFROM', 'ACCTID'))?.trim() ?? '' })),
    ...cards.map((body) => ({ body, account: textOf(at(body, 'CCACCTFROM', 'ACCTID'))?.trim() ?? '' })),
  ];
}

/**
 * Every STMTTRN of a statement in document order: those of BANKTRANLIST, and any an unclosed
 * element of a broken SGML file left elsewhere in the statement (never silently dropped).
 */
function transactionsOf(node: XmlValue | undefined): XmlValue[] {
  if (node === undefined || typeof node === 'string') return [];
  if (Array.isArray(node)) return node.flatMap(transactionsOf);
  return Object.keys(node).flatMap((name) => (name === 'STMTTRN' ? children(node, name) : name.startsWith('@_') ? [] : transactionsOf(node[name])));
}

function readTransaction(transaction: XmlValue) {
  const field = (...path: string[]) => textOf(at(transaction, ...path))?.trim() ?? '';
  const posted = field('DTPOSTED');
  if (posted === '') throw lineFault('DTPOSTED is missing');
  return {
    occurred_on: parseOfxDate('DTPOSTED', posted),
    amount_cents: parsePlainAmount('TRNAMT', field('TRNAMT'), true),
    description: cleanDescription(joinTexts([field('NAME') || field('PAYEE', 'NAME'), field('MEMO')]), 'the description is empty: there is no NAME or MEMO'),
    reference: field('FITID') || null,
    // D27: OFX names the other party (NAME, or PAYEE/NAME) but gives no IBAN.
    ...counterparty(undefined, field('NAME') || field('PAYEE', 'NAME')),
  };
}
