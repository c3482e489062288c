// The operator CLI's commands, apart from the process: `scripts/admin.ts` runs them on the
// server's database, and the tests run them in-process on a database they already hold.
import { parseArgs } from "node:util";
import { z } from "zod";
import { OPERATOR } from "../../accounts/audit.ts";
import { now } from "../../clock.ts";
import { ConfigError } from "../../config.ts";
import { DatabaseUnavailableError, type Database } from "../../db/index.ts";
import { DataDirInUseError } from "../../db/data-dir-lock.ts";
import { DomainError } from "../../errors.ts";
import {
  createProductionKey,
  createSandboxKey,
  listKeys,
  revokeKey,
  type CreatedKey,
  type KeySummary,
} from "../../keys/index.ts";
import { overlapSeconds, rollKey } from "../../keys/roll.ts";
import { shownKeyState } from "../../keys/states.ts";
import { updateKey, type KeySettings } from "../../keys/settings.ts";
import { setLicence } from "../../accounts/licences.ts";
import { createOrganisation, findOrganisation, listOrganisations } from "../../accounts/organisations.ts";
import { listPlans, setPlan } from "../../accounts/plans.ts";
import { resetPassword } from "../../accounts/users.ts";
import { optional, required, UsageError, type Options, type Output } from "./arguments.ts";
import { INCIDENT_OPTIONS, INCIDENT_USAGE, runIncidentCommand } from "./incidents.ts";
import { MAIL_USAGE, runMailCommand } from "./mail-commands.ts";
import { OPERATOR_USAGE, runOperatorCommand } from "./operator-commands.ts";
import { REVIEW_OPTIONS, REVIEW_USAGE, runReviewCommand } from "./review-commands.ts";
import { runWebhookCommand, WEBHOOK_USAGE } from "./webhook-commands.ts";
import { REQUESTS_OPTIONS, REQUESTS_USAGE, runRequestsCommand } from "./request-commands.ts";

const USAGE = `Usage: npm run admin -- <command> [options] [--json]

Commands:
  org create --name NAME [--slug SLUG]
  org list
  licence set --org ORG --reference REF --authority AUTHORITY --holder LEGAL_NAME
              --valid-until YYYY-MM-DD [--valid-from YYYY-MM-DD] [--territory TERRITORY]
${REVIEW_USAGE}
  plan list
  plan set --org ORG --plan CODE
  key create --org ORG --env sandbox --sport SPORT
  key create --org ORG --env production [--name NAME]
  key revoke --id KEY_ID
  key roll --id KEY_ID --overlap DURATION        (1h to 7d, e.g. 90m, 36h, 7d)
  key update --id KEY_ID [--name NAME] [--sports SPORT,…|all] [--allow-ips CIDR,…|any]
             [--expires ISO_TIME|never] [--monthly-quota N|plan] [--per-second N|plan]
  key list --org ORG
  user reset-password --email EMAIL
${OPERATOR_USAGE}
${WEBHOOK_USAGE}
${REQUESTS_USAGE}
${INCIDENT_USAGE}
${MAIL_USAGE}

key update changes only what it is given: --name "" clears the name, --sports all gives the key its
plan's sports again, --allow-ips any lets it be used from any address, --expires never lifts an expiry (not a rolled key's).
--monthly-quota and --per-second set the key's own lower limits inside the organisation's pool (plan: the plan's).
ORG is an organisation's id (org_…) or its slug. A licence recorded in the console or here is
pending until verified; revoking one stops the organisation's production keys at once. licence verify
names the record checked (--reference, or --version as licence list shows it): a record changed since
is refused. --json prints one JSON document instead of text.
The database is the server's: DATABASE_URL when set, otherwise the embedded one in DATA_DIR. While a
server runs on the embedded one, the command is sent to that server (over DATA_DIR/admin.sock, which
only this machine's user that runs it can use) and its answer printed here; stderr says so.`;

const text = { type: "string" } as const;
const flag = { type: "boolean" } as const;
const OPTIONS = {
  name: text,
  slug: text,
  org: text,
  reference: text,
  authority: text,
  holder: text,
  territory: text,
  "valid-from": text,
  "valid-until": text,
  plan: text,
  env: text,
  sport: text,
  id: text,
  email: text,
  reason: text,
  status: text,
  sports: text,
  expires: text,
  "allow-ips": text,
  "monthly-quota": text,
  "per-second": text,
  overlap: text,
  url: text,
  set: text,
  ...INCIDENT_OPTIONS,
  ...REQUESTS_OPTIONS,
  ...REVIEW_OPTIONS,
  json: flag,
  help: flag,
};

const day = (date: Date | null) => (date ? date.toISOString() : "-");

