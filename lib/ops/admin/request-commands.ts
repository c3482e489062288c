// The operator CLI's request log commands: the console's Requests page, for any organisation, with
// the same query; and finding one request by the id its answer carried, whoever's it is.
import type { Database } from "../../db/index.ts";
import { DomainError } from "../../errors.ts";
import { findOrganisation } from "../../accounts/organisations.ts";
import { findRequest, listRequests, requestJson, type LoggedRequest } from "../request-log/queries.ts";

export const REQUESTS_USAGE = `  requests list --org ORG [--key KEY_ID] [--status 404|4xx|refused] [--code CODE] [--limit N]
  requests find --id REQUEST_ID`;

export const REQUESTS_OPTIONS = {
  key: { type: "string" },
  code: { type: "string" },
  limit: { type: "string" },
} as const;

type Options = Record<string, string | boolean | undefined>;
type Output = { json: unknown; text: string };

const text = (options: Options, name: string) =>
  typeof options[name] === "string" && options[name] !== "" ? (options[name] as string) : undefined;

function line(row: LoggedRequest): string {
  const code = row.code ? `  ${row.code}` : "";
  return `${row.at.toISOString()}  ${row.requestId}  ${row.keyId}  ${row.method} ${row.path}  ${row.status}${code}  ${row.latencyMs} ms`;
}

/** The output of a `requests …` command, or null when `command` is not one. */
export async function runRequestsCommand(
  db: Database,
  command: string,
  options: Options,
  required: (options: Options, name: string) => string,
): Promise<Output | null> {
  switch (command) {
    case "requests list": {
      const org = await findOrganisation(db, required(options, "org"));
      const rows = await listRequests(db, org.id, {
        keyId: text(options, "key"),
        status: text(options, "status"),
        code: text(options, "code"),
        limit: text(options, "limit"),
      });
      return {
        json: rows.map(requestJson),
        text: rows.length === 0 ? `No logged requests of ${org.name} match.` : rows.map(line).join("\n"),
      };
    }
    case "requests find": {
      const id = required(options, "id");
      const row = await findRequest(db, id);
      if (!row) throw new DomainError("not_found", `No request ${id} in the log (it keeps 7 days).`);
      return { json: { org_id: row.orgId, ...requestJson(row) }, text: `${row.orgId}  ${line(row)}` };
    }
    default:
      return null;
  }
}
