"""Claude Code's own permission rule syntax, parsed and matched against one tool call.

A person writes the rules they already know from Claude Code's settings (`Bash(npm test:*)`,
`Edit(src/**)`, `WebFetch(domain:example.com)`, `mcp__github`), so a rule means here what it
means there. Pure: no database, no file system (paths are normalized as text, never by
following a link), so the decisions that matter can be tested in milliseconds.

Two readings, because a wrong "yes" costs more than a wrong "no":

- An allow rule reads a call strictly. A command holding a shell operator (`;`, `&`, `|`,
  `<`, `>`, a backtick, `$(`, a newline) never matches a prefix or wildcard allow rule, so
  `Bash(npm test:*)` never lets `npm test; rm -rf /` through; only the bare `Bash` rule or an
  exact rule naming that very command does. A path must normalize inside the rule's base
  (`..` cannot climb out); a URL must be plain enough that every parser finds the same host.
- A deny or ask rule reads a call loosely: every sub-command of a compound command is tried,
  quotes and leading `VAR=value`/`sudo`/`env` wrappers dropped; paths compare without case;
  a URL's host is taken both ways it could be read. This is best effort (a shell can spell a
  command in endless ways): a deny rule narrows what an allow rule grants, it is no sandbox.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

import pathspec

from parley.errors import InvalidInput

MAX_PATTERN = 1000

# Built-in tools by family: a rule on `Edit` covers every tool that edits a file and `Read`
# every tool that reads one (as in Claude Code); `Write(...)` and the others only themselves.
EDIT_FAMILY = ("Edit", "Write", "MultiEdit", "NotebookEdit")
READ_FAMILY = ("Read", "Grep", "Glob", "LS", "NotebookRead")
FAMILIES = {"Edit": EDIT_FAMILY, "Read": READ_FAMILY}
PATH_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit", "Read"})
# Claude Code's tool names: a rule spelled with another case would silently never match.
KNOWN_TOOLS = frozenset(
    {
        *EDIT_FAMILY,
        *READ_FAMILY,
        "Bash",
        "BashOutput",
        "KillShell",
        "KillBash",
        "WebFetch",
        "WebSearch",
        "Task",
        "Agent",
        "TodoWrite",
        "ExitPlanMode",
        "SlashCommand",
        "Skill",
    }
)
_KNOWN_BY_CASE = {name.lower(): name for name in KNOWN_TOOLS}

_RULE = re.compile(r"([A-Za-z][A-Za-z0-9_-]*)(?:\((.*)\))?", re.DOTALL)
_MCP = re.compile(r"mcp__([A-Za-z0-9_-]+?)(?:__(\*|[A-Za-z0-9_-]+))?")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")
_LABEL = r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?"
_HOST = re.compile(rf"(?:\*\.)?{_LABEL}(?:\.{_LABEL})*")
# What makes a command more than one simple command (or sends its output somewhere).
_OPERATORS = re.compile(r"[;&|<>`\n\r\x00]|\$\(")
# Where a loose (deny) reading cuts a command into the commands it may run.
_CUTS = re.compile(r"[;&|<>`\n\r\x00()'\"{}]|\$\(")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=\S*\s+")
_WRAPPERS = ("sudo", "env", "exec", "command", "builtin", "nohup", "time", "nice", "xargs")


class Kind(StrEnum):
    any = "any"  # every call of the tool (or of the family)
    exact = "exact"  # Bash(npm test)
    prefix = "prefix"  # Bash(npm test:*)
    wildcard = "wildcard"  # Bash(git * main), Bash(ls *)
    path = "path"  # Edit(src/**)
    domain = "domain"  # WebFetch(domain:example.com)
    mcp_server = "mcp_server"  # mcp__github, mcp__github__*
    mcp_tool = "mcp_tool"  # mcp__github__create_issue


@dataclass(frozen=True, slots=True)
class Pattern:
    text: str
    tool: str  # the tool named ("Bash", "Edit"...), or the server for mcp rules
    kind: Kind
    value: str = ""


def bad(message: str) -> InvalidInput:
    return InvalidInput(
        f"Not a rule Claude Code reads: {message}",
        code="bad_pattern",
        details=[{"field": "pattern"}],
    )


def parse(text: str) -> Pattern:
    """The rule `text` means, or a 422 `bad_pattern` saying what is wrong with it."""
    text = text.strip()
    if not text:
        raise bad("A rule names a tool, e.g. Bash(npm test:*) or Edit(src/**)")
    if len(text) > MAX_PATTERN:
        raise bad(f"A rule is at most {MAX_PATTERN} characters")
    if _CONTROL.search(text):
        raise bad("A rule cannot hold a newline or another control character")
    if text.startswith("mcp__"):
        return _parse_mcp(text)
    found = _RULE.fullmatch(text)
    if found is None:
        raise bad(f"{text!r} is not Tool or Tool(specifier), e.g. Bash(npm test:*)")
    tool, spec = found.group(1), found.group(2)
    known = _KNOWN_BY_CASE.get(tool.lower())
    if known is not None and known != tool:
        raise bad(f"Tool names are case-sensitive: did you mean {known}?")
    if spec is None or spec == "*":
        return Pattern(text, tool, Kind.any)
    if not spec.strip():
        raise bad(f"{tool}() names nothing: write {tool} for every call")
    if tool == "Bash":
        return _parse_command(text, spec)
    if tool in PATH_TOOLS:
        return Pattern(text, tool, Kind.path, _check_path(spec))
    if tool == "WebFetch":
        if not spec.startswith("domain:"):
            raise bad("WebFetch takes domain:<host>, e.g. WebFetch(domain:example.com)")
        host = spec.removeprefix("domain:").strip().lower().rstrip(".")
        if not _HOST.fullmatch(host):
            raise bad(f"{host!r} is not a host name (example.com, or *.example.com)")
        return Pattern(text, tool, Kind.domain, host)
    raise bad(f"{tool} takes no specifier here: write {tool} for every call")


def _parse_mcp(text: str) -> Pattern:
    found = _MCP.fullmatch(text)
    if found is None:
        raise bad("An MCP rule is mcp__server, mcp__server__* or mcp__server__tool")
    server, tool = found.group(1), found.group(2)
    if tool is None or tool == "*":
        return Pattern(text, server, Kind.mcp_server)
    return Pattern(text, server, Kind.mcp_tool, f"mcp__{server}__{tool}")


def _parse_command(text: str, spec: str) -> Pattern:
    spec = spec.strip()
    if spec.endswith(":*"):
        pieces = _pieces(spec[:-2])
        if len(pieces) != 1 or not pieces[0].strip():
            raise bad("A prefix rule is Bash(<command>:*), with no other *")
        return Pattern(text, "Bash", Kind.prefix, pieces[0].strip())
    pieces = _pieces(spec)
    if len(pieces) == 1:
        return Pattern(text, "Bash", Kind.exact, pieces[0])
    return Pattern(text, "Bash", Kind.wildcard, spec)


def _pieces(spec: str) -> list[str]:
    """The literal text between a command rule's wildcards: `*` is one, `\\*` a star and
    `\\\\` a backslash (so any command can be written exactly)."""
    pieces, current, chars = [], [], iter(spec)
    for char in chars:
        if char == "\\":
            following = next(chars, "")
            current.append(following if following in ("*", "\\") else char + following)
        elif char == "*":
            pieces.append("".join(current))
            current = []
        else:
            current.append(char)
    pieces.append("".join(current))
    return pieces


def escape_command(command: str) -> str:
    """A command as an exact rule's text: its stars and backslashes escaped."""
    return command.replace("\\", "\\\\").replace("*", "\\*")


