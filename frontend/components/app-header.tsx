"use client";

import { signOut } from "@/lib/auth-store";

export function AppHeader({ userId }: { userId: string }) {
  return (
    <header className="app-header">
      <a className="skip-link" href="#message-input">
        Skip to the message box
      </a>
      <h1 className="brand">Parley</h1>
      <div className="header-user">
        <span className="muted" data-testid="current-user">
          Signed in as <strong>{userId}</strong>
        </span>
        <button type="button" className="button small" onClick={signOut}>
          Sign out
        </button>
      </div>
    </header>
  );
}
