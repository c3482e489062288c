-- Webhooks: the first failed attempt since the last answered one (a day of failures disables the
-- endpoint, noted for the console's banner), and each endpoint's due messages for the fair claim.
ALTER TABLE "webhook_endpoints" ADD COLUMN "failing_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "auto_disabled_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint_due_idx" ON "webhook_deliveries" USING btree ("endpoint_id","next_attempt_at") WHERE state = 'pending';
