"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { signOut, type Session } from "@/lib/auth-store";
import { useAuthConfig } from "@/lib/use-auth-config";
import { AccountAdmin } from "./account-admin";
import { AccountAgentKeys } from "./account-agent-keys";
import { AccountApprovalRules } from "./account-approval-rules";
import { AccountAudit } from "./account-audit";
import { AccountConnectedApps } from "./account-connected-apps";
import { AccountEmail } from "./account-email";
import { AccountInstructions } from "./account-instructions";
import { AccountNotifications } from "./account-notifications";
import { AccountPasskeys } from "./account-passkeys";
import { AccountSecondFactor } from "./account-second-factor";
import { AccountPassword } from "./account-password";
import { AccountSessions } from "./account-sessions";
import { AccountSso } from "./account-sso";
import { ReauthProvider } from "./reauth-provider";
import { useSWRConfig } from "swr";

interface Props {
  session: Session;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** How "Link single sign-on" went, when the identity provider just sent the browser back. */
  ssoResult?: { ok: boolean; text: string } | null;
}

/** Account settings in a dialog (full screen at phone width). */
export function AccountPanel({ session, open, onOpenChange, ssoResult = null }: Props) {
  const { mutate } = useSWRConfig();
  const { config } = useAuthConfig();
  // Another sign-out ended the others: the sessions list is stale.
  const refreshSessions = () => void mutate((key) => Array.isArray(key) && String(key[2]).endsWith("/sessions"));

  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="drawer-overlay" />
        <Dialog.Content className="account-panel" data-testid="account-panel" aria-describedby={undefined}>
          <div className="drawer-head">
            <Dialog.Title className="drawer-title">Account</Dialog.Title>
            <Dialog.Close className="button icon ghost" aria-label="Close account">
              <span aria-hidden="true">✕</span>
            </Dialog.Close>
          </div>
          <ReauthProvider session={session}>
            <div className="account-body">
              <section className="account-section" aria-label="Profile">
                <p>
                  Signed in as <strong data-testid="account-user">{session.userId}</strong>
                  {session.isAdmin ? <span className="chip">admin</span> : null}
                </p>
                <button type="button" className="button small" onClick={() => void signOut()} data-testid="account-sign-out">
                  Sign out
                </button>
              </section>
              <AccountInstructions session={session} />
              <AccountEmail session={session} config={config} />
              {config?.oidc && <AccountSso session={session} config={config} result={ssoResult} />}
              <AccountPassword onChanged={refreshSessions} />
              <AccountSecondFactor session={session} />
              <AccountSessions session={session} onEndedCurrent={() => void signOut()} />
              <AccountNotifications session={session} />
              <AccountPasskeys session={session} />
              <AccountAgentKeys session={session} />
              <AccountApprovalRules session={session} />
              <AccountAudit session={session} />
              <AccountConnectedApps session={session} />
              {session.isAdmin && <AccountAdmin session={session} />}
            </div>
          </ReauthProvider>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
