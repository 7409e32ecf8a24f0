-- Issue 31 item 2: every post writes a change record (D15), and PostgreSQL prepares the CHECK
-- constraints of the table it inserts into on every statement: it reads each one back from its
-- stored node tree (stringToNode) and compiles it. The three IN lists below are stored as text[]
-- constants, written out byte by byte in those trees, so reading them back cost a post about a
-- fifth of the anchor's own database CPU (A/B at 8 connections, 7 pairs: 1.60x the anchor with
-- them, 1.41x with the same rules as one function call, 1.41x with no check at all). The same
-- rules, under the same names, now call IMMUTABLE functions: a call of one column is a tree of a
-- few tokens, and the lists are compiled once per session with the function. The rule for
-- subject_id has no list and stays as it was.
--
-- Adding a value (a new subject, via or action) means changing the function here AND the check in
-- src/db/schema.ts; a migration that drizzle-kit generates from schema.ts replaces the constraint
-- with its IN-list form again (correct, only slower).
CREATE FUNCTION ledger_change_via_valid(via text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN via IN ('session', 'token', 'cli', 'schedule');
END;
$$;
--> statement-breakpoint
CREATE FUNCTION ledger_change_subject_valid(subject text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN subject IN ('transaction', 'account', 'settings', 'reconciliation', 'schedule', 'attachment');
END;
$$;
--> statement-breakpoint
CREATE FUNCTION ledger_change_action_valid(action text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN action IN ('create', 'update', 'delete', 'restore');
END;
$$;
--> statement-breakpoint
ALTER TABLE "changes" DROP CONSTRAINT "changes_via";--> statement-breakpoint
ALTER TABLE "changes" ADD CONSTRAINT "changes_via" CHECK (ledger_change_via_valid("via"));--> statement-breakpoint
ALTER TABLE "changes" DROP CONSTRAINT "changes_subject";--> statement-breakpoint
ALTER TABLE "changes" ADD CONSTRAINT "changes_subject" CHECK (ledger_change_subject_valid("subject"));--> statement-breakpoint
ALTER TABLE "changes" DROP CONSTRAINT "changes_action";--> statement-breakpoint
ALTER TABLE "changes" ADD CONSTRAINT "changes_action" CHECK (ledger_change_action_valid("action"));
