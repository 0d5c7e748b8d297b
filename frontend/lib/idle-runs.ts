import type { Run } from "./agent-types";
import type { Conversation } from "./types";

/**
 * The runs of work sessions that wait for the person's next message: alive (their run is
 * `running`), but doing nothing. They are "Idle", not "Running", and light no badge.
 * Known from each work conversation's own session state (the conversation list's `work`).
 */
export function idleWorkRuns(conversations: Conversation[] | null): ReadonlySet<number> {
  const idle = new Set<number>();
  for (const conversation of conversations ?? []) {
    const work = conversation.work;
    if (work?.status === "idle" && work.run_id != null) idle.add(work.run_id);
  }
  return idle;
}

/** Whether this run is shown as an idle work session. */
export function runIdle(run: Pick<Run, "id" | "status">, idle: ReadonlySet<number>): boolean {
  return run.status === "running" && idle.has(run.id);
}
