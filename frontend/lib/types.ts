/**
 * Wire types, taken from the generated `api-types.ts` (the API's OpenAPI schema) by route, so a
 * renamed schema class on the server does not break the client. Only shapes the schema leaves
 * open (tool call records, live events) are written here.
 */
import type { components, paths } from "./api-types";

export type JsonOf<R> = R extends { content: { "application/json": infer T } } ? T : never;

export type Task = JsonOf<paths["/api/{user_id}/tasks"]["post"]["responses"][201]>;
export type Conversation = JsonOf<paths["/api/{user_id}/conversations"]["post"]["responses"][201]>;
export type Message = JsonOf<paths["/api/{user_id}/conversations/{conversation_id}/messages"]["get"]["responses"][200]>[number];
export type Health = JsonOf<paths["/api/health"]["get"]["responses"][200]>;
export type ChatResult = JsonOf<paths["/api/{user_id}/chat"]["post"]["responses"][200]>;
export type ApiErrorBody = components["schemas"]["ErrorResponse"];

export type Role = "user" | "assistant" | "agent" | "system";
export type NewConversationMode = "chat" | "work";

/** One entry of a message's `tool_calls` as the UI reads it. */
export interface ToolCallRecord {
  tool: string;
  parameters: Record<string, unknown> | null;
  result?: unknown;
  call_id?: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A stored message's tool calls, keeping only well-formed entries. */
export function toolCallsOf(message: Pick<Message, "tool_calls">): ToolCallRecord[] {
  return (message.tool_calls ?? []).flatMap((raw) => {
    if (!isRecord(raw) || typeof raw.tool !== "string") return [];
    return [
      {
        tool: raw.tool,
        parameters: isRecord(raw.parameters) ? raw.parameters : null,
        result: raw.result,
        call_id: typeof raw.call_id === "string" ? raw.call_id : undefined,
      },
    ];
  });
}
export type ModelsList = JsonOf<paths["/api/{user_id}/models"]["get"]["responses"][200]>;
export type Instructions = JsonOf<paths["/api/{user_id}/instructions"]["get"]["responses"][200]>;
