"use client";

import { useCallback, useState } from "react";
import { describeError } from "./api-error";

/**
 * One button's request: `busy` while it runs (to disable the button), `error` in human words
 * when it failed. `run` resolves true on success.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async (action: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      await action();
      return true;
    } catch (err) {
      setError(describeError(err));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run };
}
