import { fileChangeOf } from "@/lib/tool-diff";
import type { Message } from "@/lib/types";

function meta(message: Message): Record<string, unknown> {
  return (message.meta as Record<string, unknown> | null) ?? {};
}

/**
 * The files a work session changed: each Edit or Write whose result came back without an error
 * (a denied or failed one changed nothing), from the stored events, in the order first changed.
 */
export function changedFiles(messages: Message[]): string[] {
  const failed = new Set<unknown>();
  const succeeded = new Set<unknown>();
  for (const message of messages) {
    const m = meta(message);
    if (m.type !== "tool_result") continue;
    (m.is_error === true ? failed : succeeded).add(m.tool_use_id);
  }
  const files: string[] = [];
  for (const message of messages) {
    const m = meta(message);
    if (m.type !== "tool_use" || !succeeded.has(m.tool_use_id) || failed.has(m.tool_use_id)) continue;
    const change = fileChangeOf(m.input);
    if (change && !files.includes(change.path)) files.push(change.path);
  }
  return files;
}

export function ChangedFiles({ messages }: { messages: Message[] }) {
  const files = changedFiles(messages);
  if (files.length === 0) return null;
  return (
    <details className="changed-files small" data-testid="changed-files">
      <summary>
        Files changed ({files.length})
      </summary>
      <ul>
        {files.map((file) => (
          <li key={file}>
            <code>{file}</code>
          </li>
        ))}
      </ul>
    </details>
  );
}
