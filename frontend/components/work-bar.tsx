"use client";

import { useState } from "react";
import { statusLabel, type WorkState } from "@/lib/agent-types";
import { useAction } from "@/lib/use-action";

interface Props {
  work: WorkState | null;
  /** End asked for in this tab, before the session's own state says so ("ending" until the server answers). */
  ending?: "ending" | "ended" | null;
  /** A permission card in the conversation waits for the person (the same test the card uses). */
  permissionWaiting?: boolean;
  /** This tab's prompt is running (the composer has its own Stop then). */
  sending: boolean;
  onStop: () => Promise<void>;
  onEnd: () => Promise<void>;
  /** Why this server cannot run work sessions (from /api/health), if it cannot. */
  unavailable?: string | null;
}

export function formatCost(usd: number | null | undefined): string {
  const value = usd ?? 0;
  return value >= 1 ? `$${value.toFixed(2)}` : `$${value.toFixed(4)}`;
}

/** A work session's state: status chip, cost so far, Stop (the current prompt) and End. */
export function WorkBar({ work, ending = null, permissionWaiting = false, sending, onStop, onEnd, unavailable }: Props) {
  const { error, run: act } = useAction();
  const [confirmEnd, setConfirmEnd] = useState(false);
  // A permission card waiting for the person is never "Idle", whatever the session said last
  // (its process ends with a deferring result just before the session records the wait).
  const waiting = (permissionWaiting || work?.pending_question_id != null) && work?.status !== "ended";
  const status = ending ?? (waiting ? "waiting_permission" : (work?.status ?? "idle"));
  const busy = status === "working" || status === "waiting_permission" || status === "starting";
  const ended = status === "ended" || status === "ending";

  return (
    <div className="work-bar" data-testid="work-bar">
      <span className={`status-chip status-${status}`} data-testid="work-status" data-status={status} role="status">
        <span className="sr-only">Session: </span>
        {work || waiting || ending ? statusLabel(status) : "Not started"}
      </span>
      <span className="muted small" data-testid="work-cost" title="Cost of this session so far">
        Cost {formatCost(work?.cost_usd)}
      </span>
      {work?.workspace && (
        <span className="muted small work-workspace" title="Workspace folder">
          {work.workspace}
        </span>
      )}
      <span className="composer-spacer" />
      {busy && !sending && (
        <button type="button" className="button small" onClick={() => void act(onStop)} data-testid="work-stop">
          Stop
        </button>
      )}
      {work && !ended &&
        (confirmEnd ? (
          <span className="confirm" role="group" aria-label="End the session?">
            <button
              type="button"
              className="button tiny danger"
              onClick={() => void act(onEnd).finally(() => setConfirmEnd(false))}
              data-testid="work-end-confirm"
              autoFocus
            >
              End session
            </button>
            <button type="button" className="button tiny" onClick={() => setConfirmEnd(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <button type="button" className="button small" onClick={() => setConfirmEnd(true)} data-testid="work-end">
            End
          </button>
        ))}
      {error && (
        <p className="error-text small" role="alert">
          {error}
        </p>
      )}
      {status === "ended" && !unavailable && (
        <span className="muted small" data-testid="work-ended-note">
          Send a message to start a new session; it picks up where this one left off.
        </span>
      )}
      {unavailable && !ended && (
        <p className="work-unavailable small" data-testid="work-unavailable">
          Work sessions can&apos;t run on this server: {unavailable}
        </p>
      )}
    </div>
  );
}
