import { OAuthConsentScreen } from "@/components/oauth-consent-screen";

/** Where Parley's authorization server sends a person whose MCP client asked to connect. */
export default async function OAuthConsentPage({ searchParams }: { searchParams: Promise<{ request?: string | string[] }> }) {
  const { request } = await searchParams;
  return <OAuthConsentScreen request={typeof request === "string" ? request : ""} />;
}
