"use client";

import { apiFetch, userPath } from "@/lib/api-client";
import type { WebSession } from "@/lib/account-types";
import type { Session } from "@/lib/auth-store";
import { deviceName } from "@/lib/device-name";
import { fullTime, shortTime } from "@/lib/format-time";
import { useAction } from "@/lib/use-action";
import { useUserResource } from "@/lib/use-user-resource";
import { useReauth } from "./reauth-provider";

/**
 * Where this person is signed in; any session (this one included) can be ended here, or all the
 * others at once (after adding or removing a passkey, say). Ending another device's session
 * needs a recent sign-in, so a session someone took cannot sign its owner out.
 */
export function AccountSessions({ session, onEndedCurrent }: { session: Session; onEndedCurrent: () => void }) {
  const { data, errorText, mutate } = useUserResource<WebSession[]>(session, "/sessions");
  const action = useAction();
  const reauth = useReauth();

  async function end(item: WebSession) {
    const done = await action.run(() =>
      reauth(() => apiFetch(session, userPath(session, `/sessions/${item.id}`), { method: "DELETE" })),
    );
    if (done && item.current) onEndedCurrent();
    else if (done) await mutate();
  }

  async function endOthers() {
    if (await action.run(() => reauth(() => apiFetch(session, userPath(session, "/sessions"), { method: "DELETE" })))) {
      await mutate();
    }
  }

  return (
    <section className="account-section" aria-labelledby="account-sessions-title" data-testid="sessions-section">
      <h2 id="account-sessions-title">Signed-in devices</h2>
      {errorText && <p className="error-text" role="alert">{errorText}</p>}
      {data && (
        <ul className="account-list">
          {data.map((item) => (
            <li key={item.id} className="account-row" data-testid="session-row" data-current={item.current || undefined}>
              <span className="account-row-main">
                <strong title={item.device}>{deviceName(item.device)}</strong>
                {item.current && <span className="chip">This device</span>}
                <span className="muted small" title={fullTime(item.last_seen_at ?? item.created_at)}>
                  Last seen {shortTime(item.last_seen_at ?? item.created_at)} · signed in {shortTime(item.created_at)}
                </span>
              </span>
              <button
                type="button"
                className="button small danger"
                disabled={action.busy}
                onClick={() => void end(item)}
                data-testid="end-session"
              >
                {item.current ? "Sign out here" : "End session"}
              </button>
            </li>
          ))}
        </ul>
      )}
      {data && data.some((item) => !item.current) && (
        <button
          type="button"
          className="button small"
          disabled={action.busy}
          onClick={() => void endOthers()}
          data-testid="end-other-sessions"
        >
          Sign out all other devices
        </button>
      )}
      {action.error && <p className="error-text" role="alert">{action.error}</p>}
    </section>
  );
}
