"use client";

import type { CSSProperties, ComponentProps, ReactElement } from "react";
import { useHighlight } from "@/lib/highlight";
import { useCopy } from "@/lib/use-copy";

export function textOf(node: unknown): string {
  if (typeof node === "string" || typeof node === "number") return String(node);
  if (Array.isArray(node)) return node.map(textOf).join("");
  if (node && typeof node === "object" && "props" in node) {
    return textOf((node as { props: { children?: unknown } }).props.children);
  }
  return "";
}

/** The fence's language from the `code` element's class ("language-python" → "python"). */
function languageOf(children: unknown): string {
  const element = (Array.isArray(children) ? children[0] : children) as ReactElement<{ className?: string }> | undefined;
  const className = element?.props?.className ?? "";
  return /(?:^|\s)language-([\w+#.-]+)/.exec(className)?.[1] ?? "";
}

/**
 * A fenced code block: highlighted by Shiki (as text spans, never HTML), its language named,
 * a copy button, and long lines scrolling sideways instead of wrapping.
 */
export function CodeBlock(props: ComponentProps<"pre">) {
  const { copied, copy } = useCopy();
  const code = textOf(props.children).replace(/\n$/, "");
  const language = languageOf(props.children);
  const tokens = useHighlight(code, language);

  return (
    <div className="code-block" data-testid="code-block" data-highlighted={tokens ? "true" : undefined}>
      <div className="code-head">
        <span className="code-language" data-testid="code-language">
          {language || "text"}
        </span>
        <button type="button" className="button tiny ghost copy-button" onClick={() => void copy(code)} data-testid="copy-code">
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
      <pre tabIndex={0} aria-label={language ? `${language} code` : "Code"}>
        <code>
          {tokens
            ? tokens.map((line, i) => (
                <span className="code-line" key={i}>
                  {line.map((token, j) => (
                    <span key={j} style={token.htmlStyle as CSSProperties | undefined}>
                      {token.content}
                    </span>
                  ))}
                  {i < tokens.length - 1 ? "\n" : null}
                </span>
              ))
            : code}
        </code>
      </pre>
    </div>
  );
}