/** The settings a `key update` line gives; what it leaves out stays as it is. */
function keySettings(options: Options): KeySettings {
  const settings: KeySettings = {};
  const name = optional(options, "name");
  if (name !== undefined) settings.name = name;
  const sports = optional(options, "sports");
  if (sports !== undefined) {
    settings.sports = sports === "all" ? null : (sports.split(",").map((s) => s.trim()) as KeySettings["sports"]);
  }
  const allowIps = optional(options, "allow-ips");
  if (allowIps !== undefined) settings.allowedIps = allowIps === "any" ? null : allowIps;
  const expires = optional(options, "expires");
  if (expires !== undefined) settings.expiresAt = expires === "never" ? null : expires;
  const quota = optional(options, "monthly-quota");
  if (quota !== undefined) settings.monthlyQuota = quota === "plan" ? null : quota;
  const rate = optional(options, "per-second");
  if (rate !== undefined) settings.requestsPerSecond = rate === "plan" ? null : rate;
  if (Object.keys(settings).length === 0) throw new UsageError("key update: give at least one setting to change.");
  return settings;
}

function keyLine(key: KeySummary): string {
  const label = key.name ? ` "${key.name}"` : "";
  const usage = key.requestsQuota
    ? `${key.requestsUsed}/${key.requestsQuota} this month`
    : `${key.requestsUsed} this month`;
  const scope = key.sportScope ? " (scope)" : "";
  const from = key.allowedIps ? `  allowed-ips=${key.allowedIps.join(",")}` : "";
  const own = [
    key.ownMonthlyQuota !== null ? `  own-quota=${key.ownMonthlyQuota}/month` : "",
    key.ownRequestsPerSecond !== null ? `  own-rate=${key.ownRequestsPerSecond}/s` : "",
  ].join("");
  // As the console shows it: a key within a week of its expiry (a rolled key's overlap) is "expiring".
  const state = shownKeyState(key, now().getTime());
  const rolled = key.replacedBy ? `  rolled-to=${key.replacedBy}` : "";
  return `${key.id}  ${key.hint}  ${key.environment}${label}  ${state}${rolled}  sports=${key.sports.join(",")}${scope}${from}${own}  ${usage}  created=${day(key.createdAt)}  expires=${day(key.expiresAt)}  last-used=${day(key.lastUsedAt)}`;
}

function createdKey(created: CreatedKey, orgName: string): Output {
  return {
    json: { ...created.summary, key: created.key },
    text: [
      `Created ${created.summary.environment} key ${created.summary.id} for ${orgName}:`,
      "",
      `  ${created.key}`,
      "",
      "This is the only time the key is shown: store it now. Only its SHA-256 is kept.",
      created.summary.expiresAt
        ? `It covers ${created.summary.sports.join(", ")} and expires ${day(created.summary.expiresAt)}.`
        : `It covers ${created.summary.sports.join(", ")}.`,
    ].join("\n"),
  };
}

