-- The key lifecycle: a production key's sport scope (null: its plan's sports), the addresses it
-- may be used from (null: any), and the key that replaced it when it was rolled.
ALTER TABLE "api_keys" ADD COLUMN "sports" text[];
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "allowed_ips" text[];
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "replaced_by" text REFERENCES "api_keys"("id") ON DELETE SET NULL;
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_scope_shape_check" CHECK ("environment" = 'production' OR ("sports" IS NULL AND "allowed_ips" IS NULL));
