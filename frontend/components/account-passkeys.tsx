"use client";

import { useState, type FormEvent } from "react";
import { apiFetch } from "@/lib/api-client";
import { describeError } from "@/lib/api-error";
import type { Session } from "@/lib/auth-store";
import { shortTime } from "@/lib/format-time";
import type { Passkey } from "@/lib/account-types";
import { passkeyHostProblemHere } from "@/lib/passkey-host";
import { addPasskey, cancelledByPerson, passkeysPath, passkeysSupported } from "@/lib/passkeys";
import { useAction } from "@/lib/use-action";
import { useUserResource } from "@/lib/use-user-resource";
import { useReauth } from "./reauth-provider";

/** This person's passkeys: add one on this device, remove any. */
export function AccountPasskeys({ session }: { session: Session }) {
  const { data, errorText, mutate } = useUserResource<Passkey[]>(session, "/passkeys");
  const [name, setName] = useState("");
  const [adding, setAdding] = useState(false);
  const [addError, setAddError] = useState<string | null>(null);
  const remove = useAction();
  const supported = passkeysSupported();
  const hostProblem = passkeyHostProblemHere();
  const reauth = useReauth();

  async function add(event: FormEvent) {
    event.preventDefault();
    setAdding(true);
    setAddError(null);
    try {
      await reauth(() => addPasskey(session, name.trim() || "Passkey"));
      setName("");
      await mutate();
    } catch (err) {
      setAddError(cancelledByPerson(err) ? "No passkey was added (the browser's prompt was closed)." : describeError(err));
    } finally {
      setAdding(false);
    }
  }

  async function removeKey(key: Passkey) {
    const removed = await remove.run(() =>
      reauth(() => apiFetch(session, passkeysPath(session, key.id), { method: "DELETE" })),
    );
    if (removed) await mutate();
  }

  return (
    <section className="account-section" aria-labelledby="account-passkeys-title" data-testid="passkeys-section">
      <h2 id="account-passkeys-title">Passkeys</h2>
      <p className="muted small">Sign in with your device&apos;s screen lock or a security key instead of a password.</p>
      {errorText && <p className="error-text" role="alert">{errorText}</p>}
      {data && data.length > 0 && (
        <ul className="account-list">
          {data.map((key) => (
            <li key={key.id} className="account-row" data-testid="passkey-row">
              <span className="account-row-main">
                <strong>{key.name}</strong>
                <span className="muted small">
                  Added {shortTime(key.created_at)}
                  {key.last_used_at ? ` · last used ${shortTime(key.last_used_at)}` : " · not used yet"}
                </span>
              </span>
              <button
                type="button"
                className="button small danger"
                disabled={remove.busy}
                onClick={() => void removeKey(key)}
                aria-label={`Remove passkey ${key.name}`}
                data-testid="remove-passkey"
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      {supported ? (
        <form onSubmit={add} className="inline-form">
          <label htmlFor="passkey-name" className="sr-only">
            Passkey name
          </label>
          <input
            id="passkey-name"
            data-testid="passkey-name"
            placeholder="Name (e.g. work laptop)"
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
          <button type="submit" className="button" disabled={adding} data-testid="add-passkey">
            {adding ? "Waiting for your device…" : "Add a passkey"}
          </button>
        </form>
      ) : (
        <p className="muted small" data-testid={hostProblem ? "passkey-host-note" : undefined}>
          {hostProblem ?? "This browser cannot create passkeys."}
        </p>
      )}
      {(addError || remove.error) && (
        <p className="error-text" role="alert" data-testid="passkey-error">
          {addError || remove.error}
        </p>
      )}
    </section>
  );
}