def _check_path(spec: str) -> str:
    spec = spec.strip()
    if spec.startswith(("!", "#")):
        raise bad("A path rule cannot start with ! or # (no negation, no comment)")
    if ".." in spec.split("/"):
        raise bad("A path rule cannot hold '..': write an absolute path as //path")
    if spec.startswith("~") and not spec.startswith("~/"):
        raise bad("Only your own home is ~/ (write //home/<name>/... for another)")
    if spec in ("//", "~/", "/", "./"):
        raise bad("A path rule names files: add ** for everything beneath")
    return spec


# -- matching ---------------------------------------------------------------------------


def matches(
    pattern: Pattern,
    *,
    tool: str,
    tool_input: dict[str, Any],
    cwd: str,
    home: str | None = None,
    strict: bool = True,
) -> bool:
    """Whether the call is one the rule names. `strict` is the allow reading (see the
    module's docstring); False is the deny/ask one."""
    if pattern.kind is Kind.mcp_server:
        return tool == f"mcp__{pattern.tool}" or tool.startswith(f"mcp__{pattern.tool}__")
    if pattern.kind is Kind.mcp_tool:
        return tool == pattern.value
    if tool not in FAMILIES.get(pattern.tool, (pattern.tool,)):
        return False
    if pattern.kind is Kind.any:
        return True
    if pattern.kind is Kind.domain:
        return _domain_matches(pattern.value, tool_input.get("url"), strict)
    if pattern.kind is Kind.path:
        path = _input_path(tool, tool_input)
        return _path_matches(pattern.value, path, cwd=cwd, home=home, strict=strict)
    command = tool_input.get("command")
    if not isinstance(command, str):
        return False
    if strict:
        command = command.strip()
        if pattern.kind is Kind.exact:
            return command == pattern.value
        return not _OPERATORS.search(command) and _command_matches(pattern, command)
    return any(_command_matches(pattern, part, fold=True) for part in _sub_commands(command))


