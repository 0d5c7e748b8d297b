"use client";

import { useEffect, useState } from "react";
import { describeError } from "./api-error";
import type { AuthConfig } from "./account-types";
import { fetchAuthConfig } from "./auth-api";

/** The server's sign-in options, read once per screen; `error` when the API cannot say. */
export function useAuthConfig(): { config: AuthConfig | null; error: string | null } {
  const [config, setConfig] = useState<AuthConfig | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    fetchAuthConfig().then(
      (value) => live && setConfig(value),
      (err: unknown) => live && setError(describeError(err)),
    );
    return () => {
      live = false;
    };
  }, []);
  return { config, error };
}
