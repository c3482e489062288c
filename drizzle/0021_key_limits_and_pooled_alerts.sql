-- A production key's own lower limits inside its organisation's pool (null: the plan's), and usage
-- alerts of the organisation's pooled count beside each key's (key_id null: the organisation's).
ALTER TABLE "api_keys" ADD COLUMN "monthly_quota" integer;
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "requests_per_second" integer;
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_own_limits_check" CHECK ((environment = 'production' or ("monthly_quota" is null and "requests_per_second" is null)) and ("monthly_quota" is null or "monthly_quota" > 0) and ("requests_per_second" is null or "requests_per_second" > 0));
--> statement-breakpoint
ALTER TABLE "usage_alerts" ALTER COLUMN "key_id" DROP NOT NULL;
--> statement-breakpoint
CREATE UNIQUE INDEX "usage_alerts_once_org" ON "usage_alerts" USING btree ("org_id","month","threshold") WHERE key_id is null;
