import { NextResponse } from "next/server";
import { z } from "zod";
import { beginSso, SSO_FLOW_SECONDS } from "@/lib/accounts/sso/flow";
import { returnPath } from "@/lib/console/return-path";
import { DomainError } from "@/lib/errors";
import { boundedBody } from "@/lib/http/bounded-body";
import { problemResponse } from "@/lib/http/problem";
import { currentInstance } from "@/lib/instance";
import { browserCookieName, ssoContext } from "@/app/console/_lib/sso";

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

const startInput = z.object({ email: z.string().max(254), next: z.string().max(2000).optional() });

// POST /api/sso/start: the provider's authorization URL for an address (or a domain) whose
// organisation signs in through its own provider. JSON only, so another site's form cannot post
// it; the sign-in page then navigates there (the console's CSP lets forms post to itself only).
export async function POST(request: Request) {
  if (!request.headers.get("content-type")?.startsWith("application/json")) {
    return problemResponse(415, "unsupported_media_type", "Unsupported media type", "Send JSON.");
  }
  const body = await boundedBody(request, 4096);
  const parsed = body ? startInput.safeParse(parseJson(Buffer.from(body).toString("utf8"))) : null;
  if (!parsed?.success) {
    return problemResponse(400, "invalid_request", "Invalid request", 'Send {"email": "you@example.com"}.');
  }
  const context = await ssoContext();
  try {
    const { url, browser } = await beginSso(
      currentInstance().database.db,
      { email: parsed.data.email, returnTo: returnPath(parsed.data.next) },
      context,
    );
    const response = NextResponse.json({ url });
    response.cookies.set(browserCookieName(context.secure), browser, {
      httpOnly: true,
      // Lax: sent on the provider's top-level redirect back to the callback.
      sameSite: "lax",
      secure: context.secure,
      path: "/",
      maxAge: SSO_FLOW_SECONDS,
    });
    return response;
  } catch (error) {
    if (error instanceof DomainError) {
      return problemResponse(error.code === "not_found" ? 404 : 422, error.code, "Single sign-on", error.message);
    }
    throw error;
  }
}
