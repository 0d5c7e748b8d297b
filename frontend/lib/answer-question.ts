import type { AlwaysAllowed } from "./account-types";
import { apiJson, userPath } from "./api-client";
import type { Session } from "./auth-store";
import { openedByEmailLink } from "./conversation-url";
import type { Message } from "./types";

/** What the person decides about a work session's permission request. */
export type Decision = "allow" | "allow_session" | "deny";

/**
 * An answer in the person's words, or (a permission request) a decision, or "Always allow this":
 * allow, and a rule that allows the same call from now on without asking.
 */
export type QuestionReply = { text: string } | { decision: Decision } | { always: true };

/**
 * Answers one of the person's questions through its own route: stored once, as a reply to the
 * question; a question already answered or closed is refused (409) and nothing is stored.
 */
export async function answerQuestion(session: Session, questionId: number, reply: QuestionReply): Promise<Message> {
  // A question an emailed reminder's link opened: the audit trail says the answer came through it.
  const headers: Record<string, string> = openedByEmailLink(questionId) ? { "X-Parley-Via": "email_link" } : {};
  if ("always" in reply) {
    const path = userPath(session, `/approval-rules/from-question/${questionId}`);
    return (await apiJson<AlwaysAllowed>(session, path, { method: "POST", headers })).answer;
  }
  return apiJson<Message>(session, userPath(session, `/questions/${questionId}/answer`), { method: "POST", body: reply, headers });
}
