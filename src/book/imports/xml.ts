import { XMLParser, XMLValidator, type EntityDecoderOptions } from 'fast-xml-parser';
import { invalid, Refusal } from '../../errors';
import { lineAt, shown } from './statement';

// D16: XML statements (camt.053, OFX 2 and the XML that OFX 1 is turned into) read safely.
// Nothing a file declares is ever expanded: a DOCTYPE or ENTITY declaration refuses the file before
// any parsing (no billion laughs, no external entity), and the entity decoder handed to
// fast-xml-parser knows only what XML itself defines: the five predefined entities and numeric
// character references. (fast-xml-parser's own decoder, in v5, leaves numeric references undecoded
// unless `htmlEntities` is on, and that adds the HTML names, which XML does not have.)

/** A parsed element: its children by name (an array where one may repeat), its attributes as `@_name`, its text as `#text`. */
export interface XmlElement {
  [name: string]: XmlValue | undefined;
}
export type XmlValue = string | XmlElement | XmlValue[];

/** Refuses a DOCTYPE or an ENTITY declaration anywhere in the file, naming its line. */
export function refuseDeclarations(text: string): void {
  const found = /<!(DOCTYPE|ENTITY)/i.exec(text);
  if (!found) return;
  const what = found[1]!.toUpperCase() === 'DOCTYPE' ? 'DOCTYPE is' : 'ENTITY declarations are';
  throw invalid(`line ${lineAt(text, found.index)}: ${what} not allowed in a statement file (entities are never expanded)`);
}

/**
 * Refuses a file that is not well-formed XML, naming the line where it broke; a file that ends
 * with elements still open (cut short) names its last line and the innermost element open.
 */
export function checkWellFormed(text: string): void {
  const start = text.search(/\S/);
  if (start === -1) throw invalid('the file is empty');
  if (text[start] !== '<') throw invalid(`line ${lineAt(text, start)}: the file is not XML (it does not start with "<")`);
  const result = XMLValidator.validate(text);
  if (result === true) return;
  const { msg, line } = result.err;
  const unclosed = openAtEnd(msg);
  if (unclosed) throw invalid(`line ${lineAt(text, text.trimEnd().length)}: the file ends before <${unclosed}> is closed (is it cut short?)`);
  throw invalid(`line ${line}: the file is not well-formed XML: ${msg.charAt(0).toLowerCase()}${msg.slice(1).replace(/\.$/, '')}`);
}

/**
 * The innermost element still open when the validator reached the end of the file, read from its
 * two messages for that case ("Unclosed tag 'x'." and "Invalid '["a", "x"]' found."): fast-xml-parser
 * reports no line for them, and names the open elements only in the message.
 */
function openAtEnd(message: string): string | undefined {
  const single = /^Unclosed tag '([^']*)'\.$/.exec(message);
  if (single) return single[1];
  const many = /^Invalid '(\[[^']*\])' found\.$/.exec(message);
  if (!many) return undefined;
  try {
    const names: unknown = JSON.parse(many[1]!);
    return Array.isArray(names) && typeof names.at(-1) === 'string' ? (names.at(-1) as string) : undefined;
  } catch {
    return undefined;
  }
}

const PREDEFINED = new Map([['amp', '&'], ['lt', '<'], ['gt', '>'], ['quot', '"'], ['apos', "'"]]);

/** Code points XML allows in a document (XML 1.0 §2.2 Char). */
const isXmlChar = (c: number) =>
  c === 0x9 || c === 0xa || c === 0xd || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);

/** Longer than any reference XML knows (`&#x10FFFF;`, with some leading zeros): the look for `;` stops there. */
const REFERENCE_MAX = 16;

/**
 * Text with XML's references decoded: `&amp;` `&lt;` `&gt;` `&quot;` `&apos;`, `&#233;` and
 * `&#xE9;`. Any other entity, or a reference to a character XML does not allow, is refused. One
 * pass, a bounded look at each `&`.
 */
export function decodeReferences(text: string): string {
  let amp = text.indexOf('&');
  if (amp === -1) return text;
  let out = '';
  let from = 0;
  while (amp !== -1) {
    const end = text.slice(amp + 1, amp + 1 + REFERENCE_MAX).indexOf(';');
    if (end > 0) {
      const name = text.slice(amp + 1, amp + 1 + end);
      out += text.slice(from, amp) + referenced(name);
      from = amp + end + 2;
    }
    amp = text.indexOf('&', Math.max(from, amp + 1));
  }
  return out + text.slice(from);
}

function referenced(name: string): string {
  const predefined = PREDEFINED.get(name);
  if (predefined !== undefined) return predefined;
  const numeric = /^#(?:x([0-9A-Fa-f]+)|([0-9]+))$/.exec(name);
  if (!numeric) throw invalid(`the entity ${shown(`&${name};`)} is not defined: XML has only &amp; &lt; &gt; &quot; and &apos;`);
  const code = numeric[1] !== undefined ? Number.parseInt(numeric[1], 16) : Number.parseInt(numeric[2]!, 10);
  if (!isXmlChar(code)) throw invalid(`the character reference ${shown(`&${name};`)} is not a character XML allows`);
  return String.fromCodePoint(code);
}

/** fast-xml-parser's entity decoder, replaced: XML's own references only, and a declared entity never taken. */
const XML_REFERENCES: EntityDecoderOptions = {
  decode: decodeReferences,
  addInputEntities: () => {
    throw invalid('DOCTYPE is not allowed in a statement file');
  },
  setExternalEntities: () => {},
  reset: () => {},
  setXmlVersion: () => {},
};

/**
 * A well-formed document as plain objects: values as strings (never turned into numbers: `007`
 * stays `007`), attributes kept, namespace prefixes dropped from element names, the elements in
 * `repeating` always arrays. A failure of the parser itself (nesting deeper than 100, a name like
 * `__proto__`) is a refusal, never a 500.
 */
export function parseXml(text: string, repeating: ReadonlySet<string>): XmlElement {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    parseTagValue: false,
    parseAttributeValue: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    processEntities: true,
    htmlEntities: false,
    entityDecoder: XML_REFERENCES,
    transformTagName: (name) => name.slice(name.indexOf(':') + 1),
    isArray: (name) => repeating.has(name),
  });
  try {
    return parser.parse(text) as XmlElement;
  } catch (error) {
    if (error instanceof Refusal) throw error;
    throw invalid(`the XML cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The child element `name` (the first, when it repeats); own properties only, never the prototype's. */
export function child(node: XmlValue | undefined, name: string): XmlValue | undefined {
  const element = Array.isArray(node) ? node[0] : node;
  if (element === undefined || typeof element === 'string' || Array.isArray(element) || !Object.hasOwn(element, name)) return undefined;
  const value = element[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Every child element `name`, in document order. */
export function children(node: XmlValue | undefined, name: string): XmlValue[] {
  if (node === undefined || typeof node === 'string' || Array.isArray(node) || !Object.hasOwn(node, name)) return [];
  const value = node[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** The element at a path of child names. */
export function at(node: XmlValue | undefined, ...path: string[]): XmlValue | undefined {
  return path.reduce<XmlValue | undefined>((n, name) => child(n, name), node);
}

/** An element's text (an element holding only text is its string; one with attributes keeps it as `#text`). */
export function textOf(node: XmlValue | undefined): string | undefined {
  if (typeof node === 'string') return node;
  if (node === undefined || Array.isArray(node)) return undefined;
  const text = Object.hasOwn(node, '#text') ? node['#text'] : undefined;
  return typeof text === 'string' ? text : undefined;
}
