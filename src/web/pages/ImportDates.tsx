import { DATE_FORMATS, type DateFormat } from '../../book/imports/date-formats';
import { formatDate } from '../money';

// D16, dates a person cannot be sure of: when a statement's dates fit several formats the API
// refuses to guess (400 with `candidates`) and so does this page: it shows the file's own dates
// read each way, side by side, and previews only once the person has said which is meant.

const PATTERNS: Record<DateFormat, RegExp> = {
  'YYYY-MM-DD': /^(?<y>\d{4})-(?<m>\d{1,2})-(?<d>\d{1,2})$/,
  'DD.MM.YYYY': /^(?<d>\d{1,2})\.(?<m>\d{1,2})\.(?<y>\d{4})$/,
  'DD/MM/YYYY': /^(?<d>\d{1,2})\/(?<m>\d{1,2})\/(?<y>\d{4})$/,
  'MM/DD/YYYY': /^(?<m>\d{1,2})\/(?<d>\d{1,2})\/(?<y>\d{4})$/,
};

/** `text` read in `format` as YYYY-MM-DD, or null when it is no date in it. */
function readAs(text: string, format: DateFormat): string | null {
  const g = PATTERNS[format].exec(text.trim())?.groups;
  if (!g) return null;
  const iso = `${g['y']}-${g['m']!.padStart(2, '0')}-${g['d']!.padStart(2, '0')}`;
  const day = new Date(`${iso}T00:00:00Z`);
  return Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== iso ? null : iso;
}

const NAMES: Record<DateFormat, string> = {
  'YYYY-MM-DD': 'year, month, day',
  'DD.MM.YYYY': 'day first',
  'DD/MM/YYYY': 'day first',
  'MM/DD/YYYY': 'month first',
};

/** How many of the file's dates are shown read each way: enough to see the difference. */
const EXAMPLES = 3;

export function DateChoice({ dates, candidates, onChoose }: { dates: string[]; candidates: string[]; onChoose(format: DateFormat): void }) {
  const formats = DATE_FORMATS.filter((f) => candidates.includes(f));
  const examples = [...new Set(dates.map((d) => d.trim()))]
    .filter((d) => new Set(formats.map((f) => readAs(d, f))).size > 1)
    .slice(0, EXAMPLES);
  const reading = (d: string, f: DateFormat) => {
    const iso = readAs(d, f);
    return iso === null ? '?' : formatDate(iso);
  };
  return (
    <fieldset className="stack date-choice">
      <legend>Which dates does the file mean?</legend>
      <p>The file’s dates can be read more than one way, so nothing is guessed:</p>
      <ul>
        {examples.map((d) => (
          <li key={d}>
            {d} → {formats.map((f) => reading(d, f)).join(' or ')}?
          </li>
        ))}
      </ul>
      <div className="row">
        {formats.map((f) => (
          <button key={f} type="button" onClick={() => onChoose(f)}>
            {`${NAMES[f][0]!.toUpperCase()}${NAMES[f].slice(1)} (${f}): ${examples.map((d) => reading(d, f)).join(', ')}`}
          </button>
        ))}
      </div>
    </fieldset>
  );
}
