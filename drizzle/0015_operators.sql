-- Operators: accounts of their own, beside the organisations' members.
CREATE TABLE "operators" (
	"user_id" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "operators_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action
);
--> statement-breakpoint
-- The operators' own log across organisations; what the CLI did before counts as theirs.
ALTER TABLE "audit_log" ADD COLUMN "operator" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
UPDATE "audit_log" SET "operator" = true WHERE "actor" = 'operator (cli)';
--> statement-breakpoint
CREATE INDEX "audit_log_operator_idx" ON "audit_log" USING btree ("id") WHERE operator;
--> statement-breakpoint
-- A verification names the version of the record it checked.
ALTER TABLE "licences" ADD COLUMN "version" integer DEFAULT 1 NOT NULL;
--> statement-breakpoint
-- The last plan request an operator declined, and why.
ALTER TABLE "organisations" ADD COLUMN "declined_plan_code" text;
--> statement-breakpoint
ALTER TABLE "organisations" ADD CONSTRAINT "organisations_declined_plan_code_plans_code_fk" FOREIGN KEY ("declined_plan_code") REFERENCES "public"."plans"("code") ON DELETE no action ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "organisations" ADD COLUMN "plan_declined_reason" text;
--> statement-breakpoint
ALTER TABLE "organisations" ADD COLUMN "plan_declined_at" timestamp with time zone;
