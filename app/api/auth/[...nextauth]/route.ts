import NextAuth from "next-auth";
import { NextRequest } from "next/server";
import { authOptions } from "@/app/console/_lib/auth";
import { boundedBody } from "@/lib/http/bounded-body";
import { problemResponse } from "@/lib/http/problem";

// next-auth's forms are a few hundred bytes; nothing larger is read, parsed or normalised.
const AUTH_BODY_MAX_BYTES = 64 * 1024;

type Context = { params: Promise<{ nextauth: string[] }> };

// GET and POST /api/auth/*: next-auth's sign-in, sign-out, session and CSRF endpoints.
async function handler(req: NextRequest, context: Context) {
  const [action, provider] = (await context.params).nextauth;
  // next-auth throws (a 500) on a GET of the credentials callback: only its form is POSTed there.
  if (req.method !== "POST" && action === "callback" && provider === "credentials") {
    return problemResponse(405, "method_not_allowed", "Method not allowed", "The credentials callback takes a POST.", {
      headers: { allow: "POST" },
    });
  }
  let request = req;
  if (req.method === "POST") {
    const body = await boundedBody(req, AUTH_BODY_MAX_BYTES);
    if (!body) {
      return problemResponse(
        413,
        "payload_too_large",
        "Payload too large",
        `Sign-in and sign-out forms are at most ${AUTH_BODY_MAX_BYTES / 1024} KB.`,
        { headers: { connection: "close" } },
      );
    }
    request = new NextRequest(req.url, { method: "POST", headers: req.headers, body: body as BodyInit });
  }
  return NextAuth(request as never, context as never, authOptions());
}

export { handler as GET, handler as POST };
