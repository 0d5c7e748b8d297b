import { apiFetch, userPath } from "./api-client";
import { ApiError, errorFromBody } from "./api-error";
import type { Session } from "./auth-store";
import { parseJson, readSse } from "./sse";
import type { ChatResult } from "./types";

export interface TurnProgress {
  /**
   * The person's message is stored as `messageId` (a retry stores none), in conversation
   * `conversationId`: a new chat learns its id here, long before the turn ends.
   */
  onStored(conversationId: number, messageId: number): void;
}

/**
 * A new message (with the ids of uploaded attachments going with it), or `{retry: true}` to run
 * the last failed turn again on its stored message, or (`replaces`) a new branch in place of a
 * shown message: its edit (with `message`), or another answer to a reply's question (without).
 */
export type TurnInput =
  | { message: string; attachments?: number[] }
  | { retry: true }
  | { message: string; replaces: number; attachments?: number[] }
  | { replaces: number };

/**
 * One chat turn: `POST /chat`, streamed so that its first event (the stored message) says at
 * once which conversation a new chat became. Nothing on this stream is shown: the reply, its
 * tool calls and every stored message reach the screen from the conversation's event stream.
 * Resolves with the `done` payload; rejects with an ApiError for an HTTP error, an `error`
 * event, or a stream that ends without `done`.
 */
export async function runChatTurn(
  session: Session,
  conversationId: number | null,
  input: TurnInput,
  progress: TurnProgress,
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
    if (event.event !== "message" && event.event !== "done" && event.event !== "error") continue;
    const data = parseJson<Record<string, unknown>>(event.data);
    if (data === null) continue;
    if (event.event === "done") return data as unknown as ChatResult;
    if (event.event === "error") throw errorFromBody(500, data);
    if (data.role === "user" && typeof data.conversation_id === "number" && typeof data.id === "number") {
      progress.onStored(data.conversation_id, data.id);
    }
  }
  if (signal.aborted) throw new DOMException("Aborted", "AbortError");
  throw new ApiError(0, "stream_interrupted", "The connection closed before the reply finished.");
}
