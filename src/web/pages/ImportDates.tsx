import { DATE_FORMATS, type DateFormat } from '../../book/imports/date-formats';
import { useTranslation } from 'react-i18next';
import { locale } from '../i18n';
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

/** Each format's name in words: its key under import.dates.names. */
const NAMES: Record<DateFormat, 'yearMonthDay' | 'dayFirst' | 'monthFirst'> = {
  'YYYY-MM-DD': 'yearMonthDay',
  'DD.MM.YYYY': 'dayFirst',
  'DD/MM/YYYY': 'dayFirst',
  'MM/DD/YYYY': 'monthFirst',
};

/** How many of the file's dates are shown read each way: enough to see the difference. */
const EXAMPLES = 3;

export function DateChoice({ dates, candidates, onChoose }: { dates: string[]; candidates: string[]; onChoose(format: DateFormat): void }) {
  const { t } = useTranslation();
  const formats = DATE_FORMATS.filter((f) => candidates.includes(f));
  const examples = [...new Set(dates.map((d) => d.trim()))]
    .filter((d) => new Set(formats.map((f) => readAs(d, f))).size > 1)
    .slice(0, EXAMPLES);
  const reading = (d: string, f: DateFormat) => {
    const iso = readAs(d, f);
    return iso === null ? '?' : formatDate(iso);
  };
  // "A or B" in the chosen language's own words for a choice.
  const either = new Intl.ListFormat(locale(), { type: 'disjunction' });
  return (
    <fieldset className="stack date-choice">
      <legend>{t('import.dates.legend')}</legend>
      <p>{t('import.dates.intro')}</p>
      <ul>
        {examples.map((d) => (
          <li key={d}>{t('import.dates.example', { date: d, readings: either.format(formats.map((f) => reading(d, f))) })}</li>
        ))}
      </ul>
      <div className="row">
        {formats.map((f) => (
          <button key={f} type="button" onClick={() => onChoose(f)}>
            {t('import.dates.option', { name: t(`import.dates.names.${NAMES[f]}`), format: f, examples: examples.map((d) => reading(d, f)).join(', ') })}
          </button>
        ))}
      </div>
    </fieldset>
  );
}
