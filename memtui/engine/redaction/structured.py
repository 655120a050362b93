"""Secrets that live in a structure: PEM blocks, URLs, curl options, credential files,
Kubernetes Secrets, webhook URLs (each detector run only when a literal is in the text)."""

from __future__ import annotations

import re
from collections.abc import Callable

from .entropy import (
    PLACEHOLDER,
    Span,
    is_placeholder,
    literal_value_ok,
    looks_random,
    password_value_ok,
    provider_token_ok,
    shannon_entropy,
)

#: Longest PEM body searched for its END line.
PEM_MAX_BODY = 100_000
#: Longest body redacted after a BEGIN line that has no END line.
PEM_UNTERMINATED_MAX = 16_384
#: A PEM body must hold a base64 run this long to be a real key.
PEM_MIN_BASE64_RUN = 20
#: How far a curl command (with ``\\`` continuations) is followed to find ``-u``.
CURL_MAX_COMMAND = 8_192
#: Kubernetes Secret data values shorter than this are not redacted (``YmFyCg==``).
K8S_MIN_VALUE = 10
#: How far around an AWS access key a matching secret key is looked for.
AWS_SECRET_WINDOW = 300
AWS_SECRET_ENTROPY_MIN = 4.0

_PEM_BEGIN = re.compile(r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/=]{" + str(PEM_MIN_BASE64_RUN) + ",}")
_PEM_EDGE = re.compile(r"(?:\s|\\[nr])+")


def find_pem_blocks(text: str, lower: bytes) -> list[Span]:
    """Private key bodies between BEGIN and END lines (the armour lines are kept); a block
    without an END line (a truncated paste) up to the next blank line."""
    spans: list[Span] = []
    next_end = -2  # cached position of the next "-----END" (monotonic search)
    next_blank = -2
    next_begin = -2
    for m in _PEM_BEGIN.finditer(text):
        body_start = m.end()
        if next_end != -1 and next_end < body_start:
            next_end = text.find("-----END", body_start)
        if next_begin < body_start + 1 and next_begin != -1:
            next_begin = text.find("-----BEGIN", body_start)
        end = next_end
        if end != -1 and end - body_start <= PEM_MAX_BODY and (next_begin == -1 or end < next_begin):
            body = text[body_start:end]
            if not _BASE64_RUN.search(body) or PLACEHOLDER in body:
                continue
            s, e = _trim_edges(text, body_start, end)
            if e > s:
                spans.append((s, e, "pem-private-key"))
            continue
        # Unterminated: redact to the next blank line or BEGIN, bounded.
        if next_blank != -1 and next_blank < body_start:
            next_blank = text.find("\n\n", body_start)
        stop = min(c for c in (next_blank, next_begin, len(text), body_start + PEM_UNTERMINATED_MAX)
                   if c != -1)
        s, e = _trim_edges(text, body_start, stop)
        if e > s and not text.startswith(PLACEHOLDER, s):
            spans.append((s, e, "pem-private-key"))
    return spans


def _trim_edges(text: str, s: int, e: int) -> tuple[int, int]:
    if m := _PEM_EDGE.match(text, s, e):
        s = m.end()
    while e > s:
        if text[e - 1].isspace():
            e -= 1
        elif text[e - 2 : e] in ("\\n", "\\r") and e - 2 >= s:
            e -= 2
        else:
            break
    return s, e


# --- URLs ------------------------------------------------------------------------------

#: Longest password taken from a URL's userinfo.
URL_PASSWORD_MAX = 256
#: A user name alone in a URL (``https://<key>@host``) is a key when it is this long and
#: random (Sentry DSN keys are 32 hex digits).
URL_KEY_MIN_LEN = 16

