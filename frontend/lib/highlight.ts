"use client";

import { useEffect, useState } from "react";
import type { ThemedToken } from "shiki";

/** One highlighter for the page, made on first use; each language's grammar loads when needed. */
let highlighter: Promise<import("shiki").Highlighter> | null = null;

async function getHighlighter() {
  highlighter ??= (async () => {
    const [{ createHighlighter }, { createJavaScriptRegexEngine }] = await Promise.all([
      import("shiki"),
      import("shiki/engine/javascript"),
    ]);
    // The JavaScript regex engine: no WebAssembly to fetch, and the grammars Shiki ships run on it.
    return createHighlighter({ themes: ["github-light", "github-dark"], langs: [], engine: createJavaScriptRegexEngine() });
  })();
  return highlighter;
}

/** The language Shiki knows by this fence name (e.g. "py" → "python"), or null. */
export async function knownLanguage(name: string): Promise<string | null> {
  if (!name) return null;
  const { bundledLanguages, bundledLanguagesAlias } = await import("shiki");
  const key = name.toLowerCase();
  if (key in bundledLanguages) return key;
  return key in bundledLanguagesAlias ? key : null;
}

/**
 * The code as Shiki's tokens (light and dark colours as CSS variables), or null until they are
 * ready or when the language is unknown: the code then shows as plain text. Tokens are rendered
 * as text in spans by the caller; no HTML from the model or from Shiki is ever injected.
 */
export function useHighlight(code: string, language: string): ThemedToken[][] | null {
  const [result, setResult] = useState<{ key: string; tokens: ThemedToken[][] | null }>({ key: "", tokens: null });
  const key = `${language}\u0000${code}`;

  useEffect(() => {
    let cancelled = false;
    void (async () => {
      const lang = await knownLanguage(language);
      if (!lang) return;
      const shiki = await getHighlighter();
      await shiki.loadLanguage(lang as Parameters<typeof shiki.loadLanguage>[0]);
      const { tokens } = shiki.codeToTokens(code, {
        lang: lang as Parameters<typeof shiki.codeToTokens>[1]["lang"],
        themes: { light: "github-light", dark: "github-dark" },
        defaultColor: false,
      });
      if (!cancelled) setResult({ key, tokens });
    })().catch(() => undefined); // highlighting is a nicety: plain code stays readable
    return () => {
      cancelled = true;
    };
  }, [code, language, key]);

  return result.key === key ? result.tokens : null;
}
