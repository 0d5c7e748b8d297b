import { createDecipheriv, createECDH, hkdfSync, randomBytes, type ECDH } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { BrowserContext, Page, Worker } from "@playwright/test";

/** What the service worker receives (the agreed push payload, version 1). */
export interface PushPayload {
  v: number;
  kind: string;
  tag: string;
  title: string;
  body: string;
  url: string;
  user_id: string;
  question_id?: number;
  actions: { action: string; title: string }[];
  answer?: Record<string, unknown>;
}

interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  payload: PushPayload;
}

/** A subscription's keys as the browser holds them: the test keeps the private half to decrypt. */
export class PushKeys {
  readonly ecdh: ECDH = createECDH("prime256v1");
  readonly auth = randomBytes(16);
  constructor() {
    this.ecdh.generateKeys();
  }
  get p256dh(): string {
    return this.ecdh.getPublicKey().toString("base64url");
  }
  get authSecret(): string {
    return this.auth.toString("base64url");
  }

  /** RFC 8291 (aes128gcm, RFC 8188) decryption of one push message body. */
  decrypt(body: Buffer): Buffer {
    const salt = body.subarray(0, 16);
    const idLength = body.readUInt8(20);
    const serverKey = body.subarray(21, 21 + idLength);
    const ciphertext = body.subarray(21 + idLength);
    const shared = this.ecdh.computeSecret(serverKey);
    const keyInfo = Buffer.concat([Buffer.from("WebPush: info\0"), this.ecdh.getPublicKey(), serverKey]);
    const ikm = Buffer.from(hkdfSync("sha256", shared, this.auth, keyInfo, 32));
    const cek = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: aes128gcm\0"), 16));
    const nonce = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: nonce\0"), 12));
    const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
    decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
    const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
    // The last record ends with a 0x02 delimiter, then zero padding.
    let end = padded.length - 1;
    while (end >= 0 && padded[end] === 0) end -= 1;
    if (padded[end] !== 2) throw new Error("push record without its final delimiter");
    return padded.subarray(0, end);
  }
}

/**
 * A browser push service on loopback, in the place of FCM/Mozilla's: it takes the server's
 * encrypted pushes (answering 201), decrypts each with the test's keys and keeps them in order.
 */
export class FakePushService {
  private server: Server | null = null;
  readonly keys = new PushKeys();
  readonly received: Received[] = [];
  private waiters: (() => void)[] = [];
  port = 0;

