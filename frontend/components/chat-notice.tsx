import type { Notice } from "@/lib/chat-reducer";

/** An error (or "still busy") line under the messages, with Retry. */
export function ChatNotice({ notice, onRetry, onDismiss }: { notice: Notice; onRetry: () => void; onDismiss: () => void }) {
  return (
    <div className={`chat-notice ${notice.kind}`} role="alert" data-testid="chat-error" data-kind={notice.kind}>
      <span>{notice.text}</span>
      <span className="notice-actions">
        {notice.action.type !== "none" && (
          <button type="button" className="button small primary" onClick={onRetry} data-testid="chat-retry">
            Retry
          </button>
        )}
        <button type="button" className="button small" onClick={onDismiss}>
          Dismiss
        </button>
      </span>
    </div>
  );
}
