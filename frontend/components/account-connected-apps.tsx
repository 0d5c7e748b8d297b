"use client";

import { apiFetch, userPath } from "@/lib/api-client";
import type { ConnectedApp } from "@/lib/account-types";
import type { Session } from "@/lib/auth-store";
import { fullTime, shortTime } from "@/lib/format-time";
import { useAction } from "@/lib/use-action";
import { useUserResource } from "@/lib/use-user-resource";

/** MCP clients connected by OAuth (they act as the agent named when they were allowed); revoked like keys. */
export function AccountConnectedApps({ session }: { session: Session }) {
  const { data, errorText, mutate } = useUserResource<ConnectedApp[]>(session, "/connected-apps");
  const revoke = useAction();

  async function revokeApp(app: ConnectedApp) {
    const path = userPath(session, `/connected-apps/${app.id}`);
    if (await revoke.run(() => apiFetch(session, path, { method: "DELETE" }))) await mutate();
  }

  return (
    <section className="account-section" aria-labelledby="account-apps-title" data-testid="connected-apps-section">
      <h2 id="account-apps-title">Connected apps</h2>
      <p className="muted small">MCP clients you allowed to sign in through Parley; each acts as the agent you named.</p>
      {errorText && <p className="error-text" role="alert">{errorText}</p>}
      {data && data.length === 0 && (
        <p className="muted small" data-testid="connected-apps-empty">
          No connected apps.
        </p>
      )}
      {data && data.length > 0 && (
        <ul className="account-list">
          {data.map((app) => (
            <li key={app.id} className="account-row" data-testid="connected-app-row" data-agent={app.agent}>
              <span className="account-row-main">
                <strong>{app.client_name}</strong> <span className="muted">as</span> <strong>{app.agent}</strong>{" "}
                <code className="muted">{app.client_host}</code>
                <span className="muted small" title={fullTime(app.created_at)}>
                  Connected {shortTime(app.created_at)} · {app.last_used_at ? `last used ${shortTime(app.last_used_at)}` : "never used"}
                </span>
              </span>
              <button
                type="button"
                className="button small danger"
                disabled={revoke.busy}
                onClick={() => void revokeApp(app)}
                aria-label={`Disconnect ${app.client_name} (${app.agent})`}
                data-testid="revoke-connected-app"
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
      {revoke.error && <p className="error-text" role="alert">{revoke.error}</p>}
    </section>
  );
}
