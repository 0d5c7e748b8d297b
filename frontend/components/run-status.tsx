import { runFinished, statusLabel, type Run } from "@/lib/agent-types";

/**
 * A run's status chip and, while it runs and reports one, its progress bar. A delegated run
 * nobody has claimed yet says so instead of "Running"; so does a work session waiting for the
 * person's next message ("Idle").
 */
export function RunStatus({ run, unclaimed = false, idle = false }: { run: Run; unclaimed?: boolean; idle?: boolean }) {
  const shown = idle ? "idle" : run.status;
  return (
    <span className="run-status">
      <span
        className={`status-chip status-${unclaimed ? "pending" : shown}`}
        data-testid="run-status"
        data-status={shown}
        data-unclaimed={unclaimed || undefined}
      >
        {unclaimed ? "Not claimed yet" : statusLabel(shown)}
      </span>
      {run.progress !== null && !runFinished(run) && (
        <span className="run-progress">
          <progress max={100} value={run.progress} aria-label={`Progress of ${run.title || run.agent}`} />
          <span className="muted small" data-testid="run-progress">
            {run.progress}%
          </span>
        </span>
      )}
    </span>
  );
}
