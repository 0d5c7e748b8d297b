"use client";

import { useCallback } from "react";
import { apiJson, userPath } from "./api-client";
import type { Session } from "./auth-store";
import type { Task } from "./types";
import { useRemoteList } from "./use-remote-list";

export interface TasksApi {
  tasks: Task[] | null;
  error: string | null;
  refresh: () => void;
  add: (title: string) => Promise<void>;
  update: (id: number, patch: Partial<Pick<Task, "title" | "description" | "completed">>) => Promise<void>;
  remove: (id: number) => Promise<void>;
}

/** The user's tasks, refetched on demand (after each assistant turn, on focus, on recovery). */
export function useTasks(session: Session): TasksApi {
  const { items: tasks, setItems: setTasks, error, refresh } = useRemoteList<Task>(
    session,
    "/tasks?status=all",
    20_000,
  );

  const add = useCallback(
    async (title: string) => {
      const task = await apiJson<Task>(session, userPath(session, "/tasks"), { method: "POST", body: { title } });
      setTasks((list) => (list ? [...list.filter((t) => t.id !== task.id), task] : [task]));
      refresh();
    },
    [session, refresh, setTasks],
  );

  const update = useCallback<TasksApi["update"]>(
    async (id, patch) => {
      setTasks((list) => list?.map((t) => (t.id === id ? { ...t, ...patch } : t)) ?? list);
      try {
        const task = await apiJson<Task>(session, userPath(session, `/tasks/${id}`), { method: "PATCH", body: patch });
        setTasks((list) => list?.map((t) => (t.id === id ? task : t)) ?? list);
      } finally {
        refresh();
      }
    },
    [session, refresh, setTasks],
  );

  const remove = useCallback(
    async (id: number) => {
      await apiJson<void>(session, userPath(session, `/tasks/${id}`), { method: "DELETE" });
      setTasks((list) => list?.filter((t) => t.id !== id) ?? list);
      refresh();
    },
    [session, refresh, setTasks],
  );

  return { tasks, error, refresh, add, update, remove };
}