async function run(db: Database, command: string, options: Options, settings: Settings): Promise<Output> {
  const at = now();
  const context = { actor: OPERATOR, at };
  const ttlDays = settings.sandboxKeyTtlDays;
  if (command.startsWith("webhook ")) {
    const arg = {
      required: (name: string) => required(options, name),
      optional: (name: string) => optional(options, name),
    };
    const output = await runWebhookCommand(db, command, arg, {
      at,
      allowPrivate: settings.allowPrivateWebhooks ?? false,
    });
    if (output) return output;
  }
  const incident = await runIncidentCommand(db, command, options, at, required);
  if (incident) return incident;
  const mail = await runMailCommand(db, command, options, at, required);
  if (mail) return mail;
  const requests = await runRequestsCommand(db, command, options, required);
  if (requests) return requests;
  const decision = await runReviewCommand(db, command, options, at);
  if (decision) return decision;
  const operator = await runOperatorCommand(db, command, options);
  if (operator) return operator;
  switch (command) {
    case "org create": {
      const org = await createOrganisation(
        db,
        { name: required(options, "name"), slug: optional(options, "slug") },
        OPERATOR,
      );
      return { json: org, text: `Created organisation ${org.id} "${org.name}" (slug ${org.slug}).` };
    }
    case "org list": {
      const orgs = await listOrganisations(db);
      return {
        json: orgs,
        text:
          orgs
            .map(
              (o) =>
                `${o.id}  ${o.slug}  ${o.name}  plan=${o.planCode ?? "-"}` +
                (o.requestedPlanCode ? `  requested=${o.requestedPlanCode}` : ""),
            )
            .join("\n") || "No organisations.",
      };
    }
    case "licence set": {
      const org = await findOrganisation(db, required(options, "org"));
      const licence = await setLicence(
        db,
        org.id,
        {
          reference: required(options, "reference"),
          authority: required(options, "authority"),
          holder: required(options, "holder"),
          territory: optional(options, "territory"),
          validFrom: optional(options, "valid-from"),
          validUntil: required(options, "valid-until"),
        },
        OPERATOR,
        at,
      );
      return {
        json: licence,
        text: `Licence ${licence.reference} recorded for ${org.name}: valid ${licence.validFrom} to ${licence.validUntil}, ${licence.verification}.`,
      };
    }
    case "plan list": {
      const plans = await listPlans(db);
      const line = (p: (typeof plans)[number]) =>
        `${p.code.padEnd(11)} ${p.environment.padEnd(10)} quota=${p.monthlyQuota}/month  ${p.requestsPerSecond}/s  streams=${p.concurrentStreams}  sports=${p.sports.join(",") || "(one, chosen per key)"}`;
      return { json: plans, text: plans.map(line).join("\n") };
    }
    case "plan set": {
      const org = await findOrganisation(db, required(options, "org"));
      const plan = await setPlan(db, org.id, required(options, "plan"), OPERATOR);
      return { json: { orgId: org.id, plan }, text: `${org.name} is on the ${plan.name} plan.` };
    }
    case "key create": {
      const org = await findOrganisation(db, required(options, "org"));
      const env = required(options, "env");
      if (env === "sandbox") {
        return createdKey(
          await createSandboxKey(db, org.id, { sport: required(options, "sport") }, { ...context, ttlDays }),
          org.name,
        );
      }
      if (env === "production") {
        return createdKey(
          await createProductionKey(db, org.id, { name: optional(options, "name") }, context),
          org.name,
        );
      }
      throw new UsageError(`--env must be sandbox or production, not "${env}".`);
    }
    case "key revoke": {
      const { summary, alreadyRevoked } = await revokeKey(db, required(options, "id"), null, context);
      return {
        json: { ...summary, alreadyRevoked },
        text: alreadyRevoked
          ? `Key ${summary.id} was already revoked at ${day(summary.revokedAt)}.`
          : `Revoked key ${summary.id} (${summary.hint}). Requests with it are refused from now on.`,
      };
    }
    case "key roll": {
      const overlap = required(options, "overlap");
      const seconds = overlapSeconds(overlap);
      if (seconds === null) throw new UsageError(`--overlap is a duration such as 90m, 36h or 7d, not "${overlap}".`);
      const rolled = await rollKey(db, required(options, "id"), null, { overlapSeconds: seconds }, context);
      const org = await findOrganisation(db, rolled.summary.orgId);
      const created = createdKey(rolled, org.name);
      return {
        json: { ...(created.json as object), predecessor: rolled.predecessor },
        text: `${created.text}\nIt replaces ${rolled.predecessor.id} (${rolled.predecessor.hint}), which keeps working until ${day(rolled.predecessor.expiresAt)}.`,
      };
    }
    case "key update": {
      const { summary, changed } = await updateKey(db, required(options, "id"), null, keySettings(options), context);
      return {
        json: { ...summary, changed },
        text: changed.length
          ? `Changed ${changed.join(", ")} of key ${summary.id} (${summary.hint}).\n${keyLine(summary)}`
          : `Nothing to change: key ${summary.id} is already so.\n${keyLine(summary)}`,
      };
    }
    case "key list": {
      const org = await findOrganisation(db, required(options, "org"));
      const keys = await listKeys(db, org.id, at);
      return { json: keys, text: keys.map(keyLine).join("\n") || `${org.name} has no keys.` };
    }
    case "user reset-password": {
      const { user, password } = await resetPassword(db, required(options, "email"), OPERATOR);
      return {
        json: { userId: user.id, email: user.email, password },
        text: `New password for ${user.email} (shown once): ${password}`,
      };
    }
    default:
      throw new UsageError(command ? `Unknown command "${command}".` : "No command given.");
  }
}

function explain(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join(".") || "input"}: ${issue.message}`).join("\n");
}

type Settings = {
  sandboxKeyTtlDays: number;
  /** WEBHOOKS_ALLOW_PRIVATE: endpoints on private addresses are refused unless it is set. */
  allowPrivateWebhooks?: boolean;
};

/** The database a command runs on, opened only once the arguments are understood. */
export type AdminDatabase = Settings & { db: Database; close(): Promise<void> };

export type AdminIo = {
  connect(): Promise<AdminDatabase>;
  print(text: string): void;
  printError(text: string): void;
};

/** Runs one command line; resolves to the exit code: 0 done, 1 refused, 2 usage error. */
export async function runAdminCommand(argv: string[], io: AdminIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    io.printError(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    (values.help ? io.print : io.printError)(USAGE);
    return values.help ? 0 : 2;
  }
  const json = values.json === true;
  const fail = (code: number, kind: string, message: string) => {
    if (json) io.print(JSON.stringify({ error: { code: kind, message } }, null, 2));
    else io.printError(message);
    return code;
  };

  let database: AdminDatabase | undefined;
  try {
    database = await io.connect();
    const command = positionals.slice(0, 2).join(" ");
    const output = await run(database.db, command, values, database);
    io.print(json ? JSON.stringify(output.json, null, 2) : output.text);
    return 0;
  } catch (error) {
    if (error instanceof ConfigError) return fail(2, "invalid_configuration", error.message);
    if (error instanceof UsageError) return fail(2, "usage", `${error.message}\n\n${USAGE}`);
    if (error instanceof DomainError) return fail(1, error.code, error.message);
    if (error instanceof z.ZodError) return fail(1, "invalid_input", explain(error));
    if (error instanceof DataDirInUseError) return fail(1, "database_in_use", error.message);
    if (error instanceof DatabaseUnavailableError) return fail(1, "database_unavailable", error.message);
    throw error;
  } finally {
    await database?.close();
  }
}
