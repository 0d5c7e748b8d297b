"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { describeError } from "./api-error";
import type { Session } from "./auth-store";
import { fetchAttachmentLimits, refusalOf, uploadAttachment, type AttachmentLimits, type Upload } from "./attachments";

/** A file in the composer: uploading, uploaded (`id`), or refused (`error`). */
export interface PendingFile {
  key: string;
  name: string;
  size: number;
  status: "uploading" | "ready" | "error";
  progress: number;
  id?: number;
  kind?: "text" | "image";
  /** A local preview of an image (an object URL), never sent anywhere. */
  preview?: string;
  error?: string;
}

export interface ComposerAttachments {
  files: PendingFile[];
  limits: AttachmentLimits | null;
  add: (files: File[]) => void;
  remove: (key: string) => void;
  /** The uploaded files, taken out of the composer to be sent; null while one still uploads. */
  take: () => PendingFile[] | null;
  /** Put files back (the message was not sent). */
  restore: (files: PendingFile[]) => void;
}

let counter = 0;

/** A name for a file the browser gave none (a pasted image is "image.png" in Chromium). */
function nameOf(file: File): string {
  if (file.name) return file.name;
  const extension = file.type.startsWith("image/") ? `.${file.type.slice(6).replace("jpeg", "jpg")}` : ".txt";
  return `pasted${extension}`;
}

/** The composer's attachments: checked, uploaded at once (with progress), removable. */
export function useComposerAttachments(session: Session, enabled: boolean): ComposerAttachments {
  const [files, setFiles] = useState<PendingFile[]>([]);
  const [limits, setLimits] = useState<AttachmentLimits | null>(null);
  const uploads = useRef(new Map<string, Upload>());
  const filesRef = useRef(files);
  useEffect(() => {
    filesRef.current = files;
  });

  useEffect(() => {
    if (!enabled) return;
    let live = true;
    fetchAttachmentLimits(session).then(
      (value) => live && setLimits(value),
      () => undefined, // the server still checks every upload
    );
    return () => {
      live = false;
    };
  }, [session, enabled]);

  useEffect(
    () => () => {
      for (const upload of uploads.current.values()) upload.abort();
    },
    [],
  );

  const update = useCallback((key: string, change: Partial<PendingFile>) => {
    setFiles((current) => current.map((f) => (f.key === key ? { ...f, ...change } : f)));
  }, []);

  const add = useCallback(
    (picked: File[]) => {
      const room = (limits?.max_per_message ?? 10) - filesRef.current.filter((f) => f.status !== "error").length;
      const added: PendingFile[] = [];
      picked.forEach((file, index) => {
        counter += 1;
        const key = `file-${counter}`;
        const name = nameOf(file);
        const refusal =
          index >= room ? `${name} wasn't attached: a message takes at most ${limits?.max_per_message ?? 10} files.` : refusalOf(file, limits);
        const preview = !refusal && file.type.startsWith("image/") ? URL.createObjectURL(file) : undefined;
        const entry: PendingFile = { key, name, size: file.size, status: refusal ? "error" : "uploading", progress: 0, preview, error: refusal ?? undefined };
        added.push(entry);
        if (refusal) return;
        const upload = uploadAttachment(session, file, name, (progress) => update(key, { progress }));
        uploads.current.set(key, upload);
        upload.done.then(
          (stored) => update(key, { status: "ready", progress: 1, id: stored.id, kind: stored.kind, name: stored.name }),
          (error: unknown) => {
            if (error instanceof DOMException && error.name === "AbortError") return;
            const reason = describeError(error);
            update(key, { status: "error", error: reason.includes(name) ? reason : `${name} wasn't attached: ${reason}` });
          },
        );
        void upload.done.finally(() => uploads.current.delete(key)).catch(() => undefined);
      });
      setFiles((current) => [...current, ...added]);
    },
    [session, limits, update],
  );

  const remove = useCallback((key: string) => {
    uploads.current.get(key)?.abort();
    setFiles((current) => {
      const gone = current.find((f) => f.key === key);
      if (gone?.preview) URL.revokeObjectURL(gone.preview);
      return current.filter((f) => f.key !== key);
    });
  }, []);

  const take = useCallback((): PendingFile[] | null => {
    const current = filesRef.current;
    if (current.some((f) => f.status === "uploading")) return null;
    const ready = current.filter((f) => f.status === "ready");
    filesRef.current = [];
    setFiles([]);
    return ready;
  }, []);

  const restore = useCallback((back: PendingFile[]) => {
    if (back.length === 0) return;
    setFiles((current) => [...back, ...current]);
  }, []);

  return { files, limits, add, remove, take, restore };
}
