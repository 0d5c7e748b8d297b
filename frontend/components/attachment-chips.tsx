"use client";

import { attachmentUrl, formatSize, type AttachmentMeta } from "@/lib/attachments";
import type { PendingFile } from "@/lib/use-attachments";
import { useAuth } from "@/lib/use-auth";

/** A paperclip (the composer's Attach button). */
export function PaperclipIcon() {
  return (
    <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
      <path
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
        d="M21 11.5l-8.6 8.6a5 5 0 0 1-7.1-7.1l8.6-8.6a3.3 3.3 0 0 1 4.7 4.7l-8.6 8.6a1.7 1.7 0 0 1-2.4-2.4l7.9-7.9"
      />
    </svg>
  );
}

function FileIcon() {
  return (
    <svg className="attachment-icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false">
      <path fill="none" stroke="currentColor" strokeWidth="2" strokeLinejoin="round" d="M14 3H6v18h12V7l-4-4zm0 0v4h4" />
    </svg>
  );
}

/** The composer's files: name, size, progress or why it was refused, and a remove button. */
export function PendingAttachments({ files, onRemove }: { files: PendingFile[]; onRemove: (key: string) => void }) {
  if (files.length === 0) return null;
  return (
    <ul className="attachment-chips" data-testid="composer-attachments" aria-label="Attached files">
      {files.map((file) => (
        <li
          key={file.key}
          className={`attachment-chip is-${file.status}`}
          data-testid="composer-attachment"
          data-status={file.status}
          aria-busy={file.status === "uploading" ? true : undefined}
        >
          {file.preview && file.status !== "error" && (
            // A local object URL: nothing for next/image to optimise.
            // eslint-disable-next-line @next/next/no-img-element
            <img className="attachment-preview" src={file.preview} alt="" />
          )}
          <span className="attachment-name" title={file.name}>
            {file.name}
          </span>
          <span className="attachment-size muted">
            {file.status === "uploading" ? `${Math.round(file.progress * 100)}%` : formatSize(file.size)}
          </span>
          {file.status === "uploading" && (
            <progress className="attachment-progress" max={1} value={file.progress} aria-label={`Uploading ${file.name}`} />
          )}
          <button
            type="button"
            className="attachment-remove"
            onClick={() => onRemove(file.key)}
            aria-label={`Remove ${file.name}`}
            data-testid="attachment-remove"
          >
            ×
          </button>
          {file.error && (
            <span className="attachment-error error-text small" role="alert" data-testid="attachment-error">
              {file.error}
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}

/** A sent message's files: images as thumbnails, text and code as chips that download. */
export function MessageAttachments({ items }: { items: AttachmentMeta[] }) {
  const auth = useAuth();
  if (items.length === 0 || (auth.status !== "signed-in" && auth.status !== "expired")) return null;
  const userId = auth.session.userId;
  return (
    <ul className="attachment-chips message-attachments" data-testid="message-attachments" aria-label="Attached files">
      {items.map((item) =>
        item.kind === "image" ? (
          <li key={item.id} className="attachment-image" data-testid="message-attachment" data-kind="image">
            <a href={attachmentUrl(userId, item.id)} target="_blank" rel="noopener noreferrer" title={`${item.name} (${formatSize(item.size)})`}>
              {/* The owner's file, read with their session cookie: never through an image optimiser. */}
              {/* eslint-disable-next-line @next/next/no-img-element */}
              <img src={attachmentUrl(userId, item.id)} alt={item.name} loading="lazy" />
            </a>
          </li>
        ) : (
          <li key={item.id} className="attachment-chip is-ready" data-testid="message-attachment" data-kind="text">
            <a href={attachmentUrl(userId, item.id, true)} download={item.name} className="attachment-link" title={`Download ${item.name}`}>
              <FileIcon />
              <span className="attachment-name">{item.name}</span>
              <span className="attachment-size muted">{formatSize(item.size)}</span>
            </a>
          </li>
        ),
      )}
    </ul>
  );
}
