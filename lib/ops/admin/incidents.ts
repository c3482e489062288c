import { OPERATOR } from "../../accounts/audit.ts";
import type { Database } from "../../db/index.ts";
import type { IncidentState } from "../../db/schema/index.ts";
import { openIncidentBy, updateIncidentBy } from "../desk/incidents.ts";
import { recentIncidents, type Incident } from "../status/incidents.ts";

// The operator CLI's incident commands, for the public status page.

export const INCIDENT_USAGE = `  incident open --title TITLE --components api,streams,console,feed:SPORT --text TEXT
                [--state investigating|identified|monitoring]
  incident update --id INCIDENT_ID --text TEXT [--state investigating|identified|monitoring|resolved]
  incident resolve --id INCIDENT_ID --text TEXT
  incident list`;

export const INCIDENT_OPTIONS = {
  title: { type: "string" },
  components: { type: "string" },
  text: { type: "string" },
  state: { type: "string" },
} as const;

type Options = Record<string, string | boolean | undefined>;
type Output = { json: unknown; text: string };

const line = (incident: Incident) =>
  `${incident.id}  ${incident.state}  ${incident.components.join(",")}  since ${incident.startedAt.toISOString()}  "${incident.title}"`;

/** The output of an incident command, or null when `command` is not one. */
export async function runIncidentCommand(
  db: Database,
  command: string,
  options: Options,
  at: Date,
  required: (options: Options, name: string) => string,
): Promise<Output | null> {
  const text = (name: string) => (typeof options[name] === "string" ? (options[name] as string) : undefined);
  switch (command) {
    case "incident open": {
      const incident = await openIncidentBy(
        db,
        {
          title: required(options, "title"),
          components: required(options, "components").split(","),
          text: required(options, "text"),
          state: text("state") as Exclude<IncidentState, "resolved"> | undefined,
        },
        OPERATOR,
        at,
      );
      return { json: incident, text: `Opened ${line(incident)}` };
    }
    case "incident update":
    case "incident resolve": {
      const state = command === "incident resolve" ? "resolved" : (text("state") as IncidentState | undefined);
      const incident = await updateIncidentBy(
        db,
        required(options, "id"),
        { text: required(options, "text"), state },
        OPERATOR,
        at,
      );
      return { json: incident, text: `Updated ${line(incident)}` };
    }
    case "incident list": {
      const incidents = await recentIncidents(db, new Date(at.getTime() - 7 * 86_400_000));
      return {
        json: incidents,
        text: incidents.length ? incidents.map(line).join("\n") : "No incidents in the last 7 days.",
      };
    }
    default:
      return null;
  }
}
