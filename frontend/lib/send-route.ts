/**
 * Where the message box sends what the person typed:
 * - `post`: stored at once with `POST /conversations/{id}/messages` (no assistant turn): the
 *   inbox, runs and threads always; a work session while a reply still runs but the session
 *   waits on one of its open questions (a permission request asked mid-turn), so "yes" answers
 *   it now instead of waiting behind the turn that cannot finish without it. The server reads
 *   the words as the answer (or, deciding nothing, as the session's next prompt).
 * - `queue`: a reply is running and nothing waits on the person: sent once it finishes.
 * - `turn`: a new turn (`POST /chat`), as when nothing is running.
 */
export type SendRoute = "post" | "queue" | "turn";

export function sendRoute({ direct, questionWaiting, busy }: { direct: boolean; questionWaiting: boolean; busy: boolean }): SendRoute {
  if (direct) return "post";
  if (!busy) return "turn";
  return questionWaiting ? "post" : "queue";
}
