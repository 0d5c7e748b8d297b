"use client";

import { runLatest, runSection, type Run, type RunSection } from "@/lib/agent-types";
import type { Session } from "@/lib/auth-store";
import { useWaitingForClaim } from "@/lib/use-thread-claim";
import { shortTime } from "@/lib/format-time";
import { runTree, type RunNode } from "@/lib/use-runs";
import { runIdle } from "@/lib/idle-runs";
import { RunStatus } from "./run-status";

interface Props {
  session: Session;
  runs: Run[] | null;
  error: string | null;
  openRunId: number | null;
  onOpen: (run: Run) => void;
  /** Runs of work sessions waiting for the next message (see `idleWorkRuns`). */
  idle?: ReadonlySet<number>;
}

const NONE: ReadonlySet<number> = new Set();

const SECTIONS: { key: RunSection | "idle"; title: string }[] = [
  { key: "waiting", title: "Waiting for input" },
  { key: "running", title: "Running" },
  { key: "idle", title: "Idle" },
  { key: "finished", title: "Finished" },
];

interface RowProps {
  session: Session;
  node: RunNode;
  openRunId: number | null;
  onOpen: (run: Run) => void;
  idle: ReadonlySet<number>;
}

function RunRow({ session, node, openRunId, onOpen, idle }: RowProps) {
  const { run } = node;
  const unclaimed = useWaitingForClaim(session, run);
  const title = run.title || `Run #${run.id}`;
  const latest = runLatest(run);
  return (
    <li className="run-node" data-testid="run-node" data-run-id={run.id}>
      <button
        type="button"
        className={`run-item${openRunId === run.id ? " current" : ""}`}
        onClick={() => onOpen(run)}
        aria-current={openRunId === run.id ? "true" : undefined}
        data-testid="run-item"
        data-run-id={run.id}
        data-status={runIdle(run, idle) ? "idle" : run.status}
      >
        <span className="run-title">
          <span className="run-agent">{run.agent}</span>
          {run.parent_run_id !== null && <span className="sr-only"> (delegated)</span>}
          <span className="run-name">{title}</span>
        </span>
        <RunStatus run={run} unclaimed={unclaimed} idle={runIdle(run, idle)} />
        {latest && (
          <span className="run-latest muted small" data-testid="run-latest">
            {latest}
          </span>
        )}
        <time className="muted small" dateTime={run.last_activity_at}>
          {shortTime(run.last_activity_at)}
        </time>
      </button>
      {node.children.length > 0 && (
        <ul className="run-children" aria-label={`Delegated by ${run.agent}`}>
          {node.children.map((child) => (
            <RunRow key={child.run.id} session={session} node={child} openRunId={openRunId} onOpen={onOpen} idle={idle} />
          ))}
        </ul>
      )}
    </li>
  );
}

/**
 * The person's agent runs: waiting for input first, then running, then idle work sessions,
 * then finished; a run that
 * delegated work shows its children under it, whatever their state.
 */
export function RunsPanel({ session, runs, error, openRunId, onOpen, idle = NONE }: Props) {
  const roots = runs ? runTree(runs) : [];
  return (
    <section className="runs-panel" aria-label="Runs" data-testid="runs-panel">
      {error && (
        <p className="error-text pad" role="alert">
          {error}
        </p>
      )}
      {runs === null && !error && <p className="muted pad">Loading…</p>}
      {runs?.length === 0 && (
        <p className="muted pad" data-testid="runs-empty">
          No agent runs yet. Agents start runs through the API or the MCP tools.
        </p>
      )}
      {SECTIONS.map(({ key, title }) => {
        const here = roots.filter((node) => (runIdle(node.run, idle) ? "idle" : runSection(node.run)) === key);
        if (here.length === 0) return null;
        return (
          <div key={key} className="run-section" data-testid={`runs-${key}`}>
            <h3 className="run-section-title">
              {title} <span className="muted">({here.length})</span>
            </h3>
            <ul className="run-list">
              {here.map((node) => (
                <RunRow key={node.run.id} session={session} node={node} openRunId={openRunId} onOpen={onOpen} idle={idle} />
              ))}
            </ul>
          </div>
        );
      })}
    </section>
  );
}
