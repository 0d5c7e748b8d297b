import { apiJson, userPath } from "./api-client";
import type { Session } from "./auth-store";
import type { Message } from "./types";

export interface PostInput {
  text: string;
  /** The message this replies to (questions are answered through `answerQuestion`). */
  replyTo?: number | null;
}

/** Writes as the person into an inbox, run, delegation or work conversation (no assistant turn). */
export function postMessage(session: Session, conversationId: number, input: PostInput): Promise<Message> {
  return apiJson<Message>(session, userPath(session, `/conversations/${conversationId}/messages`), {
    method: "POST",
    body: input.replyTo ? { text: input.text, reply_to: input.replyTo } : { text: input.text },
  });
}
