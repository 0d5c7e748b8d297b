/** Server-only: where the Parley API lives. Read on every request so the value is taken at run time. */
export function apiBaseUrl(): string {
  const raw = process.env.PARLEY_API_URL || "http://127.0.0.1:8000";
  return raw.replace(/\/+$/, "");
}

/** Request headers the browser may send through to the API. */
export const FORWARDED_REQUEST_HEADERS = [
  "authorization",
  "content-type",
  "accept",
  "last-event-id",
  "accept-language",
] as const;

/** Response headers copied back from the API. */
export const FORWARDED_RESPONSE_HEADERS = [
  "content-type",
  "cache-control",
  "retry-after",
  "location",
  "www-authenticate",
] as const;
