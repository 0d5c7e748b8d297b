"""Claude Code's rule syntax as a person writes it, read the way an attacker would hope it
is not: every allow below that must not happen is a door someone will try."""

from __future__ import annotations

from typing import Any

import pytest

from parley.approvals.patterns import Kind, matches, narrowest, parse
from parley.errors import InvalidInput

pytestmark = pytest.mark.unit

CWD = "/work/ann/project"
HOME = "/home/ann"


def allows(rule: str, tool: str, **tool_input: Any) -> bool:
    return matches(parse(rule), tool=tool, tool_input=tool_input, cwd=CWD, home=HOME)


def denies(rule: str, tool: str, **tool_input: Any) -> bool:
    found = parse(rule)
    return matches(found, tool=tool, tool_input=tool_input, cwd=CWD, home=HOME, strict=False)


@pytest.mark.parametrize(
    ("rule", "kind"),
    [
        ("Bash", Kind.any),
        ("Bash(*)", Kind.any),
        ("Bash(npm test)", Kind.exact),
        ("Bash(npm test:*)", Kind.prefix),
        ("Bash(git * main)", Kind.wildcard),
        ("Edit(src/**)", Kind.path),
        ("Read(//etc/**)", Kind.path),
        ("WebFetch(domain:example.com)", Kind.domain),
        ("mcp__github", Kind.mcp_server),
        ("mcp__github__*", Kind.mcp_server),
        ("mcp__github__create_issue", Kind.mcp_tool),
        ("  Read  ", Kind.any),
    ],
)
def test_each_form_of_claude_codes_syntax_parses(rule: str, kind: Kind) -> None:
    assert parse(rule).kind is kind


@pytest.mark.parametrize(
    ("rule", "says"),
    [
        ("", "names a tool"),
        ("bash(rm:*)", "did you mean Bash"),  # a deny that would never match
        ("EDIT(src/**)", "did you mean Edit"),
        ("Bash()", "names nothing"),
        ("Bash(rm\n-rf)", "newline"),
        ("Bash(a*b:*)", "no other *"),
        ("Bash(:*)", "no other *"),
        ("Edit(../other/**)", "'..'"),
        ("Edit(src/../../x)", "'..'"),
        ("Edit(!secret)", "no negation"),
        ("Edit(#x)", "no negation"),
        ("Read(~root/x)", "own home"),
        ("WebFetch(example.com)", "domain:"),
        ("WebFetch(domain:exa mple.com)", "not a host"),
        ("WebFetch(domain:)", "not a host"),
        ("Grep(x)", "no specifier"),
        ("mcp__x(y)", "mcp__server"),
        ("mcp__", "mcp__server"),
        ("Bash(x", "Tool or Tool(specifier)"),
        ("1Bash", "Tool or Tool(specifier)"),
        ("B" * 1001, "at most 1000"),
    ],
)
def test_a_malformed_rule_is_refused_with_what_is_wrong(rule: str, says: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        parse(rule)
    assert refused.value.code == "bad_pattern" and refused.value.status == 422
    assert says in refused.value.message


def test_a_prefix_rule_takes_the_command_and_its_arguments_only() -> None:
    rule = "Bash(npm test:*)"
    assert allows(rule, "Bash", command="npm test")
    assert allows(rule, "Bash", command="npm test -- --watch")
    assert not allows(rule, "Bash", command="npm testx")
    assert not allows(rule, "Bash", command="npm tes")
    assert not allows(rule, "Read", command="npm test")
    assert not allows(rule, "Bash", command=["npm", "test"])


@pytest.mark.parametrize(
    "command",
    [
        "npm test; rm -rf /",
        "npm test && curl x",
        "npm test || curl x",
        "npm test | sh",
        "npm test & curl x",
        "npm test $(curl x)",
        "npm test `curl x`",
        "npm test\nrm -rf /",
        "npm test\rrm -rf /",
        "npm test > ~/.bashrc",
        "npm test < /etc/shadow",
        "npm test <(curl x)",
        "npm test\x00; rm",
    ],
)
def test_no_shell_operator_rides_on_a_prefix_or_wildcard_allow(command: str) -> None:
    assert not allows("Bash(npm test:*)", "Bash", command=command)
    assert not allows("Bash(npm *)", "Bash", command=command)
    assert not allows("Bash(npm test *)", "Bash", command=command)
    # The bare rule allows every command: that is what it says.
    assert allows("Bash", "Bash", command=command)


def test_an_exact_rule_is_that_command_and_no_other() -> None:
    assert allows("Bash(npm test)", "Bash", command="npm test")
    assert allows("Bash(npm test)", "Bash", command="  npm test ")
    assert not allows("Bash(npm test)", "Bash", command="npm test --x")
    assert not allows("Bash(npm test)", "Bash", command="npm test; rm -rf /")
    compound = "echo ran >> count.txt; echo counted"
    assert allows(f"Bash({compound})", "Bash", command=compound)  # exactly what was allowed


def test_wildcards_follow_claude_codes_reading() -> None:
    assert allows("Bash(git * main)", "Bash", command="git push origin main")
    assert not allows("Bash(git * main)", "Bash", command="git push origin main2")
    # A trailing " *" (the only star) takes the bare command too, with a word boundary.
    assert allows("Bash(ls *)", "Bash", command="ls")
    assert allows("Bash(ls *)", "Bash", command="ls -la")
    assert not allows("Bash(ls *)", "Bash", command="lsof")
    # An escaped star is a star.
    assert allows(r"Bash(ls \*.py)", "Bash", command="ls *.py")
    assert not allows(r"Bash(ls \*.py)", "Bash", command="ls a.py")


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf /",
        "echo hi && rm -rf /",
        "echo hi;rm x",
        "true | xargs rm x",
        "sudo rm -rf /",
        "FOO=1 rm x",
        "/bin/rm x",
        'bash -c "rm x"',
        "$(rm x)",
        "`rm x`",
        "r\\m x",
        "rm    x",
        "echo\nrm x",
    ],
)
def test_a_deny_rule_finds_the_command_inside_a_compound_one(command: str) -> None:
    assert denies("Bash(rm:*)", "Bash", command=command)
    assert not allows("Bash(echo:*)", "Bash", command=command)


