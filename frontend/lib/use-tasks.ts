"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { apiJson, userPath } from "./api-client";
import { describeError } from "./api-error";
import type { Session } from "./auth-store";
import type { Task } from "./types";
import { useRefreshTriggers } from "./use-refresh-triggers";

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
  const [tasks, setTasks] = useState<Task[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const latest = useRef(0);

  useEffect(() => {
    const controller = new AbortController();
    const ticket = ++latest.current;
    apiJson<Task[]>(session, userPath(session, "/tasks?status=all"), { signal: controller.signal })
      .then((list) => {
        if (ticket !== latest.current) return;
        setTasks(list);
        setError(null);
      })
      .catch((err: unknown) => {
        if (controller.signal.aborted || ticket !== latest.current) return;
        setError(describeError(err));
      });
    return () => controller.abort();
  }, [session, generation]);

  const refresh = useCallback(() => setGeneration((n) => n + 1), []);

  useRefreshTriggers(refresh, 20_000);

  const add = useCallback(
    async (title: string) => {
      const task = await apiJson<Task>(session, userPath(session, "/tasks"), { method: "POST", body: { title } });
      setTasks((list) => (list ? [...list.filter((t) => t.id !== task.id), task] : [task]));
      refresh();
    },
    [session, refresh],
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
    [session, refresh],
  );

  const remove = useCallback(
    async (id: number) => {
      await apiJson<void>(session, userPath(session, `/tasks/${id}`), { method: "DELETE" });
      setTasks((list) => list?.filter((t) => t.id !== id) ?? list);
      refresh();
    },
    [session, refresh],
  );

  return { tasks, error, refresh, add, update, remove };
}
