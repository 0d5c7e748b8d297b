/** Short, readable lines for tool calls: "Added task 'buy milk'", "Completed task 3". */

type Params = Record<string, unknown> | null | undefined;

function str(value: unknown): string | null {
  if (typeof value === "string" && value.trim()) return value.trim();
  if (typeof value === "number") return String(value);
  return null;
}

function quote(text: string): string {
  const short = text.length > 60 ? `${text.slice(0, 57)}…` : text;
  return `'${short}'`;
}

/** The task a result talks about, if it has one (result may be the task itself or wrap it). */
function resultTask(result: unknown): Record<string, unknown> | null {
  if (typeof result !== "object" || result === null || Array.isArray(result)) return null;
  const record = result as Record<string, unknown>;
  if (typeof record.task === "object" && record.task !== null) return record.task as Record<string, unknown>;
  return record;
}

export function resultFailed(result: unknown): string | null {
  if (typeof result !== "object" || result === null) return null;
  const record = result as Record<string, unknown>;
  if (record.error) {
    if (typeof record.error === "string") return record.error;
    const inner = record.error as Record<string, unknown>;
    return str(inner.message) ?? "failed";
  }
  if (record.isError === true || record.is_error === true || record.ok === false) {
    return str(record.message) ?? "failed";
  }
  return null;
}

function taskRef(params: Params, result: unknown): string {
  const task = resultTask(result);
  const id = str(params?.task_id) ?? str(params?.number) ?? str(task?.task_id) ?? str(task?.number);
  const title = str(task?.title);
  if (id && title) return `task ${id} ${quote(title)}`;
  if (id) return `task ${id}`;
  return title ? `task ${quote(title)}` : "a task";
}

function countOf(result: unknown): number | null {
  if (Array.isArray(result)) return result.length;
  if (typeof result === "object" && result !== null) {
    const record = result as Record<string, unknown>;
    for (const key of ["tasks", "items", "results"]) {
      const value = record[key];
      if (Array.isArray(value)) return value.length;
    }
    if (typeof record.count === "number") return record.count;
  }
  return null;
}

const DONE: Record<string, string> = {
  start_work_session: "Started a work session",
  send_to_work_session: "Sent to the work session",
  end_work_session: "Ended the work session",
  get_work_session: "Checked the work session",
  post_message: "Posted a message",
  ask_user: "Asked a question",
  read_messages: "Read messages",
  start_run: "Started an agent run",
  finish_run: "Finished an agent run",
  delegate_task: "Delegated a task",
  ask_parent: "Asked the parent agent",
  answer_child: "Answered a child agent",
  report_status: "Reported status",
};

function failureLine(tool: string, params: Params, failure: string): string {
  const reason = failure.replace(/^Error executing tool \w+:\s*/i, "");
  const title = str(params?.title);
  switch (tool) {
    case "add_task":
      return `Couldn't add task ${quote(title ?? "")}: ${reason}`;
    case "complete_task":
      return `Couldn't complete ${taskRef(params, null)}: ${reason}`;
    case "delete_task":
      return `Couldn't delete ${taskRef(params, null)}: ${reason}`;
    case "update_task":
      return `Couldn't update ${taskRef(params, null)}: ${reason}`;
    case "list_tasks":
      return `Couldn't list tasks: ${reason}`;
    default:
      return `${tool.replace(/_/g, " ")} failed: ${reason}`;
  }
}

/** `pending` = the call is still running (no result yet). */
export function summarizeToolCall(tool: string, params: Params, result: unknown, pending: boolean): string {
  const failure = pending ? null : resultFailed(result);
  if (failure) return failureLine(tool, params, failure);
  const title = str(params?.title);
  let line: string;
  switch (tool) {
    case "add_task":
      line = pending ? `Adding task ${quote(title ?? "…")}` : `Added task ${quote(title ?? str(resultTask(result)?.title) ?? "")}`;
      break;
    case "complete_task": {
      const undo = params?.completed === false;
      line = `${pending ? (undo ? "Reopening" : "Completing") : undo ? "Reopened" : "Completed"} ${taskRef(params, result)}`;
      break;
    }
    case "delete_task":
      line = `${pending ? "Deleting" : "Deleted"} ${taskRef(params, result)}`;
      break;
    case "update_task":
      line = title
        ? `${pending ? "Renaming" : "Renamed"} task ${str(params?.task_id) ?? str(params?.number) ?? ""} to ${quote(title)}`.replace("  ", " ")
        : `${pending ? "Updating" : "Updated"} ${taskRef(params, result)}`;
      break;
    case "list_tasks": {
      const status = str(params?.status);
      const count = pending ? null : countOf(result);
      const noun = count === 1 ? "task" : "tasks";
      const kind = status && status !== "all" ? `${status} ${noun}` : noun;
      line = pending ? `Listing ${kind}` : count === null ? `Listed ${kind}` : `Listed ${count} ${kind}`;
      break;
    }
    default:
      line = DONE[tool] ? (pending ? `${DONE[tool]}…` : DONE[tool]) : `${pending ? "Calling" : "Called"} ${tool.replace(/_/g, " ")}`;
  }
  return pending && !line.endsWith("…") ? `${line}…` : line;
}
