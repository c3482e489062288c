CREATE TABLE "revision_counter" (
	"id" integer PRIMARY KEY NOT NULL,
	"last_revision" bigint NOT NULL,
	CONSTRAINT "revision_counter_single_row" CHECK ("revision_counter"."id" = 1)
);
--> statement-breakpoint
INSERT INTO "revision_counter" ("id", "last_revision") VALUES (1, coalesce((SELECT max("revision") FROM "event_revisions"), 0));--> statement-breakpoint
DROP TABLE "lineup_entries" CASCADE;--> statement-breakpoint
DROP TABLE "markets" CASCADE;--> statement-breakpoint
DROP TABLE "outcomes" CASCADE;--> statement-breakpoint
ALTER TABLE "event_revisions" ALTER COLUMN "revision" DROP IDENTITY;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "markets" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "lineups" jsonb;
