"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { apiFetch, apiJson, userPath } from "./api-client";
import type { Session } from "./auth-store";
import { applyChange } from "./list-change";
import type { Task } from "./types";
import { useUserResource } from "./use-user-resource";

export type TaskPatch = Partial<Pick<Task, "title" | "description" | "completed">>;

/** How long a deleted task can be brought back before the delete reaches the API. */
export const UNDO_MS = 5_000;

export interface TasksApi {
  tasks: Task[] | null;
  error: string | null;
  refresh: () => void;
  /** Applies a change the person's event stream reported, without a refetch. */
  apply: (change: { action: string; number: number; task: Task | null }) => void;
  add: (title: string) => Promise<void>;
  update: (number: number, patch: TaskPatch) => Promise<void>;
  /** Hides the task now and deletes it after UNDO_MS unless `undoRemove` is called. */
  remove: (number: number) => void;
  undoRemove: (number: number) => void;
  /** Tasks hidden and waiting for their delete, newest last. */
  removing: Task[];
}

/** The user's tasks (SWR: refetched on focus, every 20 s, and on demand). */
export function useTasks(session: Session): TasksApi {
  const { data, errorText, mutate } = useUserResource<Task[]>(session, "/tasks?status=all", { refreshInterval: 20_000 });
  const [removing, setRemoving] = useState<Task[]>([]);
  const timers = useRef(new Map<number, ReturnType<typeof setTimeout>>());

  const refresh = useCallback(() => void mutate(), [mutate]);
  const apply = useCallback<TasksApi["apply"]>(
    ({ action, number, task }) => {
      void mutate((list) => applyChange(list, (t) => t.number === number, task, action === "deleted"), { revalidate: false });
    },
    [mutate],
  );

  const taskPath = useCallback((number: number) => userPath(session, `/tasks/${number}`), [session]);

  const add = useCallback(
    async (title: string) => {
      const task = await apiJson<Task>(session, userPath(session, "/tasks"), { method: "POST", body: { title } });
      await mutate((list) => [...(list ?? []).filter((t) => t.number !== task.number), task]);
    },
    [session, mutate],
  );

  const update = useCallback<TasksApi["update"]>(
    async (number, patch) => {
      const apply = (list: Task[] | undefined, task?: Task) =>
        list?.map((t) => (t.number === number ? (task ?? { ...t, ...patch }) : t)) ?? [];
      await mutate(
        async (list) => {
          const task = await apiJson<Task>(session, taskPath(number), { method: "PATCH", body: patch });
          return apply(list, task);
        },
        { optimisticData: (list) => apply(list), rollbackOnError: true, revalidate: true },
      );
    },
    [session, mutate, taskPath],
  );

  const commitDelete = useCallback(
    async (number: number) => {
      timers.current.delete(number);
      try {
        await apiFetch(session, taskPath(number), { method: "DELETE" });
      } finally {
        setRemoving((list) => list.filter((t) => t.number !== number));
        await mutate();
      }
    },
    [session, mutate, taskPath],
  );

  const remove = useCallback(
    (number: number) => {
      const task = data?.find((t) => t.number === number);
      if (!task || timers.current.has(number)) return;
      setRemoving((list) => [...list, task]);
      timers.current.set(number, setTimeout(() => void commitDelete(number).catch(() => undefined), UNDO_MS));
    },
    [data, commitDelete],
  );

  const undoRemove = useCallback((number: number) => {
    const timer = timers.current.get(number);
    if (timer !== undefined) clearTimeout(timer);
    timers.current.delete(number);
    setRemoving((list) => list.filter((t) => t.number !== number));
  }, []);

  // Leaving the page does not cancel a delete the person asked for.
  useEffect(() => {
    const pending = timers.current;
    const flush = () => {
      for (const [number, timer] of pending) {
        clearTimeout(timer);
        void fetch(`/api${taskPath(number)}`, {
          method: "DELETE",
          credentials: "same-origin",
          keepalive: true,
        });
      }
      pending.clear();
    };
    window.addEventListener("pagehide", flush);
    return () => window.removeEventListener("pagehide", flush);
  }, [session, taskPath]);

  const hidden = new Set(removing.map((t) => t.number));
  const tasks = data ? data.filter((t) => !hidden.has(t.number)) : null;
  return { tasks, error: errorText, refresh, apply, add, update, remove, undoRemove, removing };
}
