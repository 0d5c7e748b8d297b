"use client";

import type { NewPushDevice, VapidKey } from "./account-types";
import { apiJson, userPath } from "./api-client";
import type { Session } from "./auth-store";

/**
 * Web Push on this device: the service worker (`public/sw.js`), the browser's subscription, and
 * which of the person's devices it is. The service worker reads the device id kept here (Cache
 * Storage is the one store both can reach) to name the device when it answers a question.
 */

const SW_URL = "/sw.js";
const DEVICE_CACHE = "parley-push";
const DEVICE_KEY = "/__parley/push-device";

/** This browser can show Parley's notifications (a service worker, Push, Notifications). */
export function pushSupported(): boolean {
  return (
    typeof window !== "undefined" &&
    window.isSecureContext &&
    "serviceWorker" in navigator &&
    "PushManager" in window &&
    "Notification" in window
  );
}

export function notificationPermission(): NotificationPermission | "unsupported" {
  return pushSupported() ? Notification.permission : "unsupported";
}

/** Registers the service worker (once per load; the browser keeps one per origin). */
export async function registerServiceWorker(): Promise<ServiceWorkerRegistration | null> {
  if (typeof navigator === "undefined" || !("serviceWorker" in navigator) || !window.isSecureContext) return null;
  try {
    return await navigator.serviceWorker.register(SW_URL, { scope: "/" });
  } catch {
    return null;
  }
}

/** The VAPID public key (base64url) as the bytes `pushManager.subscribe` takes. */
export function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(base64url.length / 4) * 4, "=");
  const raw = atob(base64);
  const bytes = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i += 1) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

interface StoredDevice {
  id: number;
  userId: string;
}

export async function storedDevice(): Promise<StoredDevice | null> {
  try {
    const found = await (await caches.open(DEVICE_CACHE)).match(DEVICE_KEY);
    return found ? ((await found.json()) as StoredDevice) : null;
  } catch {
    return null;
  }
}

async function storeDevice(device: StoredDevice | null): Promise<void> {
  try {
    const cache = await caches.open(DEVICE_CACHE);
    if (device === null) await cache.delete(DEVICE_KEY);
    else await cache.put(DEVICE_KEY, new Response(JSON.stringify(device), { headers: { "content-type": "application/json" } }));
  } catch {
    // Cache Storage unavailable: answers from notifications just don't name the device.
  }
}

/** Why notifications could not be turned on, in the person's words. */
export class PushSetupError extends Error {}

export const PUSH_PATHS = {
  vapidKey: "/push/vapid-public-key",
  devices: "/push-subscriptions",
  device: (id: number) => `/push-subscriptions/${id}`,
  preferences: "/notification-preferences",
  mute: (conversationId: number) => `/conversations/${conversationId}/mute`,
};

/**
 * Turns notifications on for this device: the browser's permission prompt (only now, because the
 * person asked), the push subscription, and the server's record of it.
 */
export async function enableNotifications(session: Session, label: string): Promise<number> {
  if (!pushSupported()) throw new PushSetupError("This browser can't receive notifications from Parley.");
  const permission = await Notification.requestPermission();
  if (permission !== "granted") {
    throw new PushSetupError(
      permission === "denied"
        ? "Notifications are blocked for this site. Allow them in the browser's site settings, then try again."
        : "Notifications were not turned on (the browser's prompt was closed).",
    );
  }
  const registration = (await registerServiceWorker()) ?? (await navigator.serviceWorker.ready);
  await navigator.serviceWorker.ready;
  const { public_key: publicKey } = await apiJson<VapidKey>(session, PUSH_PATHS.vapidKey);
  let subscription = await registration.pushManager.getSubscription();
  if (!subscription) {
    try {
      subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) });
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new PushSetupError(`The browser's push service refused this device (${detail}).`);
    }
  }
  const created = await apiJson<NewPushDevice>(session, userPath(session, PUSH_PATHS.devices), {
    method: "POST",
    body: { ...subscription.toJSON(), label },
  });
  await storeDevice({ id: created.id, userId: session.userId });
  return created.id;
}

/** This device's subscription id for this person, if notifications are on here. */
export async function thisDeviceId(session: Session): Promise<number | null> {
  const device = await storedDevice();
  return device && device.userId === session.userId ? device.id : null;
}

/** After a device was removed: if it was this one, the browser's subscription goes too. */
export async function forgetDevice(session: Session, id: number): Promise<void> {
  if ((await thisDeviceId(session)) !== id) return;
  await storeDevice(null);
  try {
    const registration = await navigator.serviceWorker.getRegistration("/");
    const subscription = await registration?.pushManager.getSubscription();
    await subscription?.unsubscribe();
  } catch {
    // Already gone: the server no longer sends to it either way.
  }
}
