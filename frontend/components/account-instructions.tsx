"use client";

import { useState, type FormEvent } from "react";
import { apiJson, userPath } from "@/lib/api-client";
import type { Session } from "@/lib/auth-store";
import type { Instructions } from "@/lib/types";
import { useAction } from "@/lib/use-action";
import { useUserResource } from "@/lib/use-user-resource";

const PATH = "/instructions";
const FALLBACK_MAX = 4000;

/** What this person asks the assistant to keep in mind: given to it on every turn of theirs. */
export function AccountInstructions({ session }: { session: Session }) {
  const stored = useUserResource<Instructions>(session, PATH, { revalidateOnFocus: false });
  const [text, setText] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const save = useAction();
  const max = stored.data?.max_chars ?? FALLBACK_MAX;
  const shown = text ?? stored.data?.text ?? "";
  const over = shown.length > max;

  async function submit(event: FormEvent) {
    event.preventDefault();
    const done = await save.run(() =>
      stored.mutate(apiJson<Instructions>(session, userPath(session, PATH), { method: "PUT", body: { text: shown } }), { revalidate: false }),
    );
    if (done) {
      setText(null);
      setSaved(true);
    }
  }

  const error = save.error ?? stored.errorText;
  return (
    <section className="account-section" aria-labelledby="account-instructions-title" data-testid="instructions-section">
      <h2 id="account-instructions-title">Instructions</h2>
      <form onSubmit={submit} className="stack" noValidate data-testid="instructions-form">
        <label htmlFor="instructions-text">What the assistant should keep in mind</label>
        <p className="muted small" id="instructions-hint">
          Given to the assistant on every reply in your chats, never to anyone else&apos;s. For example: &quot;Answer in French.&quot;
        </p>
        <textarea
          id="instructions-text"
          data-testid="instructions-text"
          className="instructions-text"
          rows={5}
          value={shown}
          aria-describedby="instructions-hint instructions-count"
          aria-invalid={over || undefined}
          disabled={stored.data === undefined && !stored.error}
          onChange={(e) => {
            setText(e.target.value);
            setSaved(false);
          }}
        />
        <p id="instructions-count" className={`small ${over ? "error-text" : "muted"}`} data-testid="instructions-count">
          {shown.length} / {max} characters{over ? ` — ${shown.length - max} too many` : ""}
        </p>
        <button type="submit" className="button" disabled={save.busy || stored.data === undefined} data-testid="instructions-save">
          {save.busy ? "Saving…" : "Save instructions"}
        </button>
      </form>
      {error && (
        <p className="error-text" role="alert" data-testid="instructions-error">
          {error}
        </p>
      )}
      {saved && !error && (
        <p className="ok-text" role="status" data-testid="instructions-saved">
          {shown ? "Saved. The assistant follows them from your next message." : "Cleared."}
        </p>
      )}
    </section>
  );
}
