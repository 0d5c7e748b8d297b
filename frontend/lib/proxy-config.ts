/** Server-only: where the Parley API lives. Read on every request so the value is taken at run time. */
export function apiBaseUrl(): string {
  const raw = process.env.PARLEY_API_URL || "http://127.0.0.1:8000";
  return raw.replace(/\/+$/, "");
}

/**
 * Request headers the browser may send through to the API: the session cookie, and `origin`
 * so the API can refuse a cross-site request that carries it; `user-agent` names the device
 * in the sessions list; `x-parley-device` names the notification device an answer came from
 * (the service worker's Allow / Deny). `x-forwarded-for` is not taken from the browser: the proxy
 * sets it (see clientAddress).
 */
export const FORWARDED_REQUEST_HEADERS = [
  "authorization",
  "content-type",
  "accept",
  "last-event-id",
  "accept-language",
  "cookie",
  "origin",
  "user-agent",
  "x-parley-device",
] as const;

/** Response headers copied back from the API (`set-cookie` separately: there may be several). */
export const FORWARDED_RESPONSE_HEADERS = [
  "content-type",
  "cache-control",
  "retry-after",
  "location",
  "www-authenticate",
] as const;

/**
 * The browser's address as the API should see it (sign-in throttling is per address): the last
 * hop of `x-forwarded-for`. Next's server fills that header with the socket's address when the
 * request has none, and a reverse proxy in front appends the address it saw, so the last hop is
 * the one nobody but the nearest hop wrote; earlier hops are the client's own claims.
 */
export function clientAddress(forwardedFor: string | null): string | null {
  if (!forwardedFor) return null;
  const hops = forwardedFor
    .split(",")
    .map((hop) => hop.trim())
    .filter(Boolean);
  return hops.at(-1) ?? null;
}