def has_operators(command: str) -> bool:
    return bool(_OPERATORS.search(command))


def _command_matches(pattern: Pattern, command: str, *, fold: bool = False) -> bool:
    """`fold`: the rule's spaces folded as the loose reading folds the command's."""
    value = " ".join(pattern.value.split()) if fold else pattern.value
    if pattern.kind is Kind.exact:
        return command == value
    if pattern.kind is Kind.prefix:
        rest = command.removeprefix(value)
        return rest != command and (not rest or rest[0] in " \t")
    return _wildcard(value).fullmatch(command) is not None


@lru_cache(maxsize=512)
def _wildcard(spec: str) -> re.Pattern[str]:
    """`*` is any run of characters. A rule ending in ` *` with no other star takes the
    bare command too (`ls *` is `ls` and `ls -la`, never `lsof`)."""
    pieces = _pieces(spec)
    if len(pieces) == 2 and spec.endswith(" *") and not spec.endswith("\\ *"):
        return re.compile(re.escape(pieces[0][:-1]) + r"(?:[ \t].*)?", re.DOTALL)
    return re.compile(".*".join(re.escape(piece) for piece in pieces), re.DOTALL)


def _sub_commands(command: str) -> list[str]:
    """Each simple command a compound one may run, as a deny rule reads it: cut at every
    operator, bracket and quote, leading assignments and wrappers dropped, spaces folded."""
    found = [" ".join(command.split())]
    for piece in _CUTS.split(command):
        words = _simple(" ".join(piece.replace("\\", "").split()))
        if words:
            found.append(words)
            head, _, rest = words.partition(" ")
            if "/" in head:  # /bin/rm is rm
                found.append(f"{posixpath.basename(head)} {rest}".strip())
    return found


def _simple(words: str) -> str:
    while True:
        before = words
        assignment = _ASSIGNMENT.match(words)
        if assignment:
            words = words[assignment.end() :]
        head, _, rest = words.partition(" ")
        if posixpath.basename(head) in _WRAPPERS:
            words = rest
        if words == before:
            return words


def _input_path(tool: str, tool_input: dict[str, Any]) -> Any:
    if tool == "NotebookEdit":
        return tool_input.get("notebook_path")
    if tool in ("Grep", "Glob", "LS"):
        return tool_input.get("path", ".")
    return tool_input.get("file_path")


