import { invalid } from '../../errors';
import { shown } from './statement';

// D16: OFX 1.x is SGML, whose leaf elements need no end tag (`<TRNAMT>-12.30` then the next tag);
// OFX 2.x is XML. This one pass turns either body (from `<OFX>` on) into XML for fast-xml-parser:
//   - a leaf element is a tag followed by text up to the next `<`: its end tag is added there
//     unless the file has it;
//   - an element left open with no text when an enclosing element ends was an empty leaf
//     (`<MEMO>` with nothing after it): it becomes `<MEMO/>`, and what followed it its siblings;
//   - tag names are upper-cased (SGML names are case-insensitive), attributes, comments and
//     processing instructions dropped, an `&` that starts no XML reference escaped (`AT&T`),
//     CDATA turned into escaped text;
//   - anything it cannot make well-formed (an end tag that closes nothing, a name that is not a
//     name, a tag or comment never closed, a file that ends inside an element, an aggregate such as
//     LEDGERBAL whose end tag is missing) is refused here, naming the file's line and the element.
// One pass over the text, no pattern that backtracks: linear in the file's size.

interface Open {
  name: string;
  /** Where its start tag is in the output, to be made `<NAME/>` when it turns out an empty leaf. */
  at: number;
  /** The file's line of its start tag. */
  line: number;
  /** An element has started inside it. */
  holds: boolean;
}

/**
 * The OFX aggregates a statement holds (OFX 1.6 and 2.x, banking and credit card): elements made
 * of other elements, whose end tag SGML OFX requires too. One left open, with elements in it, when
 * an enclosing element ends is no empty leaf: taking it for one would make its children its
 * siblings, and a LEDGERBAL read so "has no DTASOF" though the file has one (issue 37 item 10).
 * An empty one left open loses nothing and is read as empty.
 */
const AGGREGATES = new Set([
  'OFX', 'SIGNONMSGSRSV1', 'SONRS', 'STATUS', 'FI',
  'BANKMSGSRSV1', 'STMTTRNRS', 'STMTRS', 'CREDITCARDMSGSRSV1', 'CCSTMTTRNRS', 'CCSTMTRS',
  'BANKACCTFROM', 'BANKACCTTO', 'CCACCTFROM', 'CCACCTTO', 'CURRENCY', 'ORIGCURRENCY',
  'BANKTRANLIST', 'STMTTRN', 'PAYEE', 'LEDGERBAL', 'AVAILBAL', 'BALLIST', 'BAL',
]);

const NAME = /^[A-Za-z][A-Za-z0-9._-]*$/;
/** An `&` not starting `&amp;` `&lt;` `&gt;` `&quot;` `&apos;` or a numeric reference. */
const BARE_AMPERSAND = /&(?!(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9A-Fa-f]+);)/g;

const lineBreaks = (text: string): number => {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return count;
};

/** `body` starts at `<OFX>`, on line `firstLine` of the file. */
export function ofxToXml(body: string, firstLine: number): string {
  const out: string[] = [];
  const open: Open[] = [];
  /** The innermost open element has text (a leaf): any tag but its own end tag ends it. */
  let leaf = false;
  let line = firstLine;
  let i = 0;

  const closeLeaf = () => {
    out.push(`</${open.pop()!.name}>`);
    leaf = false;
  };
  const addText = (text: string, escaped: string) => {
    const start = text.search(/\S/);
    if (start !== -1) {
      if (open.length === 0) {
        throw invalid(`line ${line + lineBreaks(text.slice(0, start))}: text ${shown(text.trim())} stands outside any OFX element`);
      }
      leaf = true;
    }
    out.push(escaped);
    line += lineBreaks(text);
  };

  while (i < body.length && !(open.length === 0 && out.length > 0)) {
    const lt = body.indexOf('<', i);
    const textEnd = lt === -1 ? body.length : lt;
    if (textEnd > i) {
      const text = body.slice(i, textEnd);
      addText(text, text.replace(BARE_AMPERSAND, '&amp;'));
    }
    if (lt === -1) break;

    if (body.startsWith('<!--', lt)) {
      const end = body.indexOf('-->', lt + 4);
      if (end === -1) throw invalid(`line ${line}: a comment is never closed`);
      line += lineBreaks(body.slice(lt, end));
      i = end + 3;
      continue;
    }
    if (body.startsWith('<![CDATA[', lt)) {
      const end = body.indexOf(']]>', lt + 9);
      if (end === -1) throw invalid(`line ${line}: a CDATA section is never closed`);
      const text = body.slice(lt + 9, end);
      addText(text, text.replaceAll('&', '&amp;').replaceAll('<', '&lt;'));
      i = end + 3;
      continue;
    }
    const gt = body.indexOf('>', lt);
    if (gt === -1) throw invalid(`line ${line}: the file ends inside a tag (is it cut short?)`);
    const tag = body.slice(lt + 1, gt);
    i = gt + 1;
    if (tag.startsWith('?')) {
      line += lineBreaks(tag);
      continue;
    }
    const closing = tag.startsWith('/');
    const empty = !closing && tag.endsWith('/');
    const name = (closing ? tag.slice(1) : empty ? tag.slice(0, -1) : tag).trim().split(/\s/, 1)[0]!.toUpperCase();
    if (!NAME.test(name)) throw invalid(`line ${line}: ${shown(`<${tag}>`)} is not an OFX tag`);

    if (closing) {
      closeElement(name);
    } else {
      if (leaf) closeLeaf();
      const parent = open.at(-1);
      if (parent) parent.holds = true;
      if (empty) out.push(`<${name}/>`);
      else {
        open.push({ name, at: out.length, line, holds: false });
        out.push(`<${name}>`);
      }
    }
    line += lineBreaks(tag);
  }

  if (leaf) closeLeaf();
  const unclosed = open.at(-1);
  if (unclosed) throw invalid(`line ${firstLine + lineBreaks(body.trimEnd())}: the file ends before <${unclosed.name}> is closed (is it cut short?)`);
  return out.join('');

  function closeElement(name: string): void {
    if (leaf && open.at(-1)!.name === name) return closeLeaf();
    if (leaf) closeLeaf();
    let k = open.length - 1;
    while (k >= 0 && open[k]!.name !== name) k--;
    if (k === -1) throw invalid(`line ${line}: </${name}> closes no open element`);
    while (open.length - 1 > k) {
      const inner = open.pop()!;
      if (AGGREGATES.has(inner.name) && inner.holds) throw invalid(`line ${inner.line}: <${inner.name}> is never closed: </${name}> on line ${line} comes before its </${inner.name}>`);
      out[inner.at] = `<${inner.name}/>`;
    }
    open.pop();
    out.push(`</${name}>`);
  }
}
