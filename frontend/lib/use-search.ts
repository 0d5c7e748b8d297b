"use client";

import { useEffect, useState } from "react";
import { apiJson, userPath } from "./api-client";
import { describeError } from "./api-error";
import type { Session } from "./auth-store";
import type { JsonOf } from "./types";
import type { paths } from "./api-types";

export type SearchResult = JsonOf<paths["/api/{user_id}/search"]["get"]["responses"][200]>;
/** One conversation found, with its best-matching message (null when only its title matched). */
export type SearchHit = SearchResult["conversations"][number];

const DEBOUNCE_MS = 250;

interface Answer {
  text: string;
  result: SearchResult | null;
  error: string | null;
}

/** Searches as the person types (debounced; an answer is shown only for the text it answers). */
export function useSearch(session: Session, query: string) {
  const [answer, setAnswer] = useState<Answer>({ text: "", result: null, error: null });
  const text = query.trim();

  useEffect(() => {
    if (!text) return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      apiJson<SearchResult>(session, userPath(session, `/search?q=${encodeURIComponent(text)}`), { signal: controller.signal })
        .then((result) => setAnswer({ text, result, error: null }))
        .catch((err: unknown) => {
          if (!controller.signal.aborted) setAnswer({ text, result: null, error: describeError(err) });
        });
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [session, text]);

  const current = text !== "" && answer.text === text;
  return { result: current ? answer.result : null, error: current ? answer.error : null, searching: text !== "" && !current };
}
