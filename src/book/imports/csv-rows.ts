import { invalid } from '../../errors';

// D16: the rows of a CSV file (RFC 4180, as banks bend it), each with the physical line it starts
// on. Not csv-parse: with `relax_column_count` (needed, rows of banks' files differ in length)
// csv-parse 7 builds a CsvError, its context deep-copied through JSON, for every row whose length
// differs from the first row's: about 17 µs a row, so 1 MiB of short rows took seconds. This is
// one pass, each character looked at once.

/** A row and the physical line it starts on (a quoted field may run over several). */
export interface CsvRow {
  cells: string[];
  line: number;
}

const QUOTE = 0x22;
const NEWLINE = 0x0a;

/**
 * The non-blank rows of `text` (line breaks all `\n`; its first line is line `firstLine`): a row
 * of empty or blank fields is left out, as are blank lines. A field quoted from its first
 * character may hold the delimiter, line breaks and doubled quotes, and whatever follows its
 * closing quote up to the next delimiter is kept; a quote anywhere else is an ordinary character
 * (`12" screen`). A quoted field never closed refuses the file, naming the line where it opens.
 */
export function csvRows(text: string, delimiter: string, firstLine: number): CsvRow[] {
  const separator = delimiter.charCodeAt(0);
  const rows: CsvRow[] = [];
  let line = firstLine;
  let i = 0;
  while (i < text.length) {
    const start = line;
    const cells: string[] = [];
    let rowEnded = false;
    while (!rowEnded) {
      let value = '';
      if (text.charCodeAt(i) === QUOTE) {
        const opened = line;
        i++;
        for (;;) {
          const close = text.indexOf('"', i);
          if (close === -1) throw invalid(`line ${opened}: a quoted field opens here and is never closed`);
          value += text.slice(i, close);
          line += lineBreaks(text, i, close);
          if (text.charCodeAt(close + 1) === QUOTE) {
            value += '"';
            i = close + 2;
          } else {
            i = close + 1;
            break;
          }
        }
      }
      const from = i;
      while (i < text.length && text.charCodeAt(i) !== separator && text.charCodeAt(i) !== NEWLINE) i++;
      value += text.slice(from, i);
      cells.push(value);
      if (i >= text.length || text.charCodeAt(i) === NEWLINE) rowEnded = true;
      if (i < text.length && text.charCodeAt(i) === NEWLINE) line++;
      i++;
    }
    if (cells.some((cell) => cell.trim() !== '')) rows.push({ cells, line: start });
  }
  return rows;
}

/** Line breaks between `from` and `to`, looking no further. */
function lineBreaks(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = from; at < to; at++) if (text.charCodeAt(at) === NEWLINE) count++;
  return count;
}
