import { describe, expect, it } from "vitest";
import { segments } from "@/lib/search-marks";

describe("segments", () => {
  it("cuts the text at the marks", () => {
    expect(segments("call the plumber now", [{ start: 9, end: 16 }])).toEqual([
      { text: "call the ", marked: false },
      { text: "plumber", marked: true },
      { text: " now", marked: false },
    ]);
  });

  it("counts an emoji as one, as the API does", () => {
    expect(segments("🙂 plumber", [{ start: 2, end: 9 }])).toEqual([
      { text: "🙂 ", marked: false },
      { text: "plumber", marked: true },
    ]);
  });

  it("never throws on marks out of range, overlapping or unordered", () => {
    const got = segments("abcdef", [
      { start: 4, end: 99 },
      { start: 0, end: 2 },
      { start: 1, end: 3 },
      { start: -5, end: -1 },
    ]);
    expect(got.map((s) => s.text).join("")).toBe("abcdef");
    expect(got.filter((s) => s.marked).map((s) => s.text)).toEqual(["ab", "c", "ef"]);
  });

  it("keeps markup in the text as text", () => {
    expect(segments("<b>x</b>", [{ start: 3, end: 4 }])).toEqual([
      { text: "<b>", marked: false },
      { text: "x", marked: true },
      { text: "</b>", marked: false },
    ]);
  });
});
