import { NextResponse, type NextRequest } from "next/server";
import { pageContentSecurityPolicy } from "@/lib/http/security-headers";

// Every page gets a Content-Security-Policy with a nonce of its own. Next reads the nonce from
// the policy on the request while it renders and puts it on each script it writes, so the policy
// goes on the request and on the response. Pages are rendered per request (app/layout.tsx), or
// their HTML would carry no nonce. The other security headers are in next.config.ts.
export function proxy(request: NextRequest) {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  const policy = pageContentSecurityPolicy(nonce, process.env.NODE_ENV === "development");
  // Set, not appended: a policy the client sent must not choose the nonce.
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("content-security-policy", policy);
  return response;
}

export const config = {
  matcher: [
    {
      // Not /api (JSON: its own policy), built assets or prefetches (no document is rendered).
      source: "/((?!api/|_next/static/|_next/image|favicon.ico).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
