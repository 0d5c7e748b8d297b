import { describe, expect, it } from "vitest";
import { attachmentsOf, attachmentUrl, formatSize, refusalOf, type AttachmentLimits } from "@/lib/attachments";

const LIMITS: AttachmentLimits = { max_bytes: 5 * 1024 * 1024, images: false, model: "offline", max_per_message: 10 };

function file(name: string, size: number, type: string): File {
  return new File([new Uint8Array(size)], name, { type });
}

describe("attachments", () => {
  it("reads only well-formed entries of a message's meta", () => {
    const meta = {
      attachments: [
        { id: 1, name: "a.txt", kind: "text", size: 3 },
        { id: "2", name: "b.txt", kind: "text" },
        { id: 3, name: "c.svg", kind: "svg" },
        null,
        { id: 4, name: "d.png", kind: "image" },
      ],
    };
    expect(attachmentsOf({ meta })).toEqual([
      { id: 1, name: "a.txt", kind: "text", size: 3 },
      { id: 4, name: "d.png", kind: "image", size: 0 },
    ]);
    expect(attachmentsOf({ meta: null })).toEqual([]);
    expect(attachmentsOf({ meta: { attachments: "x" } })).toEqual([]);
  });

  it("says sizes plainly, and in bytes when the file and the cap would read alike", () => {
    expect(formatSize(43)).toBe("43 B");
    expect(formatSize(2048)).toBe("2 KB");
    expect(formatSize(6 * 1024 * 1024)).toBe("6 MB");
    expect(refusalOf(file("big.log", LIMITS.max_bytes + 1, "text/plain"), LIMITS)).toBe(
      "big.log is too large (5,242,881 bytes): files can be at most 5,242,880 bytes.",
    );
    expect(refusalOf(file("ok.txt", LIMITS.max_bytes, "text/plain"), LIMITS)).toBeNull();
  });

  it("refuses an image before uploading it when the model takes none", () => {
    expect(refusalOf(file("cat.png", 10, "image/png"), LIMITS)).toBe("The model here (offline) can't take images, so cat.png can't be sent.");
    expect(refusalOf(file("cat.png", 10, "image/png"), { ...LIMITS, images: true })).toBeNull();
    expect(refusalOf(file("empty.txt", 0, "text/plain"), LIMITS)).toBe("empty.txt is empty.");
  });

  it("builds the owner's download address with the user id escaped", () => {
    expect(attachmentUrl("a/b", 7)).toBe("/api/a%2Fb/attachments/7");
    expect(attachmentUrl("alice", 7, true)).toBe("/api/alice/attachments/7?download=true");
  });
});
