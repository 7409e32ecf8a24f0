import { electronicFormatIBAN, isValidBIC } from 'ibantools';
import SEPA from 'sepa';
import * as v from 'valibot';
import { ibanProblem } from './people';

// D27's direct debit: the club's creditor details (Settings' `sepa`) and the EPC's rules for the
// text of a SEPA file. The checks are the bank's: an IBAN by country length and ISO 13616 mod-97
// (ibantools, as a person's), a creditor identifier by its ISO 7064 mod-97 check digits (sepa.js).

/** The EPC's Latin character set for SEPA messages (EPC217-08): what a bank takes everywhere. */
const EPC_CHARACTERS = /[^A-Za-z0-9/?:().,'+\- ]/g;

/**
 * A text in the EPC's characters: `ä ö ü` → `ae oe ue` (capitals `Ae Oe Ue`), `ß` → `ss`, other
 * letters lose their accents, anything else becomes a space (D27); runs of spaces are one, and the
 * ends are trimmed. "Müller & Söhne <GbR>" → "Mueller Soehne GbR".
 */
export function epcText(text: string): string {
  return text
    .replace(/[äöüÄÖÜß]/g, (c) => ({ ä: 'ae', ö: 'oe', ü: 'ue', Ä: 'Ae', Ö: 'Oe', Ü: 'Ue', ß: 'ss' })[c]!)
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(EPC_CHARACTERS, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
}

/** What a creditor identifier looks like (EPC262-08): country, two check digits, business code, national id. */
const CREDITOR_ID = /^[A-Z]{2}[0-9]{2}[A-Z0-9]{3}[A-Z0-9]{1,28}$/;

const text = (field: string, max: number) =>
  v.pipe(
    v.string(`sepa.${field} must be text`),
    v.transform((s) => s.trim()),
    v.minLength(1, `sepa.${field} must not be empty`),
    v.check((s) => epcText(s).length > 0, `sepa.${field} must hold letters or digits`),
    v.check((s) => [...s].length <= max, `sepa.${field} has at most ${max} characters`),
  );

/** Settings' `sepa` as PUT /settings takes it (D27; a bad field is the settings' 422, naming it). */
export const SepaCreditorSchema = v.strictObject(
  {
    creditor_name: text('creditor_name', 70),
    creditor_iban: v.pipe(
      v.string('sepa.creditor_iban must be text'),
      v.transform((s) => electronicFormatIBAN(s) ?? ''),
      v.check((s) => /^[A-Z0-9]{5,34}$/.test(s), 'sepa.creditor_iban must be an IBAN: a country code, two check digits and up to 30 letters or digits'),
      v.rawCheck(({ dataset, addIssue }) => {
        if (!dataset.typed) return;
        const problem = ibanProblem(dataset.value);
        if (problem) addIssue({ message: `sepa.creditor_${problem}` });
      }),
    ),
    creditor_bic: v.optional(
      v.pipe(
        v.string('sepa.creditor_bic must be text'),
        v.transform((s) => s.replace(/\s/g, '').toUpperCase()),
        v.check((s) => isValidBIC(s), 'sepa.creditor_bic must be a BIC of 8 or 11 letters and digits'),
      ),
    ),
    creditor_id: v.pipe(
      v.string('sepa.creditor_id must be text'),
      v.transform((s) => s.replace(/\s/g, '').toUpperCase()),
      v.check((s) => CREDITOR_ID.test(s), 'sepa.creditor_id must be a creditor identifier such as DE98ZZZ09999999999'),
      v.check((s) => SEPA.validateCreditorID(s), "sepa.creditor_id's check digits are wrong"),
    ),
  },
  'sepa must be {creditor_name, creditor_iban, creditor_bic?, creditor_id} or null',
);
export type SepaCreditor = v.InferOutput<typeof SepaCreditorSchema>;
