"use client";

import { type Dispatch, type SetStateAction, useCallback, useEffect, useRef, useState } from "react";
import { apiJson, userPath } from "./api-client";
import { describeError } from "./api-error";
import type { Session } from "./auth-store";
import { useRefreshTriggers } from "./use-refresh-triggers";

export interface RemoteList<T> {
  items: T[] | null;
  setItems: Dispatch<SetStateAction<T[] | null>>;
  error: string | null;
  refresh: () => void;
}

/**
 * A list read from the API, fetched again on `refresh()` and by the refresh triggers (focus,
 * visibility, every `intervalMs`). An older fetch that answers late never overwrites a newer
 * one. `order` must be a stable function (module level), or every render would refetch.
 */
export function useRemoteList<T>(
  session: Session,
  path: string,
  intervalMs: number,
  order?: (list: T[]) => T[],
): RemoteList<T> {
  const [items, setItems] = useState<T[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const latest = useRef(0);

  useEffect(() => {
    const controller = new AbortController();
    const ticket = ++latest.current;
    apiJson<T[]>(session, userPath(session, path), { signal: controller.signal })
      .then((list) => {
        if (ticket !== latest.current) return;
        setItems(order ? order(list) : list);
        setError(null);
      })
      .catch((err: unknown) => {
        if (controller.signal.aborted || ticket !== latest.current) return;
        setError(describeError(err));
      });
    return () => controller.abort();
  }, [session, path, order, generation]);

  const refresh = useCallback(() => setGeneration((n) => n + 1), []);
  useRefreshTriggers(refresh, intervalMs);
  return { items, setItems, error, refresh };
}
