import { fileChangeOf } from "@/lib/tool-diff";

/** An Edit or Write as a diff (old → new) under its file name; nothing for other tools. */
export function ToolDiff({ input }: { input: unknown }) {
  const change = fileChangeOf(input);
  if (!change) return null;
  const added = change.lines.filter((l) => l.sign === "+").length;
  const removed = change.lines.filter((l) => l.sign === "-").length;
  return (
    <figure className="tool-diff" data-testid="tool-diff" data-kind={change.kind}>
      <figcaption className="tool-diff-head">
        <code data-testid="tool-diff-file">{change.path}</code>
        <span className="muted small">
          {change.kind === "write" ? "write file" : "edit"} · <span className="diff-added">+{added}</span>{" "}
          <span className="diff-removed">−{removed}</span>
        </span>
      </figcaption>
      <pre className="tool-diff-body" tabIndex={0} aria-label={`Changes to ${change.path}`}>
        {change.lines.map((line, i) => (
          <span key={i} className={`diff-line diff-${line.sign === "+" ? "add" : line.sign === "-" ? "del" : "same"}`} data-testid="diff-line">
            <span className="diff-sign" aria-hidden="true">
              {line.sign}
            </span>
            <span className="sr-only">{line.sign === "+" ? "added: " : line.sign === "-" ? "removed: " : ""}</span>
            {line.text}
            {"\n"}
          </span>
        ))}
      </pre>
    </figure>
  );
}
