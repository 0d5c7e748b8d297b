"use client";

import useSWR, { type SWRConfiguration } from "swr";
import { apiJson, userPath } from "./api-client";
import { ApiError, describeError } from "./api-error";
import type { Session } from "./auth-store";
import { checkHealthNow, isOutage } from "./outage";

/** Longest wait between retries of a failed read: its error must not outlive its cause. */
export const MAX_ERROR_RETRY_MS = 4_000;

/**
 * A user-scoped GET, cached and revalidated by SWR (on focus, on reconnect, every
 * `refreshInterval`); `errorText` is already in human words, and null for an outage (the
 * banner's to say).
 */
export function useUserResource<T>(session: Session, path: string, config: SWRConfiguration<T> = {}) {
  const swr = useSWR<T>(
    ["parley", session.epoch, userPath(session, path)],
    ([, , fullPath]: [string, number, string]) => apiJson<T>(session, fullPath),
    {
      focusThrottleInterval: 0,
      dedupingInterval: 0,
      // SWR's own backoff doubles up to minutes: an error shown for the API being away would
      // stay long after it is back. Retry every few seconds instead (never a refusal, which
      // only changes when the person does something).
      onErrorRetry: (error, _key, _config, revalidate, { retryCount }) => {
        if (error instanceof ApiError && (error.unauthorized || error.status === 404)) return;
        if (isOutage(error)) checkHealthNow();
        setTimeout(() => void revalidate({ retryCount }), Math.min(1_000 * 2 ** (retryCount - 1), MAX_ERROR_RETRY_MS));
      },
      ...config,
    },
  );
  // An outage is the banner's to say (see `isOutage`); the panel shows what it last had.
  const shown = swr.error === undefined || isOutage(swr.error) ? null : describeError(swr.error);
  return { ...swr, errorText: shown };
}
