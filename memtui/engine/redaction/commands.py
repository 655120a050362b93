"""Passwords given on a command line whose flag does not name them.

``docker login -p X`` (``-p`` is a port for ``docker run``), ``mysql -pX`` (glued: ``mysql
-p db`` *prompts*), ``sshpass -p X``, ``echo X | docker login --password-stdin``: each ``-p``
is judged by the last tool named before it in the same command (``\\`` continuations
followed; ``;``, ``&&``, ``|`` cut).
"""

from __future__ import annotations

import re
from functools import lru_cache

from .entropy import Span, is_placeholder, literal_value_ok, password_value_ok, prose_secret_ok

#: How far before a ``docker login`` an ``echo X |`` feeding ``--password-stdin`` is looked for.
ECHO_LOOKBACK = 512

KIND = "command-line-password"

# The tool a ``-p`` belongs to: the last one named in the command before the flag.
_TOOL = re.compile(
    rb"(?<![\w.-])(?:"
    rb"(?P<login>(?:docker|podman|nerdctl|buildah|skopeo|oras|helm)[ \t]+(?:registry[ \t]+)?login)"
    rb"|(?P<mysql>mysql|mariadb)[a-z_-]{0,12}"
    rb"|(?P<sshpass>sshpass)"
    rb")(?![\w.-])"
)
_BREAKS = (b";", b"&&", b"||", b"|")
#: Literals one of which a tool name holds; without any, a ``-p`` is never a password flag.
_TOOL_WORDS = (b"login", b"mysql", b"mariadb", b"sshpass")

_VALUE = r"(?P<v>\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|[^\s\"'|;&]{1,256})"
#: ``-p X``, ``-pX``, ``--password X``, ``--password=X`` (``docker login``, ``sshpass``).
_SEPARATE = re.compile(r"(?:-p|--password)(?:[ \t]*|=)" + _VALUE)
#: ``-pX`` glued (``mysql``: a space after ``-p`` means "prompt").
_GLUED = re.compile(r"-p" + _VALUE)
_ECHO_BEFORE = re.compile(
    r"(?:echo|printf)(?:[ \t]+-[neE]{1,3})?[ \t]+(?:'%s'[ \t]+|\"%s\"[ \t]+)?"
    + _VALUE
    + r"[ \t]*\|[ \t]*(?:sudo[ \t]+)?$"
)


def _last_command_start(text: str, lo: int, hi: int) -> int:
    """Start of the last command line that begins in ``(lo, hi]`` (a newline not escaped by
    ``\\``), or -1 when every newline there continues the same command."""
    nl = text.rfind("\n", lo, hi)
    while nl != -1:
        if nl == 0 or text[nl - 1] != "\\" and text[nl - 2 : nl] != "\\\r":
            return nl + 1
        nl = text.rfind("\n", lo, nl)
    return -1


@lru_cache(maxsize=4096)
def _argument_ok(value: str, quoted: bool) -> bool:
    """A password argument: not a variable, a placeholder, a flag or a file."""
    if not value or value[0] in "$-<%@" or "$(" in value or "${" in value or "`" in value:
        return False
    if is_placeholder(value):
        return False
    if quoted:
        return password_value_ok(value, True)
    return prose_secret_ok(value) or literal_value_ok(value, True)


def _add(spans: list[Span], m: re.Match[str]) -> None:
    s, e = m.span("v")
    quoted = m.group("v")[0] in "\"'"
    if quoted:
        s, e = s + 1, e - 1
    if _argument_ok(m.string[s:e], quoted):
        spans.append((s, e, KIND))


def find_command_passwords(text: str, lower: bytes) -> list[Span]:
    """Passwords after ``docker login -p``, ``mysql -p``, ``sshpass -p`` and the value
    echoed into ``docker login --password-stdin``."""
    spans: list[Span] = []
    i = lower.find(b"-p")
    if i == -1 or not any(word in lower for word in _TOOL_WORDS):
        return spans
    # The command holding the current flag, scanned forward once (amortised linear): the
    # last tool named in it and the last ``;``/``&&``/``|`` seen, up to ``scanned``.
    scanned = 0
    tool: re.Match[bytes] | None = None
    last_break = -1
    while i != -1:
        flag_at = i - 1 if lower.startswith(b"--password", i - 1) else i
        if flag_at > 0 and lower[flag_at - 1] in b" \t":
            new_start = _last_command_start(text, scanned, flag_at)
            if new_start != -1:
                scanned, tool, last_break = new_start, None, -1
            tools = list(_TOOL.finditer(lower, scanned, flag_at))
            tool = tools[-1] if tools else tool
            last_break = max(last_break, *(lower.rfind(brk, scanned, flag_at) for brk in _BREAKS))
            scanned = flag_at
            if tool is not None and lower.startswith(b"--password-stdin", flag_at):
                if tool.group("login"):
                    _echoed(text, lower, tool.start(), spans)
            elif tool is not None and tool.start() > last_break:
                # ``mysql -pX`` (glued), else ``-p X`` / ``-pX`` / ``--password X``.
                if m := (_GLUED if tool.group("mysql") else _SEPARATE).match(text, flag_at):
                    _add(spans, m)
        i = lower.find(b"-p", i + 2)
    return spans


#: Tools that take a password as a plain argument: ``redis-cli -a X``, ``htpasswd -b ...``.
_ARGUMENT_TOOLS = re.compile(r"(?<![\w.-])(?:redis-cli|htpasswd)(?![\w.-])")
_ARGUMENT = re.compile(r"[ \t]+" + _VALUE)
#: Arguments read after such a tool; htpasswd options that take a value (cost, rounds).
MAX_TOOL_ARGUMENTS = 32
_HTPASSWD_VALUE_FLAGS = ("-C", "-r")


def find_argument_passwords(text: str, lower: bytes) -> list[Span]:
    """``redis-cli -a X``, ``htpasswd -b passwords user X`` and ``htpasswd -nb user X``."""
    spans: list[Span] = []
    for tool in _ARGUMENT_TOOLS.finditer(text):
        args: list[re.Match[str]] = []
        pos = tool.end()
        while len(args) < MAX_TOOL_ARGUMENTS and (arg := _ARGUMENT.match(text, pos)):
            args.append(arg)
            pos = arg.end()
        words = [arg.group("v") for arg in args]
        if tool.group() == "htpasswd":
            at = _htpasswd_password(words)
        else:
            at = words.index("-a") + 1 if "-a" in words else None
        if at is not None and at < len(args):
            _add(spans, args[at])
    return spans


def _htpasswd_password(words: list[str]) -> int | None:
    """Index of the password among htpasswd's arguments when ``-b`` puts it there."""
    flags = ""
    positional: list[int] = []
    takes_value = False
    for k, word in enumerate(words):
        if takes_value:
            takes_value = False
        elif word.startswith("-") and len(word) > 1 and not positional:
            flags += word[1:]
            takes_value = word in _HTPASSWD_VALUE_FLAGS
        else:
            positional.append(k)
    need = 2 if "n" in flags else 3  # -n prints instead of writing a file: no file argument
    return positional[need - 1] if "b" in flags and len(positional) >= need else None


def _echoed(text: str, lower: bytes, tool_at: int, spans: list[Span]) -> None:
    """``echo X | docker login --password-stdin``: the echoed value."""
    lo = max(0, tool_at - ECHO_LOOKBACK)
    at = max(lower.rfind(b"echo", lo, tool_at), lower.rfind(b"printf", lo, tool_at))
    if at != -1 and (m := _ECHO_BEFORE.match(text, at, tool_at)):
        _add(spans, m)

