"use client";

import { ApiError } from "@/lib/api-error";
import type { Session } from "@/lib/auth-store";
import type { Conversation, ModelsList } from "@/lib/types";
import { useAction } from "@/lib/use-action";
import { useUserResource } from "@/lib/use-user-resource";

interface Props {
  session: Session;
  /** The open chat; null for a new one (choosing a model then makes it). */
  conversation: Conversation | null;
  onChoose: (model: string | null) => Promise<void>;
}

/**
 * Which model answers in this chat: the provider's models (its GET /v1/models) and the offline
 * one. The configured model is the choice until another is picked; the next reply uses it.
 */
export function ModelPicker({ session, conversation, onChoose }: Props) {
  const list = useUserResource<ModelsList>(session, "/models", { revalidateOnFocus: false });
  const choose = useAction();
  const data = list.data;
  const current = conversation?.model ?? data?.default ?? "";
  // A choice the provider no longer lists (or cannot list now) stays shown, marked.
  const options = data ? (data.models.includes(current) || !current ? data.models : [current, ...data.models]) : current ? [current] : [];
  // An API that is away has its own banner; only this picker's own failures are said here.
  const listError = list.error instanceof ApiError && list.error.unreachable ? null : list.errorText;
  const error = choose.error ?? (data ? null : listError);

  function change(value: string) {
    void choose.run(() => onChoose(value));
  }

  return (
    <div className="model-picker" data-testid="model-picker-area">
      <label className="model-picker-label" htmlFor="model-picker">
        Model
      </label>
      <select
        id="model-picker"
        data-testid="model-picker"
        className="model-picker-select"
        value={current}
        disabled={!data || choose.busy || options.length < 2}
        title={current ? `Replies come from ${current}` : undefined}
        onChange={(e) => change(e.target.value)}
      >
        {options.map((name) => (
          <option key={name} value={name} disabled={data ? !data.models.includes(name) : false}>
            {name}
            {data && !data.models.includes(name) ? " (not offered now)" : ""}
            {name === data?.default ? " (default)" : ""}
          </option>
        ))}
      </select>
      {data?.provider_reachable === false && (
        <span className="model-notice" role="status" data-testid="model-notice" title={data.notice ?? undefined}>
          <span aria-hidden="true">⚠ </span>
          <span className="model-notice-text" aria-hidden="true">
            provider unreachable
          </span>
          <span className="sr-only">{data.notice}</span>
        </span>
      )}
      {error && (
        <span className="model-picker-error error-text small" role="alert" data-testid="model-picker-error">
          {error}
        </span>
      )}
    </div>
  );
}
