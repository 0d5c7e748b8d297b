"use client";

import { useEffect, useState, type FormEvent } from "react";
import useSWR from "swr";
import { runFinished, runLatest, type Delegation, type Run } from "@/lib/agent-types";
import { answerQuestion, type QuestionReply } from "@/lib/answer-question";
import { apiJson, userPath } from "@/lib/api-client";
import type { Session } from "@/lib/auth-store";
import { postMessage } from "@/lib/post-message";
import { useAction } from "@/lib/use-action";
import { useConversationFeed } from "@/lib/use-conversation-feed";
import { useMarkRead } from "@/lib/use-mark-read";
import { agentMessageRenderer } from "./agent-messages";
import { StoredMessage } from "./stored-message";
import { RunStatus } from "./run-status";
import { ThreadTimeline } from "./thread-timeline";

interface Props {
  session: Session;
  run: Run;
  onClose: () => void;
  closedQuestions?: ReadonlySet<number>;
}

const CLOSED_THREAD = new Set(["completed", "failed", "escalated", "cancelled", "timed_out"]);

/**
 * A run opened beside the current view: its conversation live, a message box while it runs,
 * read-only once it finished. A delegated run shows its thread as a timeline.
 */
export function RunSheet({ session, run, onClose, closedQuestions }: Props) {
  const conversationId = run.conversation_id;
  const feed = useConversationFeed(session, conversationId);
  const delegated = run.parent_run_id !== null;
  const threadPath = userPath(session, `/delegations/${conversationId}`);
  const { data: thread, mutate: reloadThread } = useSWR<Delegation>(
    delegated && conversationId !== null ? ["parley", session.epoch, threadPath] : null,
    () => apiJson<Delegation>(session, threadPath),
    { dedupingInterval: 0 },
  );
  const lastId = feed.messages.at(-1)?.id;
  useEffect(() => {
    if (lastId !== undefined && delegated) void reloadThread();
  }, [lastId, delegated, reloadThread]);
  useMarkRead(session, conversationId, feed.messages, 0);

  const [draft, setDraft] = useState("");
  const sending = useAction();
  const readOnly = runFinished(run) || (thread !== undefined && CLOSED_THREAD.has(thread.status));

  async function post(text: string) {
    if (conversationId === null) return;
    feed.add([await postMessage(session, conversationId, { text })]);
  }

  async function answer(questionId: number, reply: QuestionReply) {
    feed.add([await answerQuestion(session, questionId, reply)]);
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    const text = draft.trim();
    if (!text || sending.busy) return;
    if (await sending.run(() => post(text))) setDraft("");
  }

  const title = run.title || `Run #${run.id}`;
  const render = agentMessageRenderer({ messages: feed.messages, onAnswer: answer, writable: !readOnly, closed: closedQuestions });

  return (
    <aside
      className="run-sheet"
      aria-labelledby="run-sheet-title"
      data-testid="run-sheet"
      data-run-id={run.id}
      onKeyDown={(event) => {
        if (event.key === "Escape") onClose();
      }}
    >
      <div className="run-sheet-head">
        <div className="run-sheet-titles">
          <h2 id="run-sheet-title" className="run-sheet-title">
            {delegated && thread ? `${thread.parent_agent} → ${thread.child_agent}` : run.agent}
            <span className="muted">: {title}</span>
          </h2>
          <RunStatus run={run} unclaimed={run.status === "running" && thread?.status === "pending"} />
          {runLatest(run) && (
            <p className="muted small run-latest" data-testid="run-sheet-latest">
              {runLatest(run)}
            </p>
          )}
        </div>
        <button type="button" className="button icon ghost" onClick={onClose} aria-label="Close run" data-testid="run-sheet-close">
          <span aria-hidden="true">✕</span>
        </button>
      </div>
      <div className="run-sheet-body" role="log" aria-label={`Messages of ${title}`} tabIndex={0} data-testid="run-messages">
        {feed.loading && <p className="muted pad">Loading messages…</p>}
        {feed.error && (
          <p className="error-text pad" role="alert">
            {feed.error}
          </p>
        )}
        {!feed.loading && feed.messages.length === 0 && <p className="muted pad">No messages yet.</p>}
        {delegated ? (
          <ThreadTimeline messages={feed.messages} thread={thread ?? null} />
        ) : (
          feed.messages.map((message) =>
            render(
              message,
              <StoredMessage key={message.id} message={message} />,
            ),
          )
        )}
        {delegated && thread?.open_question && !readOnly && (
          <p className="muted small pad">
            {thread.child_agent} is waiting for an answer: a message you send now answers it.
          </p>
        )}
      </div>
      {readOnly ? (
        <p className="run-readonly muted small" data-testid="run-readonly">
          This {delegated ? "thread" : "run"} has finished; its conversation is read-only.
        </p>
      ) : (
        <form className="run-composer" onSubmit={(e) => void submit(e)}>
          <label htmlFor="run-input" className="sr-only">
            Message to {delegated && thread ? "the thread" : run.agent}
          </label>
          <textarea
            id="run-input"
            rows={2}
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) void submit(e);
            }}
            placeholder={`Write to ${delegated && thread ? "the thread" : run.agent}…`}
            data-testid="run-input"
            maxLength={16_000}
          />
          <button type="submit" className="button primary" disabled={!draft.trim() || sending.busy} data-testid="run-send">
            Send
          </button>
          {sending.error && (
            <p className="error-text small" role="alert">
              {sending.error}
            </p>
          )}
        </form>
      )}
    </aside>
  );
}
