-- Issue 36 items 4 and 5 (D22, D20): receipts.

-- A receipt is read in pieces (GET /attachments/{id}: `substring(bytes from … for …)`, one
-- statement a piece, so a download holds neither the whole file nor a connection). EXTERNAL keeps
-- the bytes out of line and uncompressed, so a piece reads only its own TOAST chunks; compressed,
-- each piece would decompress everything before it. Photos and PDFs are compressed already. Rows
-- written before keep their form until rewritten: they are read correctly, only slower.
ALTER TABLE "attachments" ALTER COLUMN "bytes" SET STORAGE EXTERNAL;
--> statement-breakpoint
-- Pieces read by separate statements are one file only if the row never changes: a receipt is
-- added or removed, never altered. SQLSTATE LR003; no route writes these columns.
CREATE FUNCTION ledger_refuse_receipt_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'a receipt is never altered: remove it and add another' USING ERRCODE = 'LR003';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER attachments_unaltered
  BEFORE UPDATE OF "bytes", "sha256", "size", "content_type", "transaction_id" ON "attachments"
  FOR EACH ROW
  EXECUTE FUNCTION ledger_refuse_receipt_change();
--> statement-breakpoint
-- D22 with D20: a receipt of a transaction dated in a closed period, or of a reconciled
-- transaction, stays (LR002, LR001, as for the transaction itself), whoever removes it. The
-- transaction's row is locked as a correction locks it (src/book/corrections.ts): a reconciliation
-- holds the rows it marks FOR SHARE (src/book/reconciliation.ts) until it commits, so a removal
-- racing it waits, then reads the marks in a statement that begins after the lock was granted, and
-- is refused; or it goes first and the reconciliation waits for it. The closed date is read under
-- D20's lock by ledger_refuse_closed (migration 0008). A receipt of a deleted transaction (kept for
-- D15's restore) may always be removed.
CREATE FUNCTION ledger_receipt_removable() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  on_date date;
BEGIN
  SELECT occurred_on INTO on_date FROM transactions WHERE id = OLD.transaction_id FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RETURN OLD;
  END IF;
  PERFORM ledger_refuse_closed(on_date);
  IF EXISTS (SELECT 1 FROM entries WHERE transaction_id = OLD.transaction_id AND reconciliation_id IS NOT NULL) THEN
    RAISE EXCEPTION 'the transaction is reconciled' USING ERRCODE = 'LR001';
  END IF;
  RETURN OLD;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER attachments_removable
  BEFORE DELETE ON "attachments"
  FOR EACH ROW
  EXECUTE FUNCTION ledger_receipt_removable();
