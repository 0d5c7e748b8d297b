"use client";

import { useState, type FormEvent } from "react";
import { apiFetch, apiJson, userPath } from "@/lib/api-client";
import type { ApprovalRule, ApprovalRuleIn } from "@/lib/account-types";
import type { Session } from "@/lib/auth-store";
import { fullTime, shortTime } from "@/lib/format-time";
import { useAction } from "@/lib/use-action";
import { useUserResource } from "@/lib/use-user-resource";

type Fields = Pick<ApprovalRuleIn, "decision" | "pattern" | "scope" | "scope_value" | "on_timeout">;

const EMPTY: Fields = { decision: "allow", pattern: "", scope: "all", scope_value: "", on_timeout: "deny" };

function rulePath(session: Session, id?: number): string {
  return userPath(session, id === undefined ? "/approval-rules" : `/approval-rules/${id}`);
}

function scopeText(rule: ApprovalRule): string {
  if (rule.scope === "agent") return `agent ${rule.scope_value}`;
  if (rule.scope === "machine") return `machine ${rule.scope_value}`;
  return "every agent";
}

/** The fields of one rule: adding a new one, or editing one in place. */
function RuleForm({
  initial,
  busy,
  submitLabel,
  prefix,
  onSubmit,
  onCancel,
}: {
  initial: Fields;
  busy: boolean;
  submitLabel: string;
  prefix: string;
  onSubmit: (fields: Fields) => Promise<boolean>;
  onCancel?: () => void;
}) {
  const [fields, setFields] = useState<Fields>(initial);
  const set = (change: Partial<Fields>) => setFields((current) => ({ ...current, ...change }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    const body = { ...fields, pattern: fields.pattern.trim(), scope_value: fields.scope === "all" ? "" : fields.scope_value.trim() };
    if ((await onSubmit(body)) && !onCancel) setFields(EMPTY);
  }

  return (
    <form onSubmit={submit} className="key-form" noValidate data-testid={`${prefix}-form`}>
      <label htmlFor={`${prefix}-pattern`}>Rule</label>
      <input
        id={`${prefix}-pattern`}
        data-testid={`${prefix}-pattern`}
        placeholder="e.g. Bash(npm test:*) or Edit(src/**)"
        autoCapitalize="none"
        spellCheck={false}
        value={fields.pattern}
        onChange={(e) => set({ pattern: e.target.value })}
      />
      <label htmlFor={`${prefix}-decision`}>Decision</label>
      <select
        id={`${prefix}-decision`}
        data-testid={`${prefix}-decision`}
        value={fields.decision}
        onChange={(e) => set({ decision: e.target.value as Fields["decision"] })}
      >
        <option value="allow">Allow without asking</option>
        <option value="ask">Always ask</option>
        <option value="deny">Deny without asking</option>
      </select>
      <label htmlFor={`${prefix}-scope`}>For</label>
      <select
        id={`${prefix}-scope`}
        data-testid={`${prefix}-scope`}
        value={fields.scope}
        onChange={(e) => set({ scope: e.target.value as Fields["scope"] })}
      >
        <option value="all">Every agent</option>
        <option value="agent">One agent</option>
        <option value="machine">One machine</option>
      </select>
      {fields.scope !== "all" && (
        <>
          <label htmlFor={`${prefix}-scope-value`}>{fields.scope === "agent" ? "Agent name" : "Machine name"}</label>
          <input
            id={`${prefix}-scope-value`}
            data-testid={`${prefix}-scope-value`}
            placeholder={fields.scope === "agent" ? "e.g. claude-code" : "e.g. build-box"}
            autoCapitalize="none"
            spellCheck={false}
            value={fields.scope_value}
            onChange={(e) => set({ scope_value: e.target.value })}
          />
        </>
      )}
      <label htmlFor={`${prefix}-timeout`}>If nobody answers</label>
      <select
        id={`${prefix}-timeout`}
        data-testid={`${prefix}-timeout`}
        value={fields.on_timeout}
        onChange={(e) => set({ on_timeout: e.target.value as Fields["on_timeout"] })}
      >
        <option value="deny">Deny</option>
        <option value="allow">Allow</option>
      </select>
      <span className="row-actions">
        <button type="submit" className="button" disabled={busy} data-testid={`${prefix}-save`}>
          {submitLabel}
        </button>
        {onCancel && (
          <button type="button" className="button ghost" onClick={onCancel} data-testid={`${prefix}-cancel`}>
            Cancel
          </button>
        )}
      </span>
    </form>
  );
}

/**
 * Account → Rules: the person's standing answers to an agent's permission requests, in Claude
 * Code's own syntax (deny beats ask beats allow). "Always allow this" on a request adds one here.
 */
export function AccountApprovalRules({ session }: { session: Session }) {
  const { data, errorText, mutate } = useUserResource<ApprovalRule[]>(session, "/approval-rules");
  const [editing, setEditing] = useState<number | null>(null);
  const create = useAction();
  const edit = useAction();
  const remove = useAction();

  async function add(fields: Fields): Promise<boolean> {
    const done = await create.run(() => apiJson<ApprovalRule>(session, rulePath(session), { method: "POST", body: fields }));
    if (done) await mutate();
    return done;
  }

  async function save(rule: ApprovalRule, fields: Fields): Promise<boolean> {
    const done = await edit.run(() =>
      apiJson<ApprovalRule>(session, rulePath(session, rule.id), { method: "PATCH", body: fields }),
    );
    if (done) {
      setEditing(null);
      await mutate();
    }
    return done;
  }

  async function drop(rule: ApprovalRule) {
    if (await remove.run(() => apiFetch(session, rulePath(session, rule.id), { method: "DELETE" }))) await mutate();
  }

  return (
    <section className="account-section" aria-labelledby="account-rules-title" data-testid="approval-rules-section">
      <h2 id="account-rules-title">Rules</h2>
      <p className="muted small">
        Answer an agent&apos;s permission requests before they are asked: <code>Bash(npm test:*)</code>,{" "}
        <code>Edit(src/**)</code>, <code>WebFetch(domain:example.com)</code>, <code>mcp__server__tool</code>. A deny rule wins over
        ask, and ask over allow. A command joined with <code>;</code>, <code>&amp;&amp;</code> or <code>|</code> is never allowed by
        a prefix rule.
      </p>
      <RuleForm initial={EMPTY} busy={create.busy} submitLabel={create.busy ? "Adding…" : "Add rule"} prefix="rule-new" onSubmit={add} />
      {create.error && (
        <p className="error-text" role="alert" data-testid="rule-error">
          {create.error}
        </p>
      )}
      {errorText && <p className="error-text" role="alert">{errorText}</p>}
      {data && data.length === 0 && (
        <p className="muted small" data-testid="approval-rules-empty">
          No rules yet: every request is asked.
        </p>
      )}
      {data && data.length > 0 && (
        <ul className="account-list">
          {data.map((rule) =>
            editing === rule.id ? (
              <li key={rule.id} className="account-row" data-testid="approval-rule-row" data-pattern={rule.pattern}>
                <RuleForm
                  initial={{
                    decision: rule.decision,
                    pattern: rule.pattern,
                    scope: rule.scope,
                    scope_value: rule.scope_value,
                    on_timeout: rule.on_timeout,
                  }}
                  busy={edit.busy}
                  submitLabel={edit.busy ? "Saving…" : "Save"}
                  prefix="rule-edit"
                  onSubmit={(fields) => save(rule, fields)}
                  onCancel={() => setEditing(null)}
                />
                {edit.error && (
                  <p className="error-text" role="alert" data-testid="rule-edit-error">
                    {edit.error}
                  </p>
                )}
              </li>
            ) : (
              <li key={rule.id} className="account-row" data-testid="approval-rule-row" data-pattern={rule.pattern}>
                <span className="account-row-main">
                  <span>
                    <strong data-testid="approval-rule-decision">{rule.decision}</strong> <code>{rule.pattern}</code>
                  </span>
                  <span className="muted small" title={fullTime(rule.created_at)}>
                    {scopeText(rule)} · if nobody answers: {rule.on_timeout}
                    {rule.source === "always" ? " · from “Always allow this”" : ""} · {shortTime(rule.updated_at)}
                  </span>
                </span>
                <span className="row-actions">
                  <button
                    type="button"
                    className="button small ghost"
                    onClick={() => setEditing(rule.id)}
                    aria-label={`Edit the rule ${rule.pattern}`}
                    data-testid="edit-approval-rule"
                  >
                    Edit
                  </button>
                  <button
                    type="button"
                    className="button small danger"
                    disabled={remove.busy}
                    onClick={() => void drop(rule)}
                    aria-label={`Delete the rule ${rule.pattern}`}
                    data-testid="delete-approval-rule"
                  >
                    Delete
                  </button>
                </span>
              </li>
            ),
          )}
        </ul>
      )}
      {remove.error && <p className="error-text" role="alert">{remove.error}</p>}
    </section>
  );
}
