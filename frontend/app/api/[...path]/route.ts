import type { NextRequest } from "next/server";
import {
  apiBaseUrl,
  clientAddress,
  FORWARDED_REQUEST_HEADERS,
  FORWARDED_RESPONSE_HEADERS,
  PEER_FORWARDED,
} from "@/lib/proxy-config";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

let lastLoggedAt = 0;
let warnedNoPeer = false;

function warnNoPeerAddress(): void {
  if (warnedNoPeer) return;
  warnedNoPeer = true;
  console.error("[parley-web] not started by server.mjs (npm start): the API is told the browser's address is unknown");
}

function unreachable(detail: string): Response {
  // The API's address stays in the server log (at most every 30 s); the browser only learns that it is down.
  if (Date.now() - lastLoggedAt > 30_000) {
    lastLoggedAt = Date.now();
    console.error(`[parley-web] API unreachable at ${apiBaseUrl()}: ${detail}`);
  }
  return Response.json(
    {
      error: {
        code: "api_unreachable",
        message: "The Parley API cannot be reached. Check that it is running, then retry.",
      },
    },
    { status: 502, headers: { "cache-control": "no-store" } },
  );
}

async function proxy(request: NextRequest): Promise<Response> {
  const { pathname, search } = request.nextUrl;
  const target = `${apiBaseUrl()}${pathname}${search}`;

  const headers = new Headers();
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  if (process.env[PEER_FORWARDED] !== "1") warnNoPeerAddress();
  headers.set("x-forwarded-for", clientAddress(request.headers.get("x-forwarded-for")));

  const hasBody = request.method !== "GET" && request.method !== "HEAD";
  let upstream: Response;
  try {
    upstream = await fetch(target, {
      method: request.method,
      headers,
      body: hasBody ? await request.arrayBuffer() : undefined,
      signal: request.signal,
      redirect: "manual",
      cache: "no-store",
    });
  } catch (error) {
    if (request.signal.aborted) return new Response(null, { status: 499 });
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const detail = cause instanceof Error ? cause.message : "connection failed";
    return unreachable(detail);
  }

  const responseHeaders = new Headers();
  for (const name of FORWARDED_RESPONSE_HEADERS) {
    const value = upstream.headers.get(name);
    if (value !== null) responseHeaders.set(name, value);
  }
  // Each cookie is its own header: joined with commas they would no longer parse.
  for (const cookie of upstream.headers.getSetCookie()) responseHeaders.append("set-cookie", cookie);
  const isStream = (upstream.headers.get("content-type") ?? "").includes("text/event-stream");
  if (isStream) {
    // no-transform keeps compression (which buffers) away from the event stream.
    responseHeaders.set("cache-control", "no-cache, no-transform");
    responseHeaders.set("x-accel-buffering", "no");
  } else if (!responseHeaders.has("cache-control")) {
    responseHeaders.set("cache-control", "no-store");
  }

  const noBody = upstream.status === 204 || upstream.status === 304 || request.method === "HEAD";
  return new Response(noBody ? null : upstream.body, {
    status: upstream.status,
    statusText: upstream.statusText,
    headers: responseHeaders,
  });
}

export const GET = proxy;
export const POST = proxy;
export const PUT = proxy;
export const PATCH = proxy;
export const DELETE = proxy;
export const HEAD = proxy;
export const OPTIONS = proxy;
