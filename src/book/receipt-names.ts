// D22, names that travel (issue 37 item 3): a receipt's name is cut to fit (200 characters when
// stored, 255 bytes of UTF-8 as a ZIP entry) without losing its extension and without splitting
// what a reader sees as one character: a flag, a letter with its accents, an emoji with its skin
// tone are one grapheme cluster of several code points, and a cut through one leaves a stray mark.

const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });

/** An extension is the last `.` and 1–10 letters or digits (`.pdf`, `.jpeg`, `.HEIC`): `v1.2 final` has none. */
const EXTENSION = /\.[\p{L}\p{N}]{1,10}$/u;

/** `name` as its part before the extension and the extension with its dot (`''` when it has none). */
export function splitExtension(name: string): [stem: string, extension: string] {
  const found = EXTENSION.exec(name);
  return found && found.index > 0 ? [name.slice(0, found.index), found[0]] : [name, ''];
}

/** How many characters (code points, as D6 and D22 count them) `text` has. */
export const codePoints = (text: string) => [...text].length;
/** How many bytes `text` takes in UTF-8, as a file system counts a name. */
export const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** The longest start of `text` made of whole grapheme clusters whose `size` is at most `limit`. */
export function cutToGraphemes(text: string, limit: number, size: (piece: string) => number): string {
  let kept = '';
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    used += size(segment);
    if (used > limit) break;
    kept += segment;
  }
  return kept;
}

/**
 * `name` in at most `limit` (measured by `size`), the cut falling in the part before the
 * extension, on a grapheme boundary, with trailing spaces dropped; a name whose first grapheme
 * alone is too long (hundreds of combining marks) becomes `receipt` and its extension.
 */
export function shortenedName(name: string, limit: number, size: (piece: string) => number): string {
  if (size(name) <= limit) return name;
  const [stem, extension] = splitExtension(name);
  const kept = cutToGraphemes(stem, limit - size(extension), size).trimEnd();
  return `${kept || 'receipt'}${extension}`;
}