  get host(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** A new endpoint on this service (one per test: a device of its own). */
  endpoint(): string {
    return `http://${this.host}/push/${randomBytes(8).toString("hex")}`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        try {
          const payload = JSON.parse(this.keys.decrypt(Buffer.concat(chunks)).toString("utf8")) as PushPayload;
          this.received.push({ path: req.url ?? "", headers: req.headers, payload });
          res.writeHead(201).end();
        } catch (error) {
          res.writeHead(400).end(String(error));
        }
        for (const wake of this.waiters.splice(0)) wake();
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** Waits (bounded) for a push to `endpoint` that `match` accepts. */
  async next(endpoint: string, match: (payload: PushPayload) => boolean, timeoutMs = 30_000): Promise<PushPayload> {
    const path = new URL(endpoint).pathname;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find((r) => r.path === path && match(r.payload));
      if (found) return found.payload;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no push to ${path} matched in ${timeoutMs} ms; got ${JSON.stringify(this.received.map((r) => r.payload))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Every push to `endpoint` so far. */
  to(endpoint: string): PushPayload[] {
    const path = new URL(endpoint).pathname;
    return this.received.filter((r) => r.path === path).map((r) => r.payload);
  }
}

/**
 * Stands in for the browser's push service subscription: in a Playwright context Chromium refuses
 * `pushManager.subscribe` ("Registration failed - permission denied", even with notifications
 * granted), and Debian's Chromium has no push service to reach anyway. So `subscribe` returns a
 * subscription at the fake service with the test's keys; the real service worker, permission and
 * server calls all still run.
 */
export async function fakeSubscription(page: Page, endpoint: string, keys: PushKeys): Promise<void> {
  await page.addInitScript(
    ({ endpoint, p256dh, auth }) => {
      const state = { subscribed: false };
      const subscription = {
        endpoint,
        expirationTime: null,
        options: { userVisibleOnly: true },
        getKey: () => null,
        toJSON: () => ({ endpoint, expirationTime: null, keys: { p256dh, auth } }),
        unsubscribe: async () => {
          state.subscribed = false;
          return true;
        },
      };
      PushManager.prototype.subscribe = async function subscribe() {
        state.subscribed = true;
        return subscription as unknown as PushSubscription;
      };
      PushManager.prototype.getSubscription = async function getSubscription() {
        return state.subscribed ? (subscription as unknown as PushSubscription) : null;
      };
    },
    { endpoint, p256dh: keys.p256dh, auth: keys.authSecret },
  );
}

/** The app's service worker, once it runs. */
export async function serviceWorker(context: BrowserContext): Promise<Worker> {
  const running = context.serviceWorkers().find((w) => w.url().endsWith("/sw.js"));
  return running ?? (await context.waitForEvent("serviceworker", { predicate: (w) => w.url().endsWith("/sw.js") }));
}

/**
 * Delivers a push message to the page's service worker through the DevTools protocol
 * (`ServiceWorker.deliverPushMessage`): the browser dispatches a real `push` event.
 */
export async function deliverPush(page: Page, payload: PushPayload): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  const origin = new URL(page.url()).origin;
  const registrations = new Set<string>();
  const activated = new Set<string>();
  // The registration of the app's scope, once its worker is activated (a push to a registration
  // whose worker is still installing is not delivered).
  const ready = new Promise<string>((resolve) => {
    const check = () => {
      for (const id of registrations) if (activated.has(id)) resolve(id);
    };
    cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations: updated }) => {
      for (const r of updated) if (r.scopeURL === `${origin}/` && !r.isDeleted) registrations.add(r.registrationId);
      check();
    });
    cdp.on("ServiceWorker.workerVersionUpdated", ({ versions }) => {
      for (const v of versions) if (v.status === "activated") activated.add(v.registrationId);
      check();
    });
  });
  await cdp.send("ServiceWorker.enable");
  const registrationId = await ready;
  await cdp.send("ServiceWorker.deliverPushMessage", { origin, registrationId, data: JSON.stringify(payload) });
  await cdp.detach();
}

/** The parts of a service worker's global scope these helpers use (the DOM lib has no worker types). */
interface WorkerScope {
  registration: ServiceWorkerRegistration;
  dispatchEvent(event: Event): boolean;
  NotificationEvent: new (type: string, init: { notification: Notification; action: string }) => Event;
}

export interface ShownNotification {
  title: string;
  body: string;
  tag: string;
  actions: { action: string; title: string }[];
}

/** The notifications the service worker shows now (with `tag`, or all). */
export function shownNotifications(worker: Worker, tag?: string): Promise<ShownNotification[]> {
  return worker.evaluate(async (tag) => {
    const scope = self as unknown as WorkerScope;
    const shown = await scope.registration.getNotifications(tag ? { tag } : undefined);
    return shown.map((n: Notification) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      actions: ((n as unknown as { actions?: { action: string; title: string }[] }).actions ?? []).map((a) => ({
        action: a.action,
        title: a.title,
      })),
    }));
  }, tag);
}

/**
 * Presses a notification (an action button, or its body when `action` is "") the way the browser
 * does: the DevTools protocol cannot click a notification, so this dispatches a `notificationclick`
 * NotificationEvent for the shown notification to the worker's own handler.
 */
export async function clickNotification(worker: Worker, tag: string, action: string): Promise<void> {
  await worker.evaluate(
    async ({ tag, action }) => {
      const scope = self as unknown as WorkerScope;
      const [notification] = await scope.registration.getNotifications({ tag });
      if (!notification) throw new Error(`no notification with tag ${tag}`);
      scope.dispatchEvent(new scope.NotificationEvent("notificationclick", { notification, action }));
    },
    { tag, action },
  );
}
