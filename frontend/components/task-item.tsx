"use client";

import { useState, type FormEvent, type KeyboardEvent } from "react";
import type { Task } from "@/lib/types";

interface Props {
  task: Task;
  onToggle: (id: number, completed: boolean) => Promise<boolean>;
  onRename: (id: number, title: string) => Promise<boolean>;
  onDelete: (id: number) => Promise<boolean>;
}

export function TaskItem({ task, onToggle, onRename, onDelete }: Props) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(task.title);
  const checkboxId = `task-${task.id}`;

  function beginEdit() {
    setDraft(task.title);
    setEditing(true);
  }

  async function save(event: FormEvent) {
    event.preventDefault();
    const next = draft.trim();
    if (!next || next === task.title || (await onRename(task.id, next))) setEditing(false);
  }

  function onKey(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "Escape") setEditing(false);
  }

  return (
    <li
      className={`task-item${task.completed ? " completed" : ""}`}
      data-testid="task-item"
      data-task-id={task.id}
      data-completed={task.completed}
    >
      {editing ? (
        <form className="task-edit" onSubmit={(e) => void save(e)}>
          <label htmlFor={`edit-${task.id}`} className="sr-only">
            Task title
          </label>
          <input id={`edit-${task.id}`} value={draft} maxLength={500} onChange={(e) => setDraft(e.target.value)} onKeyDown={onKey} autoFocus data-testid="task-edit-input" />
          <button type="submit" className="button tiny primary">
            Save
          </button>
          <button type="button" className="button tiny" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <>
          <input
            type="checkbox"
            id={checkboxId}
            checked={task.completed}
            onChange={(e) => void onToggle(task.id, e.target.checked)}
            data-testid="task-toggle"
          />
          <label htmlFor={checkboxId} className="task-title" data-testid="task-title" id={`${checkboxId}-title`}>
            <span className="task-number muted">#{task.id}</span> {task.title}
            {task.description && <span className="task-description muted">{task.description}</span>}
          </label>
          <span className="task-actions">
            <button type="button" className="button tiny" onClick={beginEdit} aria-describedby={`${checkboxId}-title`} data-testid="task-edit">
              Edit
            </button>
            <button
              type="button"
              className="button tiny danger"
              onClick={() => void onDelete(task.id)}
              aria-describedby={`${checkboxId}-title`}
              data-testid="task-delete"
            >
              Delete
            </button>
          </span>
        </>
      )}
    </li>
  );
}
