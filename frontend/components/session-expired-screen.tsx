"use client";

import { signOut } from "@/lib/auth-store";

/** Shown when the API rejects the stored token (401/403). */
export function SessionExpiredScreen({ userId }: { userId: string }) {
  return (
    <main className="center-screen">
      <section className="card" aria-labelledby="expired-title" data-testid="session-expired" role="alert">
        <h1 id="expired-title">Your session has ended</h1>
        <p>
          The Parley API no longer accepts the sign-in saved for <strong>{userId}</strong> (it expired, or the server&apos;s
          secret changed). Sign in again to continue; your conversations and tasks are kept on the server.
        </p>
        <button type="button" className="button primary" onClick={signOut} autoFocus>
          Sign in again
        </button>
      </section>
    </main>
  );
}
