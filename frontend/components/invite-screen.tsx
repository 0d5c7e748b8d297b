"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { ApiError, describeError } from "@/lib/api-error";
import type { Invite } from "@/lib/account-types";
import { fetchInvite, oidcLoginUrl } from "@/lib/auth-api";
import { useAuthConfig } from "@/lib/use-auth-config";
import { SignUpForm } from "./sign-up-form";

type Lookup = { status: "loading" } | { status: "valid"; invite: Invite } | { status: "invalid" } | { status: "error"; text: string };

/** Redeems an invite link: the account is created with it, then the workspace opens. */
export function InviteScreen({ token }: { token: string }) {
  const router = useRouter();
  const [lookup, setLookup] = useState<Lookup>({ status: "loading" });
  const { config } = useAuthConfig();

  useEffect(() => {
    let live = true;
    fetchInvite(token).then(
      (invite) => live && setLookup({ status: "valid", invite }),
      (err: unknown) => {
        if (!live) return;
        if (err instanceof ApiError && (err.status === 404 || err.status === 410)) setLookup({ status: "invalid" });
        else setLookup({ status: "error", text: describeError(err) });
      },
    );
    return () => {
      live = false;
    };
  }, [token]);

  return (
    <main className="center-screen">
      <section className="card sign-in" aria-labelledby="invite-title" data-testid="invite-screen">
        <h1 id="invite-title">Join Parley</h1>
        {lookup.status === "loading" && <p className="muted">Checking your invite…</p>}
        {lookup.status === "invalid" && (
          <p role="alert" data-testid="invite-invalid">
            This invite link is not valid: it was already used, it expired, or it was mistyped. Ask for a new one.
          </p>
        )}
        {lookup.status === "error" && (
          <p className="error-text" role="alert">
            {lookup.text}
          </p>
        )}
        {lookup.status === "valid" && (
          <>
            <p className="muted">You were invited to this team&apos;s Parley. Choose a user name and a password.</p>
            <SignUpForm invite={{ token, email: lookup.invite.email ?? null, userId: lookup.invite.user_id ?? null }} onSignedUp={() => router.replace("/")} />
            {config?.oidc && (
              <a className="button" href={oidcLoginUrl("/", token)} data-testid="invite-oidc">
                Sign up with {config.oidc_name || "single sign-on"}
              </a>
            )}
          </>
        )}
        <p className="muted small">
          <Link href="/">Already have an account? Sign in</Link>
        </p>
      </section>
    </main>
  );
}