def test_a_deny_rule_leaves_other_commands_alone() -> None:
    assert not denies("Bash(rm:*)", "Bash", command="rmdir x")
    assert not denies("Bash(rm:*)", "Bash", command="echo firm")


def test_path_rules_are_relative_to_the_sessions_folder() -> None:
    assert allows("Edit(src/**)", "Edit", file_path=f"{CWD}/src/a/b.py")
    assert allows("Edit(src/**)", "Write", file_path="src/a.py")  # relative to cwd
    assert allows("Edit(/src/**)", "MultiEdit", file_path=f"{CWD}/src/a.py")
    assert allows("Edit(./src/**)", "NotebookEdit", notebook_path=f"{CWD}/src/a.ipynb")
    assert not allows("Edit(src/**)", "Edit", file_path=f"{CWD}/lib/src/a.py")  # anchored
    assert allows("Edit(*.md)", "Edit", file_path=f"{CWD}/docs/deep/a.md")  # any depth
    assert not allows("Edit(src/**)", "Read", file_path=f"{CWD}/src/a.py")
    # Write(...) is the Write tool only; Edit(...) every tool that edits.
    assert allows("Write(notes/**)", "Write", file_path=f"{CWD}/notes/a.md")
    assert not allows("Write(notes/**)", "Edit", file_path=f"{CWD}/notes/a.md")
    assert allows("Read(src/**)", "Grep", path=f"{CWD}/src/x", pattern="TODO")


@pytest.mark.parametrize(
    "path",
    [
        f"{CWD}/src/../../other/src/a.py",
        f"{CWD}/src/../../../etc/passwd",
        "src/../../x",
        "../project2/src/a.py",
        f"{CWD}2/src/a.py",  # a sibling whose name starts the same
        f"{CWD}/SRC/a.py",  # another file on a case-sensitive system
        f"{CWD}/src",  # the folder itself is not beneath it
        "",
        f"{CWD}/src/a\x00.py",
        None,
        42,
    ],
)
def test_no_path_climbs_out_of_an_allow_rule(path: Any) -> None:
    assert not allows("Edit(src/**)", "Edit", file_path=path)


def test_paths_are_normalized_as_text_inside_too() -> None:
    assert allows("Edit(src/**)", "Edit", file_path=f"{CWD}/lib/../src//a.py")
    assert allows("Edit(src/**)", "Edit", file_path=f"{CWD}/./src/./a.py")