# ``//user:password@host``: the password may hold ``/ ? # @`` (people do not percent-encode
# them), so it runs to the *last* ``@`` before whitespace or a quote that a host follows.
# The user name, then ``:`` (a password follows) or ``@`` (the user alone: maybe a key).
_URL_USER = re.compile(r"//(?P<user>[^\s:/?#@\"'<>\[\]{}|\\^`]{0,128})(?P<sep>[:@])")
_URL_PASSWORD_RUN = re.compile(r"[^\s\"'<>`]{1," + str(URL_PASSWORD_MAX) + "}")
_HOST_CHAR = re.compile(r"[\w\[.-]")
_URL_KEY_USER = re.compile(r"[\w.~-]{" + str(URL_KEY_MIN_LEN) + r",128}")
_SCHEME_BEFORE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,30}:$")
_PORT_THEN_PATH = re.compile(r"\d{1,5}[/?#]")
_HEX32 = re.compile(r"[0-9a-fA-F]{32}")


def _url_key_ok(user: str) -> bool:
    """A user name that is really a key: 32 hex digits (a Sentry DSN) or a random run."""
    if is_placeholder(user):
        return False
    if _HEX32.fullmatch(user):
        return shannon_entropy(user) >= HEX_KEY_ENTROPY_MIN
    return looks_random(user, strict=True)


def find_url_passwords(text: str, lower: bytes) -> list[Span]:
    """Secrets in a URL's userinfo: ``scheme://user:password@host`` (user and host kept), and
    a key used as the user (``https://<key>@o1.ingest.sentry.io/2``, a Sentry DSN)."""
    spans: list[Span] = []
    i = text.find("://") if b"@" in lower else -1
    while i != -1:
        nxt = i + 3
        m = _URL_USER.match(text, i + 1)
        at = -1
        if m and m.group("sep") == ":":
            at = _password_end(text, m.end())
            if at == -1:
                m = None  # host:port, no password
        if m and _SCHEME_BEFORE.search(text, max(0, i - 31), i + 1):
            user = m.group("user")
            if at != -1:
                ps = m.end()
                pw = text[ps:at]
                # ``host:8080/path/@scope`` is a port and a path, not a password.
                if not _PORT_THEN_PATH.match(pw) and not is_placeholder(pw) and not pw.startswith("$"):
                    spans.append((ps, at, "url-password"))
                    if len(user) >= URL_KEY_MIN_LEN and _url_key_ok(user):
                        spans.append((m.start("user"), m.end("user"), _url_key_kind(text, at + 1)))
                    nxt = at + 1
            elif m.group("sep") == "@" and _HOST_CHAR.match(text, m.end()):
                if _URL_KEY_USER.fullmatch(user) and _url_key_ok(user):
                    spans.append((m.start("user"), m.end("user"), _url_key_kind(text, m.end())))
                    nxt = m.end()
        i = text.find("://", nxt)
    return spans


def _password_end(text: str, start: int) -> int:
    """Where the password starting at ``start`` ends: the last ``@`` followed by a host
    before whitespace, a quote or another ``://`` (-1 when there is none)."""
    limit = min(len(text), start + URL_PASSWORD_MAX)
    other = text.find("://", start, limit)
    if other != -1:
        limit = other
    if text.find("@", start, limit) == -1:
        return -1  # host:port/path
    if not (run := _URL_PASSWORD_RUN.match(text, start, limit)):
        return -1
    at = text.rfind("@", start, run.end())
    while at > start:
        if _HOST_CHAR.match(text, at + 1):
            return at
        at = text.rfind("@", start, at)
    return -1


def _url_key_kind(text: str, host_at: int) -> str:
    host = text[host_at : host_at + 128].split("/", 1)[0].lower()
    return "sentry-dsn" if "sentry" in host else "url-credential"


# --- secrets in URL paths and query strings ---------------------------------------------

#: Azure SAS signatures are base64 HMAC-SHA256 (44 characters); shorter ones are not taken.
SAS_SIGNATURE_MIN_LEN = 32
SAS_ENTROPY_MIN = 4.0
HEX_KEY_ENTROPY_MIN = 3.0

_PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]+={0,2}")


