"use client";

import { useEffect } from "react";
import type { Session } from "./auth-store";
import type { JsonOf } from "./types";
import type { paths } from "./api-types";
import { useUserResource } from "./use-user-resource";

export type OpenQuestion = JsonOf<paths["/api/{user_id}/questions"]["get"]["responses"][200]>[number];

/**
 * What waits on the person: their open questions wherever they were asked, read again whenever
 * the person's event stream reports a question opened, answered or closed (`version` moves).
 */
export function useOpenQuestions(session: Session, version: number) {
  const { data, errorText, mutate } = useUserResource<OpenQuestion[]>(session, "/questions");
  useEffect(() => {
    void mutate();
  }, [version, mutate]);
  return { questions: data ?? null, error: errorText, refresh: () => void mutate() };
}
