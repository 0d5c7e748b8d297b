"use client";

import { useEffect, useState } from "react";
import { apiFetch, apiJson, userPath } from "@/lib/api-client";
import type { NotificationKind, NotificationPrefs, PushDevice } from "@/lib/account-types";
import type { Session } from "@/lib/auth-store";
import { deviceName } from "@/lib/device-name";
import { fullTime, shortTime } from "@/lib/format-time";
import { enableNotifications, forgetDevice, notificationPermission, PUSH_PATHS, thisDeviceId } from "@/lib/push";
import { useAction } from "@/lib/use-action";
import { useUserResource } from "@/lib/use-user-resource";

const PREFS_PATH = PUSH_PATHS.preferences;

const KINDS: { key: NotificationKind; label: string; hint: string }[] = [
  { key: "question", label: "Questions for me", hint: "An agent asks, or a work session wants permission." },
  { key: "run_failed", label: "Runs that failed", hint: "A run of one of your agents ended with an error." },
  { key: "message", label: "Every agent message in my inbox", hint: "Off by default: it can be a lot." },
  { key: "email_reminders", label: "Email me when a question waits too long", hint: "After the reminder push." },
];


/** This person's notification devices (turn this one on, remove any) and which kinds notify. */
export function AccountNotifications({ session }: { session: Session }) {
  const devices = useUserResource<PushDevice[]>(session, PUSH_PATHS.devices);
  const prefs = useUserResource<NotificationPrefs>(session, PREFS_PATH);
  const [current, setCurrent] = useState<number | null>(null);
  const enable = useAction();
  const remove = useAction();
  const save = useAction();
  const permission = notificationPermission();

  useEffect(() => {
    let live = true;
    void thisDeviceId(session).then((id) => {
      if (live) setCurrent(id);
    });
    return () => {
      live = false;
    };
  }, [session, devices.data]);

  const listed = devices.data ?? [];
  const onHere = current !== null && listed.some((device) => device.id === current);

  async function turnOn() {
    // The browser's permission prompt comes only now, because the person asked for it.
    await enable.run(async () => {
      setCurrent(await enableNotifications(session, deviceName(navigator.userAgent)));
      await devices.mutate();
    });
  }

  async function removeDevice(device: PushDevice) {
    const done = await remove.run(async () => {
      await apiFetch(session, userPath(session, PUSH_PATHS.device(device.id)), { method: "DELETE" });
      await forgetDevice(session, device.id);
    });
    if (done) {
      if (device.id === current) setCurrent(null);
      await devices.mutate();
    }
  }

  async function setKind(key: NotificationKind, value: boolean) {
    if (!prefs.data) return;
    const next = { ...prefs.data, [key]: value };
    await save.run(() =>
      prefs.mutate(apiJson<NotificationPrefs>(session, userPath(session, PREFS_PATH), { method: "PATCH", body: { [key]: value } }), {
        optimisticData: next,
        rollbackOnError: true,
      }),
    );
  }

  // The browser refused (now or before): the note above says so; the error would repeat it.
  const blocked = permission === "denied";
  const emailAvailable = prefs.data?.email_available ?? false;
  const error = (blocked ? null : enable.error) ?? remove.error ?? save.error ?? devices.errorText ?? prefs.errorText;
  return (
    <section className="account-section" aria-labelledby="account-notifications-title" data-testid="notifications-section">
      <h2 id="account-notifications-title">Notifications</h2>
      <p className="muted small">
        Parley can tell you when an agent needs you, even with no tab open. Questions and permission requests come with Allow / Deny (or
        Yes / No) buttons that answer from the notification.
      </p>
      {permission === "unsupported" ? (
        <p className="muted small" data-testid="notifications-unsupported">
          This browser can&apos;t receive notifications from Parley. On an iPhone or iPad, add Parley to the Home Screen first.
        </p>
      ) : onHere ? (
        <p className="small" data-testid="notifications-on">
          Notifications are on for this device.
        </p>
      ) : blocked ? (
        // Said once: no button that could only fail with the same words.
        <p className="muted small" data-testid="notifications-blocked">
          Notifications are blocked for this site: allow them in the browser&apos;s site settings, then reopen this panel.
        </p>
      ) : (
        <div className="row-actions">
          <button type="button" className="button primary" disabled={enable.busy} onClick={() => void turnOn()} data-testid="enable-notifications">
            {enable.busy ? "Waiting for the browser…" : "Turn on notifications on this device"}
          </button>
        </div>
      )}
      {listed.length > 0 ? (
        <ul className="account-list" aria-label="Devices that get notifications">
          {listed.map((device) => (
            <li key={device.id} className="account-row" data-testid="push-device-row" data-current={device.id === current || undefined}>
              <span className="account-row-main">
                <strong>{device.label || "Unnamed device"}</strong>
                {device.id === current && <span className="chip">This device</span>}
                <span className="muted small" title={fullTime(device.created_at)}>
                  Added {shortTime(device.created_at)}
                  {device.last_sent_at ? ` · last notified ${shortTime(device.last_sent_at)}` : ""}
                </span>
              </span>
              <button
                type="button"
                className="button small danger"
                disabled={remove.busy}
                onClick={() => void removeDevice(device)}
                aria-label={`Remove ${device.label || "device"} from notifications`}
                data-testid="remove-push-device"
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : (
        devices.data && (
          <p className="muted small" data-testid="push-devices-empty">
            No device gets notifications yet.
          </p>
        )
      )}
      {prefs.data && (
        <fieldset className="notify-kinds" disabled={save.busy}>
          <legend>Notify me about</legend>
          {KINDS.map((kind) => {
            // No mail server: nothing would be sent, so the box is neither ticked nor tickable.
            const noEmail = kind.key === "email_reminders" && !emailAvailable;
            return (
              <label key={kind.key}>
                <input
                  type="checkbox"
                  checked={!noEmail && Boolean(prefs.data?.[kind.key])}
                  disabled={noEmail}
                  aria-describedby={noEmail ? "email-unavailable-note" : undefined}
                  onChange={(e) => void setKind(kind.key, e.target.checked)}
                  data-testid={`notify-kind-${kind.key}`}
                />
                <span>
                  {kind.label}
                  <span className="muted small"> — {kind.hint}</span>
                  {noEmail && (
                    <span className="muted small" id="email-unavailable-note" data-testid="email-unavailable">
                      {" "}
                      This server has no mail server configured, so it can&apos;t send email.
                    </span>
                  )}
                </span>
              </label>
            );
          })}
        </fieldset>
      )}
      {error && (
        <p className="error-text" role="alert" data-testid="notifications-error">
          {error}
        </p>
      )}
    </section>
  );
}
