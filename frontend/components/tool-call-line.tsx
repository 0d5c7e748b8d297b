import { resultFailed, summarizeToolCall } from "@/lib/tool-summary";
import type { ToolCallRecord } from "@/lib/types";

function pretty(value: unknown): string {
  if (value === undefined) return "(none)";
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

/** One tool call as a short line that expands to its parameters and result. */
export function ToolCallLine({ call, pending }: { call: ToolCallRecord; pending: boolean }) {
  const failed = !pending && resultFailed(call.result) !== null;
  const summary = summarizeToolCall(call.tool, call.parameters, call.result, pending);
  return (
    <details className={`tool-call${failed ? " failed" : ""}${pending ? " pending" : ""}`} data-testid="tool-call">
      <summary>
        <span className="tool-icon" aria-hidden="true">
          {pending ? "⋯" : failed ? "✕" : "✓"}
        </span>
        <span data-testid="tool-call-summary">{summary}</span>
      </summary>
      <dl className="tool-detail">
        <dt>Tool</dt>
        <dd>
          <code>{call.tool}</code>
        </dd>
        <dt>Parameters</dt>
        <dd>
          <pre data-testid="tool-call-parameters">{pretty(call.parameters ?? {})}</pre>
        </dd>
        <dt>Result</dt>
        <dd>
          <pre data-testid="tool-call-result">{pending ? "Running…" : pretty(call.result)}</pre>
        </dd>
      </dl>
    </details>
  );
}
