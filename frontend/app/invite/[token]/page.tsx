import { InviteScreen } from "@/components/invite-screen";

/** A one-time invite link from an admin: sign up with it. */
export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return <InviteScreen token={token} />;
}
