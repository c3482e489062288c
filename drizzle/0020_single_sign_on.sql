-- Single sign-on: an organisation's OpenID Connect provider, the e-mail domains it claims, and the
-- sign-ins under way at a provider (state, nonce and PKCE verifier, used once).
CREATE TABLE "sso_connections" (
	"org_id" text PRIMARY KEY NOT NULL,
	"issuer" text NOT NULL,
	"client_id" text NOT NULL,
	"client_secret" text NOT NULL,
	"join_role" text DEFAULT 'viewer' NOT NULL,
	"require_sso" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sso_connections_join_role_check" CHECK (join_role in ('admin', 'viewer')),
	CONSTRAINT "sso_connections_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action
);
--> statement-breakpoint
CREATE TABLE "sso_domains" (
	"org_id" text NOT NULL,
	"domain" text NOT NULL,
	"token" text NOT NULL,
	"verified_at" timestamp with time zone,
	"verified_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sso_domains_org_id_domain_pk" PRIMARY KEY("org_id","domain"),
	CONSTRAINT "sso_domains_verified_by_check" CHECK (verified_by in ('dns', 'operator')),
	CONSTRAINT "sso_domains_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX "sso_domains_verified_key" ON "sso_domains" USING btree ("domain") WHERE "sso_domains"."verified_at" is not null;
--> statement-breakpoint
CREATE TABLE "sso_flows" (
	"state_hash" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"browser_hash" text NOT NULL,
	"nonce" text NOT NULL,
	"code_verifier" text NOT NULL,
	"return_to" text NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sso_flows_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action
);
--> statement-breakpoint
CREATE INDEX "sso_flows_created_idx" ON "sso_flows" USING btree ("created_at");
