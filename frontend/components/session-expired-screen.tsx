"use client";

import { acknowledgeExpired } from "@/lib/auth-store";

/** Shown when the API refuses the session (401): signed out elsewhere, ended, or expired. */
export function SessionExpiredScreen({ userId }: { userId: string }) {
  return (
    <main className="center-screen">
      <section className="card" aria-labelledby="expired-title" data-testid="session-expired" role="alert">
        <h1 id="expired-title">Your session has ended</h1>
        <p>
          The Parley API no longer accepts the sign-in of <strong>{userId}</strong> on this browser (it was ended from
          another device, or it expired). Sign in again to continue; your conversations and tasks are kept on the server.
        </p>
        <button type="button" className="button primary" onClick={acknowledgeExpired} autoFocus>
          Sign in again
        </button>
      </section>
    </main>
  );
}
