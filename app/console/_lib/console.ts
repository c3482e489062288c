import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { consoleAccess, type ConsoleAccess } from "@/lib/console/access";
import { formFields, formValues, toActionState, type ActionState, type Fields } from "@/lib/console/actions";
import type { Database } from "@/lib/db";
import { operatorAccess } from "@/lib/accounts/operators";
import { currentInstance } from "@/lib/instance";
import { consoleSession, SIGN_IN_PAGE } from "./auth";

/** Where a session that has passed only the password does its second step. */
export const SECOND_STEP_PAGE = "/console/sign-in/second-step";

/** Where an operator works, and lands after signing in. */
export const DESK_PAGE = "/operator";

export async function database(): Promise<Database> {
  return currentInstance().database.db;
}

/**
 * For console pages: who is signed in and with what role, read from the database; else to
 * sign-in. An operator, who belongs to no organisation, is sent to the desk.
 */
export async function requireConsole(): Promise<{ db: Database; access: ConsoleAccess }> {
  const session = await consoleSession();
  // A session past the password alone owes its second step (or enrolment) before anything else.
  if (session && session.stage !== "done") redirect(SECOND_STEP_PAGE);
  const userId = session?.userId ?? null;
  const db = await database();
  const access = userId ? await consoleAccess(db, userId) : null;
  if (!access && (await operatorAccess(db, userId))) redirect(DESK_PAGE);
  if (!access) redirect(SIGN_IN_PAGE);
  return { db, access };
}

/**
 * The body of every console server action. A server action is a public POST endpoint: all it
 * trusts is the session's user id; the lib/console function it calls reads the membership and
 * role from the database and validates the input before changing anything.
 */
export async function runAction<T>(
  formData: FormData,
  ok: string,
  change: (db: Database, userId: string | null, fields: Fields, sessionId: string | null) => Promise<T>,
  { area = "/console", always = false }: { area?: string; always?: boolean } = {},
): Promise<ActionState<T>> {
  const session = await consoleSession();
  // Only a session past its second step acts; its id lets key and member changes ask for a step-up.
  const done = session?.stage === "done" ? session : null;
  const db = await database();
  const state = await toActionState(
    ok,
    () => change(db, done?.userId ?? null, formFields(formData), done?.id ?? null),
    formValues(formData),
  );
  // Every page of the area shows the state changed, so all of them are re-read after a change
  // (`always`: after a refusal too).
  if (always || (state && "ok" in state)) revalidatePath(area, "layout");
  return state;
}
