-- Issue 37 item 2 (D16, another format, the same line): the format each imported line came in;
-- null for lines imported before it was recorded, which count as "a format not recorded".
ALTER TABLE "import_lines" ADD COLUMN "format" text;--> statement-breakpoint
ALTER TABLE "import_lines" ADD CONSTRAINT "import_lines_format" CHECK ("import_lines"."format" in ('csv', 'ofx', 'camt053'));