-- D20: the two locks of the book, enforced by the database so that no writer (HTTP, MCP, imports,
-- schedules, the CLI, or a path that forgets to check) can break them. Each refuses with a
-- SQLSTATE of our own, never the balance trigger's P0001 (which stays the spec's 400):
--   LR001 the transaction is reconciled            (409)
--   LR002 the books are closed through YYYY-MM-DD  (409)

-- Reconciled means fixed, by value: an entry that a reconciliation proved may not be deleted, nor
-- moved to another transaction, date, account or amount. Setting reconciliation_id itself (to
-- reconcile, or back to null when a reconciliation is undone) changes no figure and passes. The
-- WHEN clauses are evaluated without calling the function, so unreconciled entries cost nothing.
CREATE FUNCTION ledger_refuse_reconciled_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the transaction is reconciled' USING ERRCODE = 'LR001';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER entries_reconciled_fixed_update
  BEFORE UPDATE ON entries
  FOR EACH ROW
  WHEN (OLD.reconciliation_id IS NOT NULL
    AND (OLD.transaction_id, OLD.occurred_on, OLD.account_id, OLD.amount_cents)
      IS DISTINCT FROM (NEW.transaction_id, NEW.occurred_on, NEW.account_id, NEW.amount_cents))
  EXECUTE FUNCTION ledger_refuse_reconciled_change();
--> statement-breakpoint
CREATE TRIGGER entries_reconciled_fixed_delete
  BEFORE DELETE ON entries
  FOR EACH ROW
  WHEN (OLD.reconciliation_id IS NOT NULL)
  EXECUTE FUNCTION ledger_refuse_reconciled_change();
--> statement-breakpoint
-- Closed periods. `closed_through` is read under a shared advisory lock that a change of the
-- settings takes exclusively (src/book/settings.ts), and read by a statement that begins after the
-- lock is granted: a write racing a move of closed_through therefore ends wholly before it (the
-- move waits for the write's transaction) or wholly after it (the write waits, then reads the new
-- date). An advisory lock rather than a row lock on settings: shared locks live in memory, so
-- concurrent posts neither write the settings row nor create multixacts.
CREATE FUNCTION ledger_closed_through() RETURNS date
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  closed date;
BEGIN
  PERFORM pg_advisory_xact_lock_shared(20020);
  SELECT closed_through INTO closed FROM settings WHERE id = 1;
  RETURN closed;
END;
$$;
--> statement-breakpoint
CREATE FUNCTION ledger_refuse_closed(on_date date) RETURNS void
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  closed date := ledger_closed_through();
BEGIN
  IF closed IS NOT NULL AND on_date <= closed THEN
    RAISE EXCEPTION 'the books are closed through %', to_char(closed, 'YYYY-MM-DD') USING ERRCODE = 'LR002';
  END IF;
END;
$$;
--> statement-breakpoint
-- Entries carry their transaction's date, so every change of money is an entry inserted, deleted
-- or updated: checked once per statement over the rows it wrote (a post is one call, not one per
-- entry), and per row for updates that change a figure (reconciling changes none). The insert's
-- check is on every post's path, so it is written out flat: the lock (a simple expression, no
-- query), one read of the settings, and the rows looked at only when a period is closed. EXPLAIN
-- ANALYZE of a post puts it at 25-50 µs warm, about what the two foreign-key checks of its entries
-- on accounts cost together.
CREATE FUNCTION ledger_entries_inserted_closed_check() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  closed date;
BEGIN
  IF pg_advisory_xact_lock_shared(20020) IS NULL THEN
    RETURN NULL; -- never: the call is made for its lock, as a simple expression (no query)
  END IF;
  SELECT closed_through INTO closed FROM settings WHERE id = 1;
  IF closed IS NOT NULL AND (SELECT min(occurred_on) FROM inserted) <= closed THEN
    RAISE EXCEPTION 'the books are closed through %', to_char(closed, 'YYYY-MM-DD') USING ERRCODE = 'LR002';
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE FUNCTION ledger_entries_deleted_closed_check() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM ledger_refuse_closed((SELECT min(occurred_on) FROM deleted));
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE FUNCTION ledger_row_closed_check() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM ledger_refuse_closed(OLD.occurred_on);
  END IF;
  IF TG_OP = 'UPDATE' THEN
    PERFORM ledger_refuse_closed(NEW.occurred_on);
  END IF;
  IF TG_OP = 'DELETE' THEN
    RETURN OLD;
  END IF;
  RETURN NEW;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER entries_closed_insert
  AFTER INSERT ON entries
  REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT
  EXECUTE FUNCTION ledger_entries_inserted_closed_check();
--> statement-breakpoint
CREATE TRIGGER entries_closed_delete
  AFTER DELETE ON entries
  REFERENCING OLD TABLE AS deleted
  FOR EACH STATEMENT
  EXECUTE FUNCTION ledger_entries_deleted_closed_check();
--> statement-breakpoint
CREATE TRIGGER entries_closed_update
  BEFORE UPDATE ON entries
  FOR EACH ROW
  WHEN ((OLD.transaction_id, OLD.occurred_on, OLD.account_id, OLD.amount_cents)
    IS DISTINCT FROM (NEW.transaction_id, NEW.occurred_on, NEW.account_id, NEW.amount_cents))
  EXECUTE FUNCTION ledger_row_closed_check();
--> statement-breakpoint
-- A transaction's own row: its date or description corrected, or the transaction deleted. Its
-- author becoming null (`ledger user rm`) changes neither and is never refused.
CREATE TRIGGER transactions_closed_update
  BEFORE UPDATE ON transactions
  FOR EACH ROW
  WHEN ((OLD.occurred_on, OLD.description) IS DISTINCT FROM (NEW.occurred_on, NEW.description))
  EXECUTE FUNCTION ledger_row_closed_check();
--> statement-breakpoint
CREATE TRIGGER transactions_closed_delete
  BEFORE DELETE ON transactions
  FOR EACH ROW
  EXECUTE FUNCTION ledger_row_closed_check();
