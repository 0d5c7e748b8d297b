"use client";

import type { ComponentProps } from "react";
import ReactMarkdown, { defaultUrlTransform } from "react-markdown";
import remarkGfm from "remark-gfm";
import { CodeBlock } from "./code-block";

/** Only links a person can safely follow; anything else (javascript:, data:, …) is dropped. */
export function safeUrl(url: string): string {
  const cleaned = defaultUrlTransform(url);
  return /^(https?:|mailto:|#|\/)/i.test(cleaned) || !/^[a-z][a-z0-9+.-]*:/i.test(cleaned) ? cleaned : "";
}

interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
}

/** remark plugin: raw HTML in the text becomes plain text (shown, never parsed as HTML). */
function htmlAsText() {
  const walk = (node: MdNode) => {
    if (node.type === "html") node.type = "text";
    node.children?.forEach(walk);
  };
  return walk;
}

const COMPONENTS = {
  pre: CodeBlock,
  a: ({ href, children }: ComponentProps<"a">) => (
    <a href={href} target="_blank" rel="noopener noreferrer nofollow">
      {children}
    </a>
  ),
  table: ({ children }: ComponentProps<"table">) => (
    <div className="table-scroll" tabIndex={0}>
      <table>{children}</table>
    </div>
  ),
  img: ({ alt }: ComponentProps<"img">) => <span className="muted">[image{alt ? `: ${alt}` : ""}]</span>,
};

/**
 * Markdown (GitHub flavour) for assistant and agent text. Raw HTML in the text is shown as
 * text, never rendered (no rehype-raw); link targets pass `safeUrl`; images are not loaded
 * (they show as their alt text).
 */
export function Markdown({ text }: { text: string }) {
  return (
    <ReactMarkdown remarkPlugins={[remarkGfm, htmlAsText]} urlTransform={safeUrl} components={COMPONENTS}>
      {text}
    </ReactMarkdown>
  );
}