def test_absolute_and_home_rules() -> None:
    assert allows("Read(//etc/hosts)", "Read", file_path="/etc/hosts")
    assert allows("Read(//etc/hosts)", "Read", file_path="//etc/hosts")
    assert not allows("Read(//etc/hosts)", "Read", file_path="/etc/hosts2")
    assert allows("Read(~/.config/**)", "Read", file_path=f"{HOME}/.config/a")
    assert allows("Read(~/.config/**)", "Read", file_path="~/.config/a")
    assert not allows("Read(~/.config/**)", "Read", file_path="/home/bob/.config/a")
    nobody = matches(
        parse("Read(~/.config/**)"), tool="Read", tool_input={"file_path": "/x"}, cwd=CWD
    )
    assert nobody is False  # no home known: a home rule matches nothing


def test_a_deny_path_rule_ignores_case() -> None:
    assert denies("Read(.env)", "Read", file_path=f"{CWD}/.ENV")
    assert denies("Read(secrets/**)", "Read", file_path=f"{CWD}/Secrets/key")
    assert not allows("Read(.env)", "Read", file_path=f"{CWD}/.ENV")


def test_domain_rules_name_one_host() -> None:
    rule = "WebFetch(domain:example.com)"
    assert allows(rule, "WebFetch", url="https://example.com/a")
    assert allows(rule, "WebFetch", url="http://EXAMPLE.com./a")
    assert allows("WebFetch(domain:*.example.com)", "WebFetch", url="https://a.b.example.com/")
    assert not allows("WebFetch(domain:*.example.com)", "WebFetch", url="https://example.com/")
    for url in (
        "https://example.com.evil.com/",
        "https://evilexample.com/",
        "https://evil.com\\@example.com/",
        "https://user@example.com/",
        "https://evil.com#@example.com",
        "ftp://example.com/",
        "https://exämple.com/",
        "https://example.com /",
        "//example.com/",
        None,
    ):
        assert not allows(rule, "WebFetch", url=url), url
    # A deny reads a URL every way it could be read.
    assert denies("WebFetch(domain:evil.com)", "WebFetch", url="https://evil.com\\@example.com/")


def test_mcp_rules() -> None:
    assert allows("mcp__github", "mcp__github__create_issue")
    assert allows("mcp__github__*", "mcp__github__create_issue")
    assert allows("mcp__github__create_issue", "mcp__github__create_issue")
    assert not allows("mcp__github__create_issue", "mcp__github__delete_repo")
    assert not allows("mcp__github", "mcp__githubx__create_issue")
    assert not allows("mcp__github", "Bash", command="x")


@pytest.mark.parametrize(
    ("tool", "tool_input", "rule"),
    [
        ("Bash", {"command": "npm test"}, "Bash(npm test)"),
        ("Bash", {"command": "ls *.py; echo \\*"}, r"Bash(ls \*.py; echo \\\*)"),
        ("Write", {"file_path": "/w/notes/a.md"}, "Edit(//w/notes/a.md)"),
        ("Edit", {"file_path": "/w/[x]*.md"}, r"Edit(//w/\[x\]\*.md)"),
        ("Read", {"file_path": "/w/a"}, "Read(//w/a)"),
        ("WebFetch", {"url": "https://Example.com/x"}, "WebFetch(domain:example.com)"),
        ("mcp__github__create_issue", {"title": "x"}, "mcp__github__create_issue"),
        ("KillShell", {"shell_id": "1"}, "KillShell"),
    ],
)
def test_always_allow_makes_the_narrowest_rule_and_it_allows_that_call(
    tool: str, tool_input: dict[str, Any], rule: str
) -> None:
    assert narrowest(tool, tool_input) == rule
    assert matches(parse(rule), tool=tool, tool_input=tool_input, cwd="/w")


def test_the_narrowest_command_rule_allows_nothing_more() -> None:
    rule = narrowest("Bash", {"command": "ls *.py"})
    assert not allows(rule, "Bash", command="ls a.py")
    assert not allows(rule, "Bash", command="ls *.py; rm x")


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Bash", {"command": "echo a\nrm x"}),
        ("Bash", {}),
        ("Write", {"file_path": "relative.md"}),
        ("WebFetch", {"url": "https://evil.com\\@example.com/"}),
    ],
)
def test_a_call_no_rule_can_name_is_refused(tool: str, tool_input: dict[str, Any]) -> None:
    with pytest.raises(InvalidInput):
        narrowest(tool, tool_input)
