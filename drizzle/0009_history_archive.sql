-- The history kept for days: each event's revisions of one kind in a bucket of five minutes, as
-- what changed (lib/feed/archive-codec.ts), in hourly partitions dropped whole when they age out.
CREATE TABLE "history_chunks" (
	"event_id" text NOT NULL,
	"kind" text NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"first_revision" bigint NOT NULL,
	"last_revision" bigint NOT NULL,
	"payload" bytea NOT NULL,
	CONSTRAINT "history_chunks_pk" PRIMARY KEY("event_id","kind","first_revision","starts_at")
) PARTITION BY RANGE ("starts_at");
--> statement-breakpoint
CREATE INDEX "history_chunks_starts_at_idx" ON "history_chunks" USING btree ("starts_at");
--> statement-breakpoint
-- Each bucket's revisions (a contiguous range) and when each was recorded: a moment's revision.
CREATE TABLE "history_buckets" (
	"starts_at" timestamp with time zone PRIMARY KEY NOT NULL,
	"first_revision" bigint NOT NULL,
	"last_revision" bigint NOT NULL,
	"clock" bytea NOT NULL
);
--> statement-breakpoint
CREATE INDEX "history_buckets_last_revision_idx" ON "history_buckets" USING btree ("last_revision");
--> statement-breakpoint
ALTER TABLE "revision_counter" ADD COLUMN "archived_through" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "revision_counter" ADD COLUMN "archive_whole_from" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- What the recent table pruned before the archive existed is not in it: the archive starts there.
UPDATE "revision_counter" SET "archived_through" = "pruned_through", "archive_whole_from" = "pruned_through";
