import type { Metadata } from "next";
import { VerifyEmailScreen } from "@/components/verify-email-screen";

// The path holds a one-time secret: no page it links to learns it from the Referer.
export const metadata: Metadata = { referrer: "no-referrer" };

/** Where an emailed link that verifies an account's email opens. */
export default async function VerifyEmailPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return <VerifyEmailScreen token={token} />;
}
