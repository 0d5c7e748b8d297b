"use client";

import useSWR from "swr";
import type { Delegation, Run } from "./agent-types";
import { apiJson, userPath } from "./api-client";
import type { Session } from "./auth-store";

/**
 * Whether a delegated run is still waiting for its agent to claim it: such a run is `running`
 * in the run list, yet nothing runs until the child takes it. Read from its thread, and again
 * every few seconds while it waits (a claim changes no status the person's stream reports).
 */
export function useWaitingForClaim(session: Session, run: Run): boolean {
  const delegated = run.parent_run_id !== null && run.status === "running" && run.conversation_id !== null;
  const path = userPath(session, `/delegations/${run.conversation_id}`);
  const { data } = useSWR<Delegation>(delegated ? ["parley", session.epoch, path] : null, () => apiJson<Delegation>(session, path), {
    refreshInterval: (latest) => (latest?.status === "pending" ? 5_000 : 0),
  });
  return delegated && data?.status === "pending";
}
