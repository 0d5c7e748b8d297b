"use client";

import { useCallback } from "react";
import type { Run } from "./agent-types";
import type { Session } from "./auth-store";
import { applyChange } from "./list-change";
import { useUserResource } from "./use-user-resource";

export interface RunsApi {
  runs: Run[] | null;
  error: string | null;
  refresh: () => void;
  /** A `run` event from the person's stream: update or add the run in place. */
  apply: (run: Run) => void;
}

/** The person's agent runs, newest first (SWR; kept current by `run` events). */
export function useRuns(session: Session): RunsApi {
  const { data, errorText, mutate } = useUserResource<Run[]>(session, "/runs", { refreshInterval: 30_000 });
  const refresh = useCallback(() => void mutate(), [mutate]);
  const apply = useCallback(
    (run: Run) => {
      void mutate(
        (list) => applyChange(list, (r) => r.id === run.id, run, false).sort((a, b) => b.id - a.id),
        { revalidate: false },
      );
    },
    [mutate],
  );
  return { runs: data ?? null, error: errorText, refresh, apply };
}

export interface RunNode {
  run: Run;
  children: RunNode[];
}

/** Parent → children; a run whose parent is not in the list is a root. */
export function runTree(runs: Run[]): RunNode[] {
  const nodes = new Map(runs.map((run) => [run.id, { run, children: [] as RunNode[] }]));
  const roots: RunNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.run.parent_run_id === null ? undefined : nodes.get(node.run.parent_run_id);
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  const order = (list: RunNode[]) => list.sort((a, b) => b.run.id - a.run.id).forEach((n) => order(n.children));
  order(roots);
  for (const node of nodes.values()) node.children.sort((a, b) => a.run.id - b.run.id);
  return roots;
}