def _sas_ok(value: str) -> bool:
    """An Azure SAS signature: long and random base64 once percent-decoded."""
    decoded = _PERCENT.sub(lambda p: chr(int(p.group(1), 16)), value)
    return len(decoded) >= SAS_SIGNATURE_MIN_LEN and _BASE64.fullmatch(decoded) is not None and (
        shannon_entropy(decoded) >= SAS_ENTROPY_MIN)


def _url_part_ok(value: str) -> bool:
    return provider_token_ok(value.replace("/", ""), 3.0)


# --- curl -u user:password -------------------------------------------------------------

_CURL_USER = re.compile(r"(?:(?<=\s)-u|--user)(?:[ \t]+|=)(?P<arg>(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'])+)")


def find_curl_credentials(text: str, lower: bytes) -> list[Span]:
    """``curl -u user:password`` / ``--user``: the password (or a key used as the user)."""
    spans: list[Span] = []
    i = lower.find(b"curl")
    while i != -1:
        end = _command_end(text, i)
        for m in _CURL_USER.finditer(text, i, end):
            spans.extend(_userinfo_spans(text, m.start("arg"), m.end("arg")))
        i = lower.find(b"curl", max(end, i + 4))
    return spans


def _command_end(text: str, start: int) -> int:
    """End of a shell command starting at ``start``, following ``\\`` line continuations."""
    limit = min(len(text), start + CURL_MAX_COMMAND)
    nl = text.find("\n", start, limit)
    while nl != -1 and (text[nl - 1] == "\\" or text[nl - 2 : nl] == "\\\r"):
        nl = text.find("\n", nl + 1, limit)
    return limit if nl == -1 else nl


def _userinfo_spans(text: str, s: int, e: int) -> list[Span]:
    """Split a ``user:password`` argument (quotes allowed around either part)."""
    # Map characters of the unquoted argument back to text offsets.
    chars: list[int] = [k for k in range(s, e) if text[k] not in "\"'"]
    plain = "".join(text[k] for k in chars)
    if (colon := plain.find(":")) == -1:
        return []
    user, pw = plain[:colon], plain[colon + 1 :]
    if pw:
        if is_placeholder(pw) or pw.startswith("$") or is_placeholder(user + ":" + pw):
            return []
        weak = not password_value_ok(pw, quoted=True) and not (len(pw) >= 8 and looks_random(pw))
        if weak and (len(pw) < 8 or pw.isalpha()):
            return []
        return [(chars[colon + 1], chars[-1] + 1, "curl-credentials")]
    if user and not is_placeholder(user) and looks_random(user):
        return [(chars[0], chars[colon - 1] + 1, "curl-credentials")]
    return []


# --- credential files and headers -------------------------------------------------------

#: A netrc entry, ``machine <host>``, then its ``login``/``account``/``port``/``password``
#: pairs on the same line or the next ones.
_NETRC_MACHINE = re.compile(r"(?<![\w.-])machine[ \t]+\S{1,253}")
_NETRC_PAIR = re.compile(r"\s{1,64}(?P<k>login|account|port|password)[ \t]+(?P<v>\S{1,256})")
#: A ``.pgpass`` line, ``host:port:database:user:password``: found from its ``:port:`` and
#: the database's first character (not a digit: ``10:02:03`` is a time).
_PGPASS_PORT = re.compile(r":(?:\d{1,5}|\*):(?=[^\d\s:])")
_PGPASS_LINE = re.compile(
    r"[ \t]*[\w.*-]{1,253}:(?:\d{1,5}|\*):[^:\s]{1,63}:[^:\s]{1,63}:(?P<v>\S{1,256}?)[ \t]*\r?"
)
#: A ``Cookie:`` / ``Set-Cookie:`` header, then its ``name=value`` pairs.
_COOKIE_HEADER = re.compile(r"(?i)(?<![\w-])(?:set-)?cookie[ \t]*:[ \t]*")
_COOKIE_PAIR = re.compile(r"(?P<n>[^=;\s\"']{1,128})=\"?(?P<v>[^;\s\"]{1,4096})\"?(?:;[ \t]*)?")


