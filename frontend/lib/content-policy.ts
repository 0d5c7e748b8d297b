/**
 * The web UI's Content-Security-Policy: scripts only from this origin and only those Next.js
 * loads with the page's nonce ('strict-dynamic'), so an injected `<script>` or inline handler
 * never runs; no plugins, no `<base>`, never framed; forms post only here.
 *
 * The OAuth consent page's form is answered by a redirect to the client, and Chromium holds a
 * form's whole redirect chain to `form-action`, so that page also names where the client is:
 * `consent?client=<origin>`, written by the API next to the request it made. The value is only
 * a hint: it can widen where that page's one form (which posts here) may end up, never where the
 * API redirects to, and only to the shapes a redirect URI may have.
 */

/** A random nonce per response (128 bits, base64). */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

const WEB_ORIGIN = /^https:\/\/[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?(?::[1-9][0-9]{0,4})?$/;
const LOOPBACK_ORIGIN = /^http:\/\/(?:127\.0\.0\.1|localhost)(?::[1-9][0-9]{0,4})?$/;
const IPV6_LOOPBACK_ORIGIN = /^http:\/\/\[::1\](?::[1-9][0-9]{0,4})?$/;
const APP_SCHEME = /^[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)+:$/;

/**
 * The `form-action` source for a consent page's `client` hint, or null when the hint is not
 * one of a redirect URI's shapes (https origin, loopback http origin, reverse-DNS app scheme).
 * CSP cannot name an IPv6 address, so `[::1]` becomes `http:`.
 */
export function formTargetSource(hint: string | null): string | null {
  if (!hint) return null;
  if (WEB_ORIGIN.test(hint) || LOOPBACK_ORIGIN.test(hint) || APP_SCHEME.test(hint)) return hint;
  if (IPV6_LOOPBACK_ORIGIN.test(hint)) return "http:";
  return null;
}

export interface PolicyOptions {
  nonce: string;
  /** `next dev` evaluates code (React's error overlays); a built app never does. */
  dev: boolean;
  /** Where a form may lead besides this origin (the consent page's client). */
  formTarget?: string | null;
}

export function contentSecurityPolicy({ nonce, dev, formTarget }: PolicyOptions): string {
  const directives = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    // React sets style attributes (code highlighting's colours); styles cannot run script.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "worker-src 'self'",
    "manifest-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    `form-action 'self'${formTarget ? ` ${formTarget}` : ""}`,
    "frame-ancestors 'none'",
  ];
  return directives.join("; ");
}
