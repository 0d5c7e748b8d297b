import { apiJson, userPath } from "./api-client";
import type { Session } from "./auth-store";
import type { Message } from "./types";

export interface PostInput {
  text: string;
  /** The question this answers (a permission question: "allow", "allow always" or "deny"). */
  replyTo?: number | null;
}

/** Writes as the person into an inbox, run, delegation or work conversation (no assistant turn). */
export function postMessage(session: Session, conversationId: number, input: PostInput): Promise<Message> {
  return apiJson<Message>(session, userPath(session, `/conversations/${conversationId}/messages`), {
    method: "POST",
    body: input.replyTo ? { text: input.text, reply_to: input.replyTo } : { text: input.text },
  });
}
