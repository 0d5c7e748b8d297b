"""What a search's text means, and where it shows in what was found. Pure: no database.

The text is read the way people type into a search box (the `websearch_to_tsquery` syntax
the API had before): words, all of which must match, each as the start of a word ("plumb"
finds "plumber"); "a quoted phrase", its words in that order; `-word` excludes; `a or b`
either. It becomes a `to_tsquery('simple', ...)` expression built here from words that are
letters and digits only, each quoted, so no character of the input is ever an operator.

Marks are computed here too, over the text the database returned: ranges of code points
(`[start, end)`) of the words that matched, for the UI to wrap in `<mark>` itself; never
markup of ours inside the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache

_WORD = re.compile(r"[^\W_]+")
# A quoted phrase (unclosed: to the end), or a run of anything but space and quotes.
_TOKEN = re.compile(r'"([^"]*)"?|([^\s"]+)')
SNIPPET_CHARS = 160
SNIPPET_LEAD = 40  # characters kept before the first mark
LONGEST = 64
SCAN_LIKE = 4_000
SIMILAR = 0.6  # pg_trgm's word_similarity_threshold, which `<%` uses: the same bar here


@dataclass(frozen=True)
class Term:
    words: tuple[str, ...]
    phrase: bool = False  # quoted: its words exactly, in order
    negated: bool = False


@dataclass
class Query:
    """Groups that must all match; the terms of one group are alternatives (`or`)."""

    groups: list[list[Term]] = field(default_factory=list)
    excluded: list[Term] = field(default_factory=list)

    @property
    def words(self) -> list[str]:
        """Every word that must or may match, once, in order: what the marks look for."""
        seen: dict[str, None] = {}
        for group in self.groups:
            for term in group:
                seen.update(dict.fromkeys(term.words))
        return list(seen)

    def tsquery(self) -> str:
        """The `to_tsquery('simple', ...)` text: empty when nothing is left to find."""
        ands = [
            "(" + " | ".join(_term_query(t) for t in group) + ")" for group in self.groups if group
        ]
        if not ands:
            return ""
        return " & ".join(ands + [f"!({_term_query(t)})" for t in self.excluded])

    def excluded_tsquery(self) -> str:
        return " | ".join(_term_query(t) for t in self.excluded)

    def similar_words(self) -> list[str]:
        """For typo tolerance: each word the message must hold something like (or-groups
        and phrases are loosened to their words; what is typed wrong is seldom exact). Words
        of one or two letters have too few trigrams to be told apart from others: left out."""
        return [w for w in self.words if len(w) >= 3][:8]


def _term_query(term: Term) -> str:
    quoted = [f"'{w}'" for w in term.words]
    if not term.phrase and not term.negated:
        quoted[-1] += ":*"
    return " <-> ".join(quoted)


def words_of(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def parse(text: str) -> Query:
    query = Query()
    join_next = False
    for match in _TOKEN.finditer(text):
        phrase, token = match.group(1), match.group(2)
        if phrase is None and token.lower() == "or" and query.groups:
            join_next = True
            continue
        negated = phrase is None and token.startswith("-")
        words = tuple(words_of(phrase if phrase is not None else token))
        if not words:
            continue
        term = Term(words=words, phrase=phrase is not None, negated=negated)
        if negated:
            query.excluded.append(term)
        elif join_next:
            query.groups[-1].append(term)
        else:
            query.groups.append([term])
        join_next = False
    return query


# -- marks ------------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def _trigrams(word: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """The word's trigrams as pg_trgm makes them (two spaces before, one after): in order,
    and as a set."""
    padded = f"  {word} "
    ordered = tuple(padded[i : i + 3] for i in range(len(padded) - 2))
    return ordered, frozenset(ordered)


def is_like(token: str, word: str) -> bool:
    """`token` is much like `word` the way pg_trgm's `word <% token` measures it: the best
    Jaccard similarity of the word's trigrams and any continuous run of the token's. A run
    over twice the word's trigrams cannot reach the bar, so none longer is tried (and a
    token of over LONGEST letters, a hash or a blob, is never marked as like a word)."""
    if len(token) > LONGEST:
        return False
    wanted = _trigrams(word)[1]
    theirs, their_set = _trigrams(token)
    if len(wanted & their_set) < SIMILAR * len(wanted):
        return False  # no run of them can share more: most tokens end here
    for i in range(len(theirs)):
        extent: set[str] = set()
        for trigram in theirs[i : i + 2 * len(wanted)]:
            extent.add(trigram)
            if len(extent & wanted) / len(extent | wanted) >= SIMILAR:
                return True
    return False


def _matches(token: str, words: list[str], similar: bool) -> bool:
    token = token.lower()
    return any(token.startswith(w) or (similar and is_like(token, w)) for w in words)


@lru_cache(maxsize=256)
def _starting(words: tuple[str, ...]) -> re.Pattern[str]:
    """A word of the text that starts with one of `words` (the scan at C speed)."""
    either = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<![^\W_])(?:{either})[^\W_]*", re.IGNORECASE)


def _found(text: str, words: list[str], similar: bool, end: int) -> Iterator[re.Match[str]]:
    if not words:
        return iter(())
    if not similar:
        return _starting(tuple(words)).finditer(text, 0, end)
    return (m for m in _WORD.finditer(text, 0, end) if _matches(m.group(), words, similar))


def marks(text: str, words: list[str], *, similar: bool = False) -> list[tuple[int, int]]:
    """The ranges of `text`'s words that start with one of `words` (or, `similar`, are like
    one), in order."""
    return [(m.start(), m.end()) for m in _found(text, words, similar, len(text))]


def substring_marks(text: str, needle: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(re.escape(needle), text, re.IGNORECASE)]


def merged(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def snippet(
    text: str, words: list[str], *, similar: bool = False
) -> tuple[str, list[tuple[int, int]]]:
    """A one-line passage of `text` around its first match, at most SNIPPET_CHARS long and
    cut between words, and the marks within it (offsets into the passage, "…" included).
    Only the passage's words are marked, so a long message costs the scan to its first match
    and no more; likeness (trigrams, slow in Python) is looked for in the first SCAN_LIKE
    characters only, after which the passage is the message's start."""
    line = " ".join(text.split())
    first = next(_found(line, words, similar, SCAN_LIKE if similar else len(line)), None)
    start = 0
    if first is not None and first.start() > SNIPPET_LEAD:
        space = line.find(" ", first.start() - SNIPPET_LEAD)
        start = space + 1 if 0 <= space < first.start() else first.start()
    end = min(len(line), start + SNIPPET_CHARS)
    if end < len(line) and (space := line.rfind(" ", start, end)) > start:
        end = space
    lead = "…" if start > 0 else ""
    tail = "…" if end < len(line) else ""
    passage = line[start:end]
    return lead + passage + tail, [
        (s + len(lead), e + len(lead)) for s, e in marks(passage, words, similar=similar)
    ]
