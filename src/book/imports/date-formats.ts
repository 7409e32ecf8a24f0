// D16: the date formats a CSV statement may be written in, in the order D16 lists them (the order
// that breaks ties when the formats are tried on a file's dates). Pure, with no imports, so that
// the response shapes (src/book/views.ts) and the web app take the one list.

export const DATE_FORMATS = ['YYYY-MM-DD', 'DD.MM.YYYY', 'DD/MM/YYYY', 'MM/DD/YYYY'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

/** D16: no format named; the file's own dates decide, or the person does. */
export const DATE_FORMAT_AUTO = 'auto';
