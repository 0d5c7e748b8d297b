import type { Run } from "@/lib/agent-types";
import { runIdle } from "@/lib/idle-runs";

const NONE: ReadonlySet<number> = new Set();

/** Opens the Runs panel; the badge counts runs waiting for the person's input, else those
 * running (an idle work session, waiting for the next message, is not running). */
export function RunsButton({ runs, idle = NONE, onOpen }: { runs: Run[] | null; idle?: ReadonlySet<number>; onOpen: () => void }) {
  const waiting = runs?.filter((r) => r.status === "waiting_input").length ?? 0;
  const running = runs?.filter((r) => r.status === "running" && !runIdle(r, idle)).length ?? 0;
  const label = `Runs${waiting ? `, ${waiting} waiting for input` : ""}${running ? `, ${running} running` : ""}`;
  return (
    <button type="button" className="button small" onClick={onOpen} data-testid="open-runs" aria-label={label}>
      Runs
      {waiting > 0 ? (
        <span className="count-badge attention-badge" data-testid="runs-waiting" aria-hidden="true">
          {waiting}
        </span>
      ) : running > 0 ? (
        <span className="count-badge" data-testid="runs-running-count" aria-hidden="true">
          {running}
        </span>
      ) : null}
    </button>
  );
}