def _pair_values(text: str, head: re.Pattern[str], pair: re.Pattern[str], kind: str,
                 ok: Callable[[re.Match[str]], bool]) -> list[Span]:
    """The values of the ``pair`` matches that follow each ``head`` match and pass ``ok``."""
    spans: list[Span] = []
    for m in head.finditer(text):
        pos = m.end()
        while p := pair.match(text, pos):
            pos = p.end()
            if ok(p):
                spans.append((p.start("v"), p.end("v"), kind))
    return spans


def find_netrc_passwords(text: str, lower: bytes) -> list[Span]:
    """The password of a netrc entry: ``machine host login ci password X``."""
    return _pair_values(text, _NETRC_MACHINE, _NETRC_PAIR, "netrc-password", lambda p: (
        p.group("k") == "password" and literal_value_ok(p.group("v"), True)))


def find_pgpass_passwords(text: str, lower: bytes) -> list[Span]:
    """The password field of ``.pgpass`` lines (``db.internal:5432:app:appuser:X``)."""
    spans: list[Span] = []
    done = -1
    for port in _PGPASS_PORT.finditer(text):
        if port.start() < done:
            continue
        start = text.rfind("\n", 0, port.start()) + 1
        done = text.find("\n", port.end())
        done = len(text) if done == -1 else done
        line = _PGPASS_LINE.fullmatch(text, start, done)
        if line and literal_value_ok(line.group("v"), True):
            spans.append((line.start("v"), line.end("v"), "pgpass-password"))
    return spans


def find_cookie_values(text: str, lower: bytes) -> list[Span]:
    """Values of ``Cookie:`` and ``Set-Cookie:`` headers that are literals, not words
    (``session=X`` goes, ``theme=dark`` and ``Path=/`` stay)."""
    return _pair_values(text, _COOKIE_HEADER, _COOKIE_PAIR, "cookie-value",
                        lambda p: literal_value_ok(p.group("v"), False))


# --- Kubernetes Secret manifests ---------------------------------------------------------

_K8S_KIND = re.compile(r"(?im)^[ \t]*kind:[ \t]*[\"']?secret[\"']?[ \t]*$")
_K8S_DATA = re.compile(r"(?m)^(?P<ind>[ \t]*)(?P<sec>data|stringData):[ \t]*$")
_K8S_ENTRY = re.compile(r"(?P<ind>[ \t]*)(?P<key>[\w.-]+):[ \t]*(?P<val>.*)")
_B64_VALUE = re.compile(r"[A-Za-z0-9+/]+={0,2}")


def find_k8s_secret_data(text: str, lower: bytes) -> list[Span]:
    """Values under ``data:``/``stringData:`` in a ``kind: Secret`` manifest."""
    spans: list[Span] = []
    if b"secret" not in lower:
        return spans
    # The YAML documents: the text cut at each ``---`` line.
    separators = re.finditer(r"(?m)^---[ \t]*$", text)
    cuts = [0, *(end for m in separators for end in m.span()), len(text)]
    for doc_start, doc_end in zip(cuts[::2], cuts[1::2], strict=True):
        if not _K8S_KIND.search(text, doc_start, doc_end):
            continue
        for dm in _K8S_DATA.finditer(text, doc_start, doc_end):
            base = len(dm.group("ind").expandtabs(4))
            string_data = dm.group("sec") == "stringData"
            pos = dm.end() + 1
            block_indent: int | None = None
            while pos < doc_end:
                nl = text.find("\n", pos, doc_end)
                line_end = doc_end if nl == -1 else nl
                line = text[pos:line_end]
                stripped = line.strip()
                ind = len(line) - len(line.lstrip(" \t"))
                width = len(line[:ind].expandtabs(4))
                if stripped and width <= base:
                    break
                if block_indent is not None and stripped and width > block_indent:
                    _k8s_value(text, pos + ind, line_end, string_data, spans)
                elif stripped and not stripped.startswith("#"):
                    m = _K8S_ENTRY.fullmatch(line)
                    block_indent = None
                    if m:
                        val = m.group("val").strip()
                        if val in ("|", ">", "|-", ">-", "|+", ">+"):
                            block_indent = width
                        elif val:
                            vs = pos + m.start("val")
                            _k8s_value(text, vs, vs + len(m.group("val").rstrip()), string_data, spans)
                pos = line_end + 1
    return spans


