import { apiFetch, userPath } from "./api-client";
import { ApiError, errorFromBody } from "./api-error";
import type { Session } from "./auth-store";
import { parseJson, readSse } from "./sse";
import type { ChatResult, Message } from "./types";

export interface ChatStreamHandlers {
  onMessage(message: Message): void;
  onDelta(text: string): void;
  onToolCall(call: { call_id: string; tool: string; parameters: Record<string, unknown> | null }): void;
  onToolResult(result: { call_id: string; tool: string; result: unknown }): void;
}

/** A new message, or `{retry: true}` to run the last failed turn again on its stored message. */
export type TurnInput = { message: string } | { retry: true };

/**
 * One chat turn, streamed. Resolves with the `done` payload; rejects with an ApiError
 * for an HTTP error, an `error` event, or a stream that ends without `done`.
 */
export async function streamChat(
  session: Session,
  conversationId: number | null,
  input: TurnInput,
  handlers: ChatStreamHandlers,
  signal: AbortSignal,
): Promise<ChatResult> {
  const response = await apiFetch(session, userPath(session, "/chat"), {
    method: "POST",
    body: { conversation_id: conversationId, ...input },
    accept: "text/event-stream",
    signal,
  });

  const type = response.headers.get("content-type") ?? "";
  if (!type.includes("text/event-stream") || !response.body) {
    // A server that does not stream answers with the plain JSON result.
    return (await response.json()) as ChatResult;
  }

  for await (const event of readSse(response.body, signal)) {
    const data = parseJson<Record<string, unknown>>(event.data);
    if (data === null) continue;
    switch (event.event) {
      case "message":
        handlers.onMessage(data as unknown as Message);
        break;
      case "delta":
        if (typeof data.text === "string") handlers.onDelta(data.text);
        break;
      case "tool_call":
        handlers.onToolCall(data as unknown as Parameters<ChatStreamHandlers["onToolCall"]>[0]);
        break;
      case "tool_result":
        handlers.onToolResult(data as unknown as Parameters<ChatStreamHandlers["onToolResult"]>[0]);
        break;
      case "done":
        return data as unknown as ChatResult;
      case "error":
        throw errorFromBody(500, data);
      default:
        break;
    }
  }
  if (signal.aborted) throw new DOMException("Aborted", "AbortError");
  throw new ApiError(0, "stream_interrupted", "The connection closed before the reply finished.");
}
