-- The balance check of the spec ("a deferred database check on the balance runs at commit"):
-- whatever path writes entries, a transaction that still exists at COMMIT must have at least two
-- entries summing to zero, or the commit fails with SQLSTATE P0001 (mapped to 400, error rule 2).
CREATE FUNCTION ledger_assert_transaction_balanced(tid integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  entry_count bigint;
  total numeric;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM transactions WHERE id = tid) THEN
    RETURN; -- deleted together with its entries
  END IF;
  SELECT count(*), coalesce(sum(amount_cents), 0) INTO entry_count, total
    FROM entries WHERE transaction_id = tid;
  IF entry_count < 2 OR total <> 0 THEN
    RAISE EXCEPTION 'transaction % does not balance: % entries sum to %', tid, entry_count, total
      USING ERRCODE = 'P0001';
  END IF;
END;
$$;
--> statement-breakpoint
CREATE FUNCTION ledger_entries_balance_trigger() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM ledger_assert_transaction_balanced(OLD.transaction_id);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM ledger_assert_transaction_balanced(NEW.transaction_id);
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER entries_balanced
  AFTER INSERT OR UPDATE OR DELETE ON entries
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION ledger_entries_balance_trigger();
--> statement-breakpoint
-- A header committed without entries would escape the trigger on entries.
CREATE FUNCTION ledger_transactions_balance_trigger() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ledger_assert_transaction_balanced(NEW.id);
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER transactions_have_balanced_entries
  AFTER INSERT ON transactions
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION ledger_transactions_balance_trigger();
--> statement-breakpoint
INSERT INTO settings (id, book_style) VALUES (1, 'personal');
--> statement-breakpoint
-- The two pre-registered first-party clients (spec: OAuth client). Loopback redirect, any port.
INSERT INTO oauth_clients (id, name, dynamic, redirect_uris) VALUES
  ('ledger-cli', 'Ledger CLI', false, '["http://127.0.0.1/callback"]'::jsonb),
  ('ledger-desktop', 'Ledger Desktop', false, '["http://127.0.0.1/callback"]'::jsonb);
