"""Passwords given on a command line whose flag does not name them.

``--password X`` is found by the keyword detector (the flag names the secret). These flags
do not: ``docker login -p X`` (``-p`` is a port for ``docker run``), ``mysql -pX`` /
``mysql -p'X'`` (the value is glued to ``-p``; ``mysql -p db`` *prompts* and ``db`` is the
database), ``sshpass -p X``, and ``echo X | docker login --password-stdin``. Each command is
found by its literal name in the lower-cased bytes, and only its own line (with ``\\``
continuations) is parsed.
"""

from __future__ import annotations

import re

from .entropy import is_placeholder, password_value_ok, prose_secret_ok

#: How far a command (with ``\\`` continuations) is followed to find its flags.
COMMAND_MAX = 4_096

KIND = "command-line-password"

# ``docker login``, ``podman login``, ``helm registry login``...: ``-p X`` / ``--password X``.
_LOGIN_COMMANDS = (b"docker", b"podman", b"nerdctl", b"buildah", b"skopeo", b"oras", b"helm")
#: The tool name before a ``login`` (searched in the few bytes before each ``login``).
_LOGIN_TOOL = re.compile(
    rb"(?<![\w-])(?:docker|podman|nerdctl|buildah|skopeo|oras|helm)[ \t]+(?:registry[ \t]+)?$"
)
_LOGIN_TOOL_SPAN = 40
_LOGIN_FLAG = re.compile(
    r"(?<=[ \t])(?:-p|--password)(?:[ \t]+|=)(?P<v>\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|[^\s\"'|;&]{1,256})"
)
_STDIN_FLAG = re.compile(r"(?<=[ \t])--password-stdin\b")
_ECHO_BEFORE = re.compile(
    r"(?:echo|printf)(?:[ \t]+-[neE]{1,3})?[ \t]+(?:'%s'[ \t]+|\"%s\"[ \t]+)?"
    r"(?P<v>\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|[^\s\"'|;&]{1,256})[ \t]*\|[ \t]*(?:sudo[ \t]+)?$"
)

# ``mysql -pX``: the password glued to ``-p`` (a space after ``-p`` means "prompt").
_MYSQL_COMMANDS = (b"mysql", b"mariadb")
_GLUED_P = re.compile(r"(?<=[ \t])-p(?P<v>\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|[^\s\"'|;&]{1,256})")

_SSHPASS = re.compile(
    r"sshpass[ \t]+-p[ \t]*(?P<v>\"[^\"\n]{1,256}\"|'[^'\n]{1,256}'|[^\s\"'|;&]{1,256})"
)


def _command_end(text: str, start: int) -> int:
    """End of the shell command starting at ``start``, following ``\\`` continuations."""
    limit = min(len(text), start + COMMAND_MAX)
    pos = start
    while True:
        nl = text.find("\n", pos, limit)
        if nl == -1:
            return limit
        if text[nl - 1] == "\\" or (text[nl - 1] == "\r" and text[nl - 2] == "\\"):
            pos = nl + 1
            continue
        return nl


def _value_span(m: re.Match[str]) -> tuple[int, int, bool]:
    s, e = m.span("v")
    if m.group("v")[0] in "\"'":
        return s + 1, e - 1, True
    return s, e, False


def _argument_ok(value: str, quoted: bool) -> bool:
    """A password argument: not a variable, a placeholder, a flag or a file."""
    if not value or value[0] in "$-<%@" or "$(" in value or "${" in value or "`" in value:
        return False
    if is_placeholder(value):
        return False
    if quoted:
        return password_value_ok(value, True)
    return prose_secret_ok(value) or password_value_ok(value, True) and not value.isalpha()


def _add(spans: list[tuple[int, int, str]], m: re.Match[str]) -> None:
    s, e, quoted = _value_span(m)
    if _argument_ok(m.string[s:e], quoted):
        spans.append((s, e, KIND))


def _login_command(text: str, start: int, pos: int, spans: list[tuple[int, int, str]]) -> int:
    """Flags of the ``docker login`` whose tool name starts at ``start``; return its end."""
    end = _command_end(text, pos)
    for m in _LOGIN_FLAG.finditer(text, pos, end):
        _add(spans, m)
    if _STDIN_FLAG.search(text, pos, end):
        line_start = text.rfind("\n", 0, start) + 1
        em = _ECHO_BEFORE.search(text, max(line_start, start - COMMAND_MAX), start)
        if em:
            _add(spans, em)
    return end


def find_command_passwords(text: str, lower: bytes) -> list[tuple[int, int, str]]:
    """Passwords after ``docker login -p``, ``mysql -p``, ``sshpass -p`` and the value
    echoed into ``docker login --password-stdin``."""
    spans: list[tuple[int, int, str]] = []
    if b"login" in lower and any(c in lower for c in _LOGIN_COMMANDS):
        i = lower.find(b"login")
        while i != -1:
            after = i + 5
            tool = None
            if i > 0 and lower[i - 1] in b" \t" and (after == len(lower) or lower[after] in b" \t\r\n\\"):
                tool = _LOGIN_TOOL.search(lower, max(0, i - _LOGIN_TOOL_SPAN), i)
            if tool:
                after = _login_command(text, tool.start(), after, spans)
            i = lower.find(b"login", after)
    for name in _MYSQL_COMMANDS:
        i = lower.find(name)
        while i != -1:
            end = _command_end(text, i)
            for m in _GLUED_P.finditer(text, i, end):
                _add(spans, m)
            i = lower.find(name, max(end, i + len(name)))
    if b"sshpass" in lower:
        for m in _SSHPASS.finditer(text):
            _add(spans, m)
    return spans
