import SEPA from 'sepa';
import * as v from 'valibot';
import type { Db } from '../db/database';
import { conflict } from '../errors';
import { collectionForFile } from './direct-debits';
import { epcText } from './sepa';

// D27: the bank file of a collection, ISO 20022 pain.008 (SEPA Core, recurrent), written by
// sepa.js (kewisch/sepa.js), which escapes the XML and checks IBANs, creditor ids and id lengths.
// One PmtInf; a DrctDbtTxInf per person as the collection recorded them; no BIC inside the EEA
// (the agents say NOTPROVIDED). 001.08 by default; 001.02 for a bank that still asks for it.

export const PAIN_VERSIONS = ['001.08', '001.02'] as const;

export const Pain008QuerySchema = v.object({
  version: v.optional(v.picklist(PAIN_VERSIONS, 'version must be 001.08 or 001.02'), '001.08'),
});

/** A date `YYYY-MM-DD` as the local midnight sepa.js formats back to the same day. */
const localDay = (day: string) => {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(y!, m! - 1, d!);
};

/** `GET /direct-debits/{id}/pain.008.xml`: the file to hand to the bank. */
export async function pain008File(db: Db, id: number, version: (typeof PAIN_VERSIONS)[number], now = new Date()): Promise<string> {
  const { head, items, sepa, currency } = await collectionForFile(db, id);
  if (!sepa) throw conflict('enter the club\'s creditor details first (Settings: name, IBAN and creditor identifier)');
  if (currency !== 'EUR') throw conflict(`SEPA direct debit collects euros; this book keeps ${currency}`);
  const forgotten = items.find((i) => !i.debtorIban || !i.mandateId || !i.mandateSignedOn);
  if (forgotten) throw conflict(`the file can no longer be made: the IBAN and mandate of ${forgotten.debtorName} were forgotten since the collection`);
  const creditor = epcText(sepa.creditor_name).slice(0, 70).trimEnd();
  const doc = new SEPA.Document(`pain.008.${version}`);
  doc.grpHdr.id = head.messageId;
  doc.grpHdr.created = now;
  doc.grpHdr.initiatorName = creditor;
  const info = doc.createPaymentInfo();
  // sepa.js prefixes the message id: `<MsgId>.P1`, and `<MsgId>.P1.<n>` for each instruction id.
  info.id = 'P1';
  info.collectionDate = localDay(head.collectOn);
  info.creditorName = creditor;
  info.creditorIBAN = sepa.creditor_iban;
  info.creditorBIC = sepa.creditor_bic ?? '';
  info.creditorId = sepa.creditor_id;
  info.localInstrumentation = 'CORE';
  info.sequenceType = 'RCUR';
  info.batchBooking = true;
  doc.addPaymentInfo(info);
  for (const item of items) {
    const tx = info.createTransaction();
    tx.debtorName = item.debtorName;
    tx.debtorIBAN = item.debtorIban!;
    tx.mandateId = item.mandateId!;
    tx.mandateSignatureDate = localDay(item.mandateSignedOn!);
    // sepa.js takes euros as a number: cents / 100 is exact to the cent it prints (toFixed(2)).
    tx.amount = item.amountCents / 100;
    tx.currency = 'EUR';
    tx.remittanceInfo = item.remittance;
    tx.end2endId = item.endToEndId;
    info.addTransaction(tx);
  }
  try {
    return doc.toString();
  } catch (error) {
    // sepa.js checks what a bank would refuse (an id starting with "/" or holding "//", a bad IBAN):
    // said in its words, as a refusal, never a 500.
    throw conflict(`the bank file cannot be made: ${(error as Error).message}`);
  }
}
