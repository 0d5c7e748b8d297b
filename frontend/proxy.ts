import { NextResponse, type NextRequest } from "next/server";
import { contentSecurityPolicy, formTargetSource, newNonce } from "@/lib/content-policy";

/**
 * Every page gets a Content-Security-Policy with a fresh nonce. Next.js reads the nonce from the
 * request's copy of the header while it renders and puts it on its own scripts, so nothing
 * else (an injected tag, an inline handler) runs.
 */
export function proxy(request: NextRequest): NextResponse {
  const nonce = newNonce();
  const { pathname, searchParams } = request.nextUrl;
  const formTarget = pathname === "/oauth/consent" ? formTargetSource(searchParams.get("client")) : null;
  const policy = contentSecurityPolicy({ nonce, dev: process.env.NODE_ENV === "development", formTarget });
  const headers = new Headers(request.headers);
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  return response;
}

export const config = {
  matcher: [
    {
      // Not the API (the proxy route answers JSON, and next.config gives it a policy of its own)
      // nor built assets; prefetches carry no document.
      source: "/((?!api/|_next/static/|_next/image|icons/).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
