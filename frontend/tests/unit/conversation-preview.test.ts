import { describe, expect, it } from "vitest";
import { plainPreview } from "@/components/conversation-item";

describe("plainPreview", () => {
  it("drops Markdown marks from a reply's first words", () => {
    expect(plainPreview("Here is the plan:\n- **first** item\n- `code` and [a link](https://x.y)")).toBe(
      "Here is the plan: first item code and a link",
    );
    expect(plainPreview("## Title\n> quoted | cell |")).toBe("Title quoted cell");
  });

  it("leaves plain text alone", () => {
    expect(plainPreview("Added task #1 'buy milk'.")).toBe("Added task #1 'buy milk'.");
  });
});
