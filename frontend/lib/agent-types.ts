/**
 * Shapes of the agent side of the API (runs, delegation threads, work sessions), taken from the
 * generated schema by route, plus the few rules the UI needs to read them.
 */
import type { paths } from "./api-types";
import type { JsonOf, Message } from "./types";

export type Run = JsonOf<paths["/api/{user_id}/runs/{run_id}"]["get"]["responses"][200]>;
export type Delegation = JsonOf<paths["/api/{user_id}/delegations/{thread_id}"]["get"]["responses"][200]>;
export type WorkState = NonNullable<
  JsonOf<paths["/api/{user_id}/conversations/{conversation_id}/work"]["get"]["responses"][200]>
>;

/** Conversations the person writes into with POST …/messages (no assistant turn behind them). */
export const DIRECT_MODES = new Set(["inbox", "run", "delegation"]);

const FINISHED = new Set(["completed", "failed", "cancelled", "timed_out"]);

export function runFinished(run: Pick<Run, "status">): boolean {
  return FINISHED.has(run.status);
}

/**
 * The line under a run: how it ended once it has (its error or summary: a progress report
 * such as "50% done" is no longer true), else its latest status report.
 */
export function runLatest(run: Pick<Run, "status" | "error" | "summary" | "latest_status">): string | null {
  if (runFinished(run)) return run.error || run.summary || null;
  return run.latest_status || run.summary || null;
}

export type RunSection = "waiting" | "running" | "finished";

export function runSection(run: Pick<Run, "status">): RunSection {
  if (run.status === "waiting_input") return "waiting";
  return runFinished(run) ? "finished" : "running";
}

export const STATUS_LABEL: Record<string, string> = {
  running: "Running",
  waiting_input: "Waiting for input",
  completed: "Completed",
  failed: "Failed",
  cancelled: "Cancelled",
  timed_out: "Timed out",
  starting: "Starting",
  working: "Working",
  waiting_permission: "Waiting for permission",
  idle: "Idle",
  ending: "Ending…",
  ended: "Ended",
};

export function statusLabel(status: string): string {
  return STATUS_LABEL[status] ?? status.replace(/_/g, " ");
}

/** A question is open until a message answers it (reply_to = the question) or it is closed. */
export function questionOpen(question: Message, messages: Message[], closed: ReadonlySet<number> = new Set()): boolean {
  if (question.kind !== "question" || closed.has(question.id)) return false;
  const meta = question.meta as Record<string, unknown> | null;
  if (meta && (meta.answer || meta.closed)) return false;
  return !messages.some((m) => m.reply_to === question.id && m.id > question.id);
}

/** The permission a work session asks for, if this message is such a question. */
export function permissionOf(message: Message): { tool: string; input: unknown } | null {
  const permission = message.kind === "question" ? (message.meta as Record<string, unknown> | null)?.permission : null;
  if (!permission || typeof permission !== "object") return null;
  const { tool, input } = permission as Record<string, unknown>;
  return typeof tool === "string" ? { tool, input } : null;
}

export function metaType(message: Message): string | null {
  const type = (message.meta as Record<string, unknown> | null)?.type;
  return typeof type === "string" ? type : null;
}
