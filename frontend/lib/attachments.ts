import { apiJson, userPath } from "./api-client";
import { errorFromBody } from "./api-error";
import type { Session } from "./auth-store";
import type { JsonOf, Message } from "./types";
import type { paths } from "./api-types";

export type AttachmentLimits = JsonOf<paths["/api/{user_id}/attachment-limits"]["get"]["responses"][200]>;
export type UploadedAttachment = JsonOf<paths["/api/{user_id}/attachments"]["post"]["responses"][201]>;

/** What a message's `meta.attachments` lists of each file sent with it. */
export interface AttachmentMeta {
  id: number;
  name: string;
  kind: "text" | "image";
  size: number;
}

/** The images a browser shows inline; anything else is a download (the API says the same). */
const INLINE_IMAGES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, "")} MB`;
}

/** A message's attachments, keeping only well-formed entries. */
export function attachmentsOf(message: Pick<Message, "meta">): AttachmentMeta[] {
  const raw = message.meta?.attachments;
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((entry: unknown) => {
    if (typeof entry !== "object" || entry === null) return [];
    const { id, name, kind, size } = entry as Record<string, unknown>;
    if (typeof id !== "number" || typeof name !== "string" || (kind !== "text" && kind !== "image")) return [];
    return [{ id, name, kind, size: typeof size === "number" ? size : 0 }];
  });
}

export function attachmentUrl(userId: string, id: number, download = false): string {
  return `/api/${encodeURIComponent(userId)}/attachments/${id}${download ? "?download=true" : ""}`;
}

export function fetchAttachmentLimits(session: Session): Promise<AttachmentLimits> {
  return apiJson<AttachmentLimits>(session, userPath(session, "/attachment-limits"));
}

/**
 * Why a file cannot be attached, before any byte is sent, or null: too large, or an image the
 * model cannot take. The server checks again (and finds the kind by the bytes).
 */
export function refusalOf(file: File, limits: AttachmentLimits | null): string | null {
  if (file.size === 0) return `${file.name || "This file"} is empty.`;
  if (!limits) return null;
  if (file.size > limits.max_bytes) {
    // Sizes that round alike ("5 MB" over a 5 MB cap) are said in bytes.
    const [size, cap] =
      formatSize(file.size) === formatSize(limits.max_bytes)
        ? [`${file.size.toLocaleString("en")} bytes`, `${limits.max_bytes.toLocaleString("en")} bytes`]
        : [formatSize(file.size), formatSize(limits.max_bytes)];
    return `${file.name} is too large (${size}): files can be at most ${cap}.`;
  }
  if (file.type.startsWith("image/") && !limits.images) {
    if (INLINE_IMAGES.has(file.type)) {
      return `The model here (${limits.model}) can't take images, so ${file.name} can't be sent.`;
    }
  }
  return null;
}

export interface Upload {
  done: Promise<UploadedAttachment>;
  abort: () => void;
}

/**
 * Uploads one file as the request body (the API keeps it until a message is sent with it),
 * reporting progress as a fraction. XMLHttpRequest, not fetch: fetch reports no upload progress.
 * Rejects with an ApiError carrying the server's message (too large, unsupported kind).
 */
export function uploadAttachment(session: Session, file: File, name: string, onProgress: (fraction: number) => void): Upload {
  const request = new XMLHttpRequest();
  const done = new Promise<UploadedAttachment>((resolve, reject) => {
    request.open("POST", `/api${userPath(session, "/attachments")}?name=${encodeURIComponent(name)}`);
    request.setRequestHeader("content-type", file.type || "application/octet-stream");
    request.setRequestHeader("accept", "application/json");
    request.withCredentials = true;
    request.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    };
    request.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(request.responseText) as unknown;
      } catch {
        body = null;
      }
      if (request.status === 201 && body !== null) resolve(body as UploadedAttachment);
      else reject(errorFromBody(request.status, body));
    };
    request.onerror = () => reject(errorFromBody(0, { error: { code: "network", message: "The upload failed: the connection broke." } }));
    request.onabort = () => reject(new DOMException("Aborted", "AbortError"));
    request.send(file);
  });
  return { done, abort: () => request.abort() };
}
