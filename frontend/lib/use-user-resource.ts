"use client";

import useSWR, { type SWRConfiguration } from "swr";
import { apiJson, userPath } from "./api-client";
import { describeError } from "./api-error";
import type { Session } from "./auth-store";

/**
 * A user-scoped GET, cached and revalidated by SWR (on focus, on reconnect, every
 * `refreshInterval`); `error` is already in human words.
 */
export function useUserResource<T>(session: Session, path: string, config: SWRConfiguration<T> = {}) {
  const swr = useSWR<T>(
    ["parley", session.epoch, userPath(session, path)],
    ([, , fullPath]: [string, number, string]) => apiJson<T>(session, fullPath),
    { focusThrottleInterval: 0, dedupingInterval: 0, ...config },
  );
  return { ...swr, errorText: swr.error === undefined ? null : describeError(swr.error) };
}
