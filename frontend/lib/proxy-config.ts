/** Server-only: where the Parley API lives. Read on every request so the value is taken at run time. */
export function apiBaseUrl(): string {
  const raw = process.env.PARLEY_API_URL || "http://127.0.0.1:8000";
  return raw.replace(/\/+$/, "");
}

/**
 * Request headers the browser may send through to the API: the session cookie, and `origin`
 * so the API can refuse a cross-site request that carries it; `user-agent` names the device
 * in the sessions list; `x-parley-device` names the notification device an answer came from
 * (the service worker's Allow / Deny), `x-parley-via` that the answer came from a question an
 * emailed link opened (both for the audit trail; the API checks them). `x-forwarded-for` is not
 * taken from the browser: the proxy sets it (see clientAddress).
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
  "x-parley-via",
] as const;

/**
 * Response headers copied back from the API (`set-cookie` separately: there may be several);
 * `content-disposition` says an attachment is a download (and its name).
 */
export const FORWARDED_RESPONSE_HEADERS = [
  "content-type",
  "content-disposition",
  "cache-control",
  "retry-after",
  "location",
  "www-authenticate",
  // A conversation's export arrives as a file, named.
  "content-disposition",
] as const;

/** Set by server.mjs (`npm start`), which writes x-forwarded-for from the socket's peer. */
export const PEER_FORWARDED = "PARLEY_WEB_PEER_FORWARDED";

/**
 * The browser's address as the API should see it (sign-in limits are per address; dev sign-in
 * answers only this machine): the one server.mjs wrote into x-forwarded-for from the socket,
 * replacing whatever the browser sent. Served any other way (plain `next start`) that header is
 * the browser's own claim, so the API is told `unknown`: never this machine, never a victim's
 * address.
 */
export function clientAddress(
  forwardedFor: string | null,
  fromSocket: boolean = process.env[PEER_FORWARDED] === "1",
): string {
  if (!fromSocket) return "unknown";
  const hops = (forwardedFor ?? "")
    .split(",")
    .map((hop) => hop.trim())
    .filter(Boolean);
  return hops.at(-1) ?? "unknown";
}
