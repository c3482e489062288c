// The operator CLI's commands for the operators' own accounts: the desk's sign-ins.
import { OPERATOR } from "../../accounts/audit.ts";
import type { Database } from "../../db/index.ts";
import { addOperator, listOperators, removeOperator, type Operator } from "../../accounts/operators.ts";
import { optional, required, type Options, type Output } from "./arguments.ts";

export const OPERATOR_USAGE = `  operator add --email EMAIL [--name NAME]      (prints a one-time password)
  operator list
  operator remove --email EMAIL`;

const line = (o: Operator) => `${o.userId}  ${o.email}  "${o.name}"  since ${o.createdAt.toISOString()}`;

/** The output of an `operator …` command, or null when `command` is not one. */
export async function runOperatorCommand(db: Database, command: string, options: Options): Promise<Output | null> {
  switch (command) {
    case "operator add": {
      const { operator, password } = await addOperator(
        db,
        { email: required(options, "email"), name: optional(options, "name") },
        OPERATOR,
      );
      return {
        json: { ...operator, password },
        text: [
          `Operator ${operator.email} added. Sign in on /console/sign-in with this password (shown once):`,
          "",
          `  ${password}`,
          "",
          "The desk is at /operator. `user reset-password --email` sets a new password.",
        ].join("\n"),
      };
    }
    case "operator list": {
      const operators = await listOperators(db);
      return { json: operators, text: operators.map(line).join("\n") || "No operators." };
    }
    case "operator remove": {
      const operator = await removeOperator(db, required(options, "email"), OPERATOR);
      return { json: operator, text: `Removed operator ${operator.email}: their sessions have ended.` };
    }
    default:
      return null;
  }
}
