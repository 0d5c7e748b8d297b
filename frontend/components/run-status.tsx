import { runFinished, statusLabel, type Run } from "@/lib/agent-types";

/**
 * A run's status chip and, while it runs and reports one, its progress bar. A delegated run
 * nobody has claimed yet says so instead of "Running".
 */
export function RunStatus({ run, unclaimed = false }: { run: Run; unclaimed?: boolean }) {
  return (
    <span className="run-status">
      <span
        className={`status-chip status-${unclaimed ? "pending" : run.status}`}
        data-testid="run-status"
        data-status={run.status}
        data-unclaimed={unclaimed || undefined}
      >
        {unclaimed ? "Not claimed yet" : statusLabel(run.status)}
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
