"use client";

import * as Menu from "@radix-ui/react-dropdown-menu";
import type { ReactNode } from "react";
import { signOut } from "@/lib/auth-store";

interface Props {
  userId: string;
  phone: boolean;
  openTasks: number | null;
  onOpenConversations: () => void;
  onOpenTasks: () => void;
  onOpenAccount: () => void;
  /** More header buttons (the Runs panel). */
  extra?: ReactNode;
}

export function AppHeader({ userId, phone, openTasks, onOpenConversations, onOpenTasks, onOpenAccount, extra }: Props) {
  return (
    <header className="app-header">
      <a className="skip-link" href="#message-input">
        Skip to the message box
      </a>
      {phone && (
        <button type="button" className="button icon ghost" onClick={onOpenConversations} aria-label="Conversations" data-testid="open-conversations">
          <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
            <path fill="currentColor" d="M3 6h18v2H3zm0 5h18v2H3zm0 5h18v2H3z" />
          </svg>
        </button>
      )}
      <h1 className="brand">Parley</h1>
      <div className="header-user">
        {extra}
        {phone && (
          <button type="button" className="button small" onClick={onOpenTasks} data-testid="open-tasks">
            Tasks{openTasks ? <span className="count-badge">{openTasks}</span> : null}
          </button>
        )}
        <span className="muted user-name" data-testid="current-user" title={`Signed in as ${userId}`}>
          <span className="sr-only">Signed in as </span>
          {userId}
        </span>
        {phone ? (
          <AccountMenu userId={userId} onOpenAccount={onOpenAccount} />
        ) : (
          <>
            <button
              type="button"
              className="button icon ghost"
              onClick={onOpenAccount}
              aria-label="Account"
              title="Account"
              data-testid="open-account"
            >
              <PersonIcon />
            </button>
            <button type="button" className="button small ghost" onClick={() => void signOut()} data-testid="sign-out">
              Sign out
            </button>
          </>
        )}
      </div>
    </header>
  );
}

function PersonIcon() {
  return (
    <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
      <path fill="currentColor" d="M12 12a4.5 4.5 0 1 0 0-9 4.5 4.5 0 0 0 0 9zm0 2c-4 0-8 2-8 5v2h16v-2c0-3-4-5-8-5z" />
    </svg>
  );
}

/** On a phone the header has room for one account control: Account and Sign out in a menu. */
function AccountMenu({ userId, onOpenAccount }: { userId: string; onOpenAccount: () => void }) {
  return (
    <Menu.Root modal={false}>
      <Menu.Trigger className="button icon ghost" aria-label="Account menu" title="Account menu" data-testid="account-menu">
        <PersonIcon />
      </Menu.Trigger>
      <Menu.Portal>
        <Menu.Content className="menu" align="end" sideOffset={4}>
          <Menu.Label className="menu-label muted small">Signed in as {userId}</Menu.Label>
          <Menu.Item className="menu-item" onSelect={onOpenAccount} data-testid="open-account">
            Account
          </Menu.Item>
          <Menu.Item className="menu-item" onSelect={() => void signOut()} data-testid="sign-out">
            Sign out
          </Menu.Item>
        </Menu.Content>
      </Menu.Portal>
    </Menu.Root>
  );
}
