import { diffLines } from "diff";

/** What an Edit, MultiEdit or Write would do to one file, as lines added and removed. */
export interface FileChange {
  path: string;
  /** "write": the whole file is (re)written with `lines`; "edit": a replacement inside it. */
  kind: "write" | "edit";
  lines: { sign: "+" | "-" | " "; text: string }[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

function replacement(oldText: string, newText: string): FileChange["lines"] {
  return diffLines(oldText, newText).flatMap((part) =>
    splitLines(part.value).map((text) => ({ sign: part.added ? ("+" as const) : part.removed ? ("-" as const) : (" " as const), text })),
  );
}

/**
 * The change a tool's input describes, or null if it is not a file edit. Claude Code's Write is
 * `{file_path, content}`, Edit `{file_path, old_string, new_string}`, MultiEdit `{file_path,
 * edits: [{old_string, new_string}]}`.
 */
export function fileChangeOf(input: unknown): FileChange | null {
  if (!isRecord(input) || typeof input.file_path !== "string") return null;
  const path = input.file_path;
  if (typeof input.content === "string") {
    return { path, kind: "write", lines: splitLines(input.content).map((text) => ({ sign: "+", text })) };
  }
  if (typeof input.old_string === "string" && typeof input.new_string === "string") {
    return { path, kind: "edit", lines: replacement(input.old_string, input.new_string) };
  }
  if (Array.isArray(input.edits)) {
    const lines = input.edits.flatMap((edit) =>
      isRecord(edit) && typeof edit.old_string === "string" && typeof edit.new_string === "string"
        ? replacement(edit.old_string, edit.new_string)
        : [],
    );
    return { path, kind: "edit", lines };
  }
  return null;
}
