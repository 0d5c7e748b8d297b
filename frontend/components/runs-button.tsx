import type { Run } from "@/lib/agent-types";

/** Opens the Runs panel; the badge counts runs waiting for the person's input. */
export function RunsButton({ runs, onOpen }: { runs: Run[] | null; onOpen: () => void }) {
  const waiting = runs?.filter((r) => r.status === "waiting_input").length ?? 0;
  const running = runs?.filter((r) => r.status === "running").length ?? 0;
  const label = `Runs${waiting ? `, ${waiting} waiting for input` : ""}${running ? `, ${running} running` : ""}`;
  return (
    <button type="button" className="button small" onClick={onOpen} data-testid="open-runs" aria-label={label}>
      Runs
      {waiting > 0 ? (
        <span className="count-badge attention-badge" data-testid="runs-waiting" aria-hidden="true">
          {waiting}
        </span>
      ) : running > 0 ? (
        <span className="count-badge" aria-hidden="true">
          {running}
        </span>
      ) : null}
    </button>
  );
}
