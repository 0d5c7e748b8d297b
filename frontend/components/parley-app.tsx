"use client";

import { useAuth } from "@/lib/use-auth";
import { SessionExpiredScreen } from "./session-expired-screen";
import { SignInScreen } from "./sign-in-screen";
import { Workspace } from "./workspace";

/** Chooses the screen from who the session cookie belongs to (`GET /api/auth/me`). */
export function ParleyApp() {
  const auth = useAuth();
  switch (auth.status) {
    case "loading":
      return (
        <main className="center-screen" data-testid="app-loading">
          <p className="muted">Loading Parley…</p>
        </main>
      );
    case "signed-out":
      return <SignInScreen />;
    case "expired":
      return <SessionExpiredScreen userId={auth.session.userId} />;
    case "signed-in":
      return <Workspace key={`${auth.session.userId}:${auth.session.epoch}`} session={auth.session} />;
  }
}
