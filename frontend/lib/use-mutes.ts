"use client";

import { useCallback, useMemo } from "react";
import type { NotificationPrefs } from "./account-types";
import { apiJson, userPath } from "./api-client";
import type { Session } from "./auth-store";
import { PUSH_PATHS } from "./push";
import { useUserResource } from "./use-user-resource";

/**
 * Which conversations the person muted (nothing in them notifies), read from their notification
 * preferences; the same cache entry as the account dialog's, so both show the same.
 */
export function useMutes(session: Session) {
  const prefs = useUserResource<NotificationPrefs>(session, PUSH_PATHS.preferences);
  const { data, mutate } = prefs;
  const muted = useMemo(() => new Set(data?.muted_conversations ?? []), [data]);

  const setMuted = useCallback(
    async (conversationId: number, value: boolean) => {
      await apiJson(session, userPath(session, PUSH_PATHS.mute(conversationId)), { method: "PUT", body: { muted: value } });
      await mutate();
    },
    [session, mutate],
  );

  return { muted, setMuted, known: data !== undefined };
}
