"use client";

import { useState, type FormEvent } from "react";
import { ApiError, describeError } from "@/lib/api-error";
import type { TasksApi } from "@/lib/use-tasks";
import { TaskItem } from "./task-item";

/** The user's tasks beside the chat: add, complete, edit, delete; refreshed after every turn. */
interface Props {
  tasks: TasksApi;
  apiDown: boolean;
  /** An action could not reach the API: the banner says so (and clears when it is back). */
  onUnreachable?: () => void;
}

export function TasksPanel({ tasks, apiDown, onUnreachable }: Props) {
  const [title, setTitle] = useState("");
  const [error, setError] = useState<string | null>(null);
  const list = tasks.tasks;
  const pending = list?.filter((t) => !t.completed) ?? [];
  const done = list?.filter((t) => t.completed) ?? [];

  async function run(action: () => Promise<void>): Promise<boolean> {
    setError(null);
    try {
      await action();
      return true;
    } catch (err) {
      if (err instanceof ApiError && err.unreachable && onUnreachable) onUnreachable();
      else setError(describeError(err));
      return false;
    }
  }

  async function add(event: FormEvent) {
    event.preventDefault();
    const value = title.trim();
    if (!value) return;
    if (await run(() => tasks.add(value))) setTitle("");
  }

  const itemProps = {
    onToggle: (number: number, completed: boolean) => run(() => tasks.update(number, { completed })),
    onSave: (number: number, patch: Parameters<TasksApi["update"]>[1]) => run(() => tasks.update(number, patch)),
    onDelete: tasks.remove,
  };
  // While the API is down the banner says so; the panel does not repeat it.
  const shownError = error ?? (apiDown ? null : tasks.error);

  return (
    <section className="panel tasks-panel" aria-label="Tasks" data-testid="tasks-panel">
      <div className="panel-head">
        <h2>Tasks</h2>
        {list && (
          <span className="muted small" data-testid="task-counts">
            {pending.length} open · {done.length} done
          </span>
        )}
      </div>
      <form className="add-task" onSubmit={(e) => void add(e)}>
        <label htmlFor="new-task-title" className="sr-only">
          New task
        </label>
        <input
          id="new-task-title"
          data-testid="new-task-input"
          placeholder="Add a task…"
          value={title}
          maxLength={500}
          onChange={(e) => setTitle(e.target.value)}
        />
        <button type="submit" className="button" disabled={!title.trim()} data-testid="add-task-button">
          Add task
        </button>
      </form>
      {shownError && (
        <p className="error-text pad" role="alert" data-testid="tasks-error">
          {shownError}{" "}
          <button type="button" className="link-button" onClick={tasks.refresh}>
            Reload tasks
          </button>
        </p>
      )}
      {list === null && !shownError && <p className="muted pad">Loading tasks…</p>}
      {list?.length === 0 && <p className="muted pad" data-testid="tasks-empty">No tasks yet. Add one here or ask the assistant.</p>}
      <ul className="task-list" data-testid="task-list" aria-label="Open tasks">
        {pending.map((task) => (
          <TaskItem key={task.number} task={task} {...itemProps} />
        ))}
      </ul>
      {done.length > 0 && (
        <>
          <h3 className="task-group-title">Done</h3>
          <ul className="task-list done" data-testid="completed-task-list" aria-label="Completed tasks">
            {done.map((task) => (
              <TaskItem key={task.number} task={task} {...itemProps} />
            ))}
          </ul>
        </>
      )}
      {tasks.removing.length > 0 && (
        <div className="undo-list" role="status" data-testid="task-undo">
          {tasks.removing.map((task) => (
            <p className="undo-toast" key={task.number}>
              <span>
                Deleted “{task.title}”.
              </span>
              <button type="button" className="button tiny" onClick={() => tasks.undoRemove(task.number)} data-testid="task-undo-button">
                Undo
              </button>
            </p>
          ))}
        </div>
      )}
    </section>
  );
}
