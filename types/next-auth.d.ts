import type { DefaultSession } from "next-auth";

declare module "next-auth" {
  // The session carries the user's id and the id of its row (how far its sign-in got), nothing
  // else (see app/console/_lib/auth.ts).
  interface Session {
    user: { id: string; sessionId: string } & DefaultSession["user"];
  }
  interface User {
    sessionId?: string;
  }
}
