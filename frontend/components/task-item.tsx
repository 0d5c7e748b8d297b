"use client";

import { useState, type FormEvent, type KeyboardEvent } from "react";
import type { Task } from "@/lib/types";
import type { TaskPatch } from "@/lib/use-tasks";
import { RowMenu } from "./row-menu";

interface Props {
  task: Task;
  onToggle: (number: number, completed: boolean) => Promise<boolean>;
  onSave: (number: number, patch: TaskPatch) => Promise<boolean>;
  onDelete: (number: number) => void;
}

export function TaskItem({ task, onToggle, onSave, onDelete }: Props) {
  const number = task.number;
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState(task.title);
  const [description, setDescription] = useState(task.description ?? "");
  const checkboxId = `task-${number}`;

  function beginEdit() {
    setTitle(task.title);
    setDescription(task.description ?? "");
    setEditing(true);
  }

  async function save(event: FormEvent) {
    event.preventDefault();
    const nextTitle = title.trim();
    const nextDescription = description.trim();
    if (!nextTitle) return;
    const patch: TaskPatch = {};
    if (nextTitle !== task.title) patch.title = nextTitle;
    if (nextDescription !== (task.description ?? "")) patch.description = nextDescription || null;
    if (Object.keys(patch).length === 0 || (await onSave(number, patch))) setEditing(false);
  }

  function onKey(event: KeyboardEvent<HTMLElement>) {
    if (event.key === "Escape") setEditing(false);
  }

  return (
    <li
      className={`task-item${task.completed ? " completed" : ""}`}
      data-testid="task-item"
      data-task-id={number}
      data-completed={task.completed}
    >
      {editing ? (
        <form className="task-edit" onSubmit={(e) => void save(e)} onKeyDown={onKey}>
          <label htmlFor={`edit-${number}`} className="sr-only">
            Task title
          </label>
          <input id={`edit-${number}`} value={title} maxLength={500} onChange={(e) => setTitle(e.target.value)} autoFocus data-testid="task-edit-input" />
          <label htmlFor={`edit-description-${number}`} className="sr-only">
            Task description
          </label>
          <textarea
            id={`edit-description-${number}`}
            value={description}
            maxLength={5000}
            rows={2}
            placeholder="Description (optional)"
            onChange={(e) => setDescription(e.target.value)}
            data-testid="task-edit-description"
          />
          <span className="task-edit-actions">
            <button type="submit" className="button tiny primary">
              Save
            </button>
            <button type="button" className="button tiny" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </span>
        </form>
      ) : (
        <>
          <input
            type="checkbox"
            id={checkboxId}
            checked={task.completed}
            onChange={(e) => void onToggle(number, e.target.checked)}
            data-testid="task-toggle"
          />
          <label htmlFor={checkboxId} className="task-title" data-testid="task-title" id={`${checkboxId}-title`}>
            <span className="task-number muted">#{number}</span> {task.title}
            {task.description && (
              <span className="task-description muted" data-testid="task-description">
                {task.description}
              </span>
            )}
          </label>
          <RowMenu
            label={`Actions for task ${number}`}
            testId="task-menu"
            actions={[
              { label: "Edit", onSelect: beginEdit, testId: "task-edit" },
              { label: "Delete", onSelect: () => onDelete(number), danger: true, testId: "task-delete" },
            ]}
          />
        </>
      )}
    </li>
  );
}