def _normal(path: str) -> str:
    """A path with `.`, `..` and repeated slashes resolved as text (no link is followed)."""
    out = posixpath.normpath(path)
    return "/" + out.lstrip("/") if out.startswith("/") else out


def _path_matches(spec: str, path: Any, *, cwd: str, home: str | None, strict: bool) -> bool:
    if not isinstance(path, str) or not path or "\x00" in path:
        return False
    if path.startswith("~/") or path == "~":
        if home is None:
            return False
        path = home + path[1:]
    full = _normal(posixpath.join(cwd, path))
    if not full.startswith("/"):
        return False  # no absolute cwd: nothing to anchor a relative path to
    if spec.startswith("//"):
        base, glob = "/", spec[1:]
    elif spec.startswith("~/"):
        if home is None:
            return False
        base, glob = home, spec[1:]
    else:
        base, glob = cwd, "/" + spec[2:] if spec.startswith("./") else spec
    base = _normal(base)
    if full == base:
        return False
    inside = base.rstrip("/") + "/"
    if not full.startswith(inside):
        return False
    relative = full[len(inside) :]
    if not strict:
        glob, relative = glob.lower(), relative.lower()
    return _spec(glob).match_file(relative)


@lru_cache(maxsize=512)
def _spec(glob: str) -> pathspec.PathSpec:
    """gitignore's own reading of one line (`**`, anchoring, a trailing `/`)."""
    return pathspec.GitIgnoreSpec.from_lines([glob])


def _domain_matches(domain: str, url: Any, strict: bool) -> bool:
    if not isinstance(url, str):
        return False
    hosts = _hosts(url, strict)
    if domain.startswith("*."):
        return any(h.endswith(domain[1:]) for h in hosts)
    return domain in hosts


def _hosts(url: str, strict: bool) -> set[str]:
    """The host a URL names. Strictly: one only if every parser would find the same one
    (printable ASCII, no backslash, no user part, http or https). Loosely: every host it
    might be read as (a backslash read as a slash, as browsers do, and not)."""
    if strict:
        if not re.fullmatch(r"[!-~]+", url) or "\\" in url:
            return set()
        try:
            parts = urlsplit(url)
        except ValueError:
            return set()
        if parts.scheme not in ("http", "https") or "@" in parts.netloc or not parts.hostname:
            return set()
        return {parts.hostname.rstrip(".")}
    found = set()
    for reading in (url, url.replace("\\", "/")):
        try:
            host = urlsplit(reading.strip()).hostname
        except ValueError:
            continue
        if host:
            found.add(host.rstrip("."))
    return found


# -- the narrowest rule for one call ("Always allow this") ------------------------------


def narrowest(tool: str, tool_input: dict[str, Any]) -> str:
    """The rule that allows this very call and as little else as the syntax can say: the
    exact command, the one file, the host, the MCP tool. A 422 when the call cannot be
    named (a command with a newline: no rule holds one)."""
    if tool.startswith("mcp__"):
        text = tool
    elif tool == "Bash":
        command = tool_input.get("command")
        if not isinstance(command, str) or not command.strip():
            raise bad("This call has no command to make a rule of")
        text = f"Bash({escape_command(command.strip())})"
    elif tool in EDIT_FAMILY or tool in READ_FAMILY:
        path = _input_path(tool, tool_input)
        if not isinstance(path, str) or not path.startswith("/"):
            raise bad("This call has no absolute path to make a rule of")
        escaped = re.sub(r"([*?\[\]\\!#])", r"\\\1", _normal(path))
        family = "Edit" if tool in EDIT_FAMILY else "Read"
        text = f"{family}(/{escaped})"
    elif tool == "WebFetch":
        hosts = _hosts(str(tool_input.get("url", "")), strict=True)
        if not hosts:
            raise bad("This call has no plain http(s) URL to make a rule of")
        text = f"WebFetch(domain:{hosts.pop()})"
    else:
        text = tool
    parse(text)  # what cannot be read back is no rule
    return text