def _k8s_value(text: str, s: int, e: int, string_data: bool, spans: list[Span]) -> None:
    if e > s and text[s] in "\"'" and text[e - 1] == text[s]:
        s, e = s + 1, e - 1
    value = text[s:e]
    if len(value) < K8S_MIN_VALUE or is_placeholder(value) or "{{" in value:
        return
    ok = password_value_ok(value, quoted=True) if string_data else (
        _B64_VALUE.fullmatch(value) is not None and shannon_entropy(value) >= 2.5)
    if ok:
        spans.append((s, e, "kubernetes-secret"))


# --- secrets a literal marks: SAS signatures, FlyV1 tokens, webhook and API URLs ---------

#: (literal, kind, pattern, check of its group ``s``): compiled (and cached by ``re``) once a
#: text holds the literal.
_MARKED: tuple[tuple[bytes, str, str, Callable[[str], bool]], ...] = (
    # Azure SAS signatures (``...&sig=<base64>`` in a URL or a connection string).
    (b"sig=", "azure-sas-signature", r"(?<![\w%.-])sig=(?P<s>[A-Za-z0-9%+/=_-]{1,512})", _sas_ok),
    # ``FlyV1 fm2_...`` authorization values: one macaroon, ``fm2_`` + base64, or several
    # comma-separated (any length once the scheme names them).
    (b"flyv1", "flyio-token", r"(?i)FlyV1[ \t]+(?P<s>fm[12][ar]?_[A-Za-z0-9+/]{20,4096}={0,3}"
     r"(?:,fm[12][ar]?_[A-Za-z0-9+/]{20,4096}={0,3}){0,16})",
     lambda value: provider_token_ok(value[4:], 3.0)),
    (b"hooks.slack.com", "slack-webhook",
     r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9_/+-]{20,250})",
     _url_part_ok),
    (b"webhook.office.com", "teams-webhook", r"webhook\.office\.com/webhookb2/"
     r"(?P<s>[\w-]{36}@[\w-]{36}/IncomingWebhook/[\w-]{32}/[\w-]{36})", _url_part_ok),
    (b"discord", "discord-webhook",
     r"discord(?:app)?\.com/api/webhooks/(?P<s>\d{17,20}/[\w-]{60,80})", _url_part_ok),
    (b"softlayer.com", "softlayer-api-key",
     r"(?i)api\.softlayer\.com/soap/v3(?:\.1)?/(?P<s>[a-z0-9]{64})", _url_part_ok),
)


def find_marked_secrets(text: str, lower: bytes) -> list[Span]:
    """Azure SAS signatures, ``FlyV1`` tokens, the secret parts of webhook URLs (Slack,
    Teams, Discord) and key-bearing API URLs."""
    spans: list[Span] = []
    for needle, kind, pattern, ok in _MARKED:
        i = lower.find(needle)
        if i == -1:
            continue
        for m in re.compile(pattern).finditer(text, max(0, i - 40)):
            if ok(m.group("s")):
                spans.append((m.start("s"), m.end("s"), kind))
    return spans


# --- AWS secret access keys next to an access key id ------------------------------------

_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")


def find_aws_secret_near(text: str, key_spans: list[Span]) -> list[Span]:
    """40-character AWS secret keys within a few lines of an AWS access key id."""
    spans = []
    for s, e, _kind in key_spans:
        for m in _AWS_SECRET.finditer(text, max(0, s - AWS_SECRET_WINDOW), e + AWS_SECRET_WINDOW):
            v = m.group()
            if shannon_entropy(v) >= AWS_SECRET_ENTROPY_MIN and any(c.isdigit() for c in v):
                spans.append((m.start(), m.end(), "aws-secret-key"))
    return spans

