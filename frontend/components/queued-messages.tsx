"use client";

interface Props {
  queued: readonly string[];
  /** Takes one message off the queue and puts it back in the message box. */
  onUnqueue: (index: number) => void;
}

/**
 * Messages sent while a reply runs, each its own bubble, in the order they go out (each its
 * own turn once the reply before it is over).
 */
export function QueuedMessages({ queued, onUnqueue }: Props) {
  if (queued.length === 0) return null;
  return (
    <ol className="queued-messages" aria-label="Queued messages" data-testid="queued-messages">
      {queued.map((text, index) => (
        <li key={index} className="message role-user is-queued" data-testid="queued-message">
          <header className="message-meta">
            <span className="message-author">You</span>
            <span className="kind-tag" role="status">
              {index === 0 ? "Queued: sends when the current reply finishes" : `Queued (${index + 1} of ${queued.length})`}
            </span>
          </header>
          <div className="message-text" data-testid="queued-text">
            {text}
          </div>
          <button type="button" className="link-button small" onClick={() => onUnqueue(index)} data-testid="queued-edit">
            Edit
          </button>
        </li>
      ))}
    </ol>
  );
}
