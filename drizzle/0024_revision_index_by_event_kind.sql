-- "Every event as of revision N" is one search per event and kind for the newest revision at or below N;
-- the index on (event_id, kind, recorded_at) cannot order by revision, so without this the read was a
-- group by over every recent row. Built while the migration holds its lock, which is brief: the recent
-- table holds minutes of revisions however many days the archive keeps.
CREATE INDEX IF NOT EXISTS "event_revisions_event_kind_revision_idx" ON "event_revisions" USING btree ("event_id","kind","revision");
