import { segments, type Mark } from "@/lib/search-marks";

/** Text with the search's found words in `<mark>`: React elements, the text never parsed as HTML. */
export function MarkedText({ text, marks }: { text: string; marks: readonly Mark[] }) {
  return (
    <>
      {segments(text, marks).map((s, i) =>
        s.marked ? (
          <mark key={i} data-testid="search-mark">
            {s.text}
          </mark>
        ) : (
          <span key={i}>{s.text}</span>
        ),
      )}
    </>
  );
}
