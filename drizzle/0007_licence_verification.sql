ALTER TABLE "licences" ADD COLUMN "verification" text DEFAULT 'pending' NOT NULL;--> statement-breakpoint
ALTER TABLE "licences" ADD COLUMN "reviewed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "licences" ADD COLUMN "review_reason" text;--> statement-breakpoint
ALTER TABLE "licences" ADD CONSTRAINT "licences_verification_check" CHECK (verification in ('pending', 'verified', 'rejected', 'revoked'));--> statement-breakpoint
ALTER TABLE "organisations" ADD COLUMN "requested_plan_code" text;--> statement-breakpoint
ALTER TABLE "organisations" ADD COLUMN "plan_requested_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "organisations" ADD CONSTRAINT "organisations_requested_plan_code_plans_code_fk" FOREIGN KEY ("requested_plan_code") REFERENCES "public"."plans"("code") ON DELETE no action ON UPDATE no action;
