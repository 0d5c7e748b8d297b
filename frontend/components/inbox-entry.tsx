"use client";

interface Props {
  unread: number;
  current: boolean;
  onOpen: () => void;
}

export function unreadText(count: number): string {
  return count > 999 ? "999+" : String(count);
}

/** The person's inbox, pinned above the conversations: agents write here first. */
export function InboxEntry({ unread, current, onOpen }: Props) {
  return (
    <div className={`inbox-entry${current ? " current" : ""}`}>
      <button
        type="button"
        className="inbox-open"
        onClick={onOpen}
        aria-current={current ? "true" : undefined}
        data-testid="inbox-entry"
        aria-label={unread > 0 ? `Inbox, ${unread} unread` : "Inbox"}
      >
        <span className="inbox-icon" aria-hidden="true">
          ✉
        </span>
        <span className="inbox-label">Inbox</span>
        {unread > 0 && (
          <span className="count-badge unread-badge" data-testid="inbox-unread" aria-hidden="true">
            {unreadText(unread)}
          </span>
        )}
      </button>
    </div>
  );
}
