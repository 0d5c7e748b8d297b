/**
 * WebAuthn's relying party id is the page's host name, and browsers refuse an IP address as
 * one ("127.0.0.1 is an invalid domain"): at an IP the passkey buttons could only fail, so
 * the UI says where they work instead.
 */

/** True for an IPv4 or IPv6 literal as `URL.hostname` gives it (IPv6 in brackets). */
export function isIpLiteral(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "");
  if (host.includes(":")) return true; // only IPv6 literals hold a colon in a host name
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host);
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "");
  return host === "::1" || /^127\./.test(host);
}

/** Null where passkeys can work; else the short line shown where their buttons would be. */
export function passkeyHostProblem(href: string): string | null {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (!isIpLiteral(url.hostname)) return null;
  if (isLoopback(url.hostname)) {
    return `Passkeys need a name, not an IP: open ${url.protocol}//localhost${url.port ? `:${url.port}` : ""}`;
  }
  return "Passkeys need a name, not an IP: open this site by its host name";
}

/** The line for the page being shown (null on the server, where there is no address). */
export function passkeyHostProblemHere(): string | null {
  return typeof window === "undefined" ? null : passkeyHostProblem(window.location.href);
}
