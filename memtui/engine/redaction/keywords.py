"""Keyword assignments: ``password = "..."``, ``"api_key": "..."``, ``--token abc``...

Each secret-ish word found is widened to its whole name (``db_password``, ``X-Api-Key``),
whose words decide whether it names a secret (``token`` yes, ``max_tokens`` / ``csrf_token``
no); the value after the operator is redacted (the name stays) when it looks like a literal
secret: not a placeholder or template, not code, random enough for the kind of name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache, lru_cache

from .entropy import (
    UUID,
    Span,
    is_placeholder,
    is_uuid,
    literal_value_ok,
    looks_random,
    password_value_ok,
    prose_secret_ok,
    provider_token_ok,
    shannon_entropy,
    token_value_ok,
)

#: Longest name (before or after the keyword hit) considered part of the key.
MAX_KEY_SIDE = 64
#: Longest value parsed after an operator.
MAX_VALUE = 4096
#: A rejected value longer than this without spaces is skipped over as a whole, so that a
#: pathological line (``token=token=token=...``) is parsed once, not once per keyword.
SKIP_REJECTED_OVER = 256
#: Header credentials (after ``Bearer``/``Basic``/``Authorization:``) need this length.
HEADER_VALUE_MIN_LEN = 8
HEADER_ENTROPY_MIN = 2.5

PASSWORD = "password"
TOKEN = "token"
SECRET = "secret"  # a name ending in "secret": like a password when the value is quoted
QUALIFIED_KEY = "qualified-key"  # <provider>_key: strict, but a quoted UUID counts
WEAK = "weak"
#: The kinds ``classify_name`` gives a name that on its own names a secret.
SECRET_NAME_KINDS = (PASSWORD, TOKEN, SECRET)

_KEYWORDS = (b"pass", b"pw", b"secret", b"token", b"cred", b"key", b"auth", b"jwt")
#: After a secret-ish word: the rest of its name, then an operator, or a space before a
#: quoted value (``password "value"``), or an XML ``key="..." value="..."`` pair. Runs on
#: the lower-cased bytes; possessive quantifiers keep it from backtracking.
_AFTER_KEYWORD = rb"""[a-z0-9_.~-]{0,64}+)
    (?:
        (?P<kq>\\?["'`])?\]?(?:\[\d{0,6}\])?
        (?:[ \t]*:[ \t]*(?:string|str|number)(?=[ \t]*=))?
        (?:[ \t]+(?:string|str)(?=[ \t]*=))?
        [ \t]{0,16}+
        (?P<op>:::=|::=|:=|\?=|\.=|\|\|=|===|!==|==|!=|=>|<-|=|:|,|>)
        [ \t]{0,16}+
        (?![a-z_$][a-z0-9_$]*+(?:[(\[]|\.[a-z_$]))  # code: os.environ[..], get_token(), self.x
        (?!(?:none|null|nil|true|false|undefined|str|int|bool|string|number|any)\b)
      | (?P<sq>\\?["'`])?[ \t]++(?=["'`])
      | (?P<attr>\\?["'])(?=[ \t]++value[ \t]*=)
      | (?=[ \t'])(?P<verb>                             # prose: "password for db01 is"
            (?:'s)?
            (?:[ \t]++(?:for|of|on|in|at|to)(?:[ \t]++[a-z0-9_.@/-]{1,40}+){1,3}?)?
            [ \t]++(?:is|was|are|were|to)
            (?:[ \t]++(?:now|still|currently|set[ \t]++to|changed[ \t]++to))?
            (?:[ \t]*+:)?[ \t]++
            (?![a-z]{1,64}+(?:[.,;:!?)]|[ \t]++[a-z(]|$))   # a plain word, then more words
        )
    )"""


@cache
def keyword_re(keyword: bytes) -> re.Pattern[bytes]:
    """The regex of one keyword, starting with its literal (fast prefix search in ``re``);
    compiled when a text first holds the keyword (each takes milliseconds)."""
    return re.compile(rb"(?P<n>" + keyword + _AFTER_KEYWORD, re.X)


#: ``--token VALUE`` / ``-password VALUE``: a command-line flag and its argument. The
#: name is matched in possessive segments (linear time); the keyword is checked after.
FLAG_RE = re.compile(
    rb"--?(?P<n>[a-z0-9_.]++(?:-[a-z0-9_.]++){0,8}+)[ \t]++(?=[^ \t\r\n-])"
)
_HAS_KEYWORD = re.compile(rb"pass|pw|secret|token|cred|key|auth|jwt")
#: ``"literal" == password``: a quoted value compared with a secret name.
REVERSE_RE = re.compile(
    rb"""["'][ \t]{0,8}(?:===?|!==?)[ \t]{0,8}[$@]?[a-z0-9_.-]{0,64}?"""
    + rb"(?:pass|pw|secret|token|cred|key|auth)"
)

# Words after the secret word that make the name describe the secret, not hold it.
METADATA_WORDS = frozenset(
    """
    name names id ids type types url urls uri uris endpoint endpoints path paths file files
    filename filepath dir directory env var vars variable variables length len size count
    limit limits max min num number prompt label labels hint help message messages msg text
    title error errors placeholder field fields description desc format pattern regex
    header headers column columns policy policies expiry expires expiration expire ttl
    timeout lifetime age version versions kind mode enabled enable disabled required provider
    providers store manager location ref refs reference source helper validator validation
    strength reset hash hashed hashes digest index idx offset start end event events pressed
    selector map mapping list set dict cache table schema class method handler callback func
    function fn request response req res input output param params arg args option options
    cmd command script prefix suffix separator delimiter char chars charset alphabet rotation
    interval period duration seconds secs ms minutes hours days at time timestamp date
    created updated valid validity status state exists present missing check checked verify
    verified generator factory builder parser encoder decoder spec template mask masked
    visible visibility show hide hidden toggle entry widget button dialog form page view
    screen icon color style width height css cls policy rule rules usage used uses counter
    budget estimate estimator stats metrics log logs logger logging level debug config
    configs setting settings property properties attribute attr attrs flag flags bucket
    secret_name arn ttl grace window store stores vault keychain keyring file_path domain
    domains host hostname issuer audience realm callback redirect scope scopes tenant region
    server servers backend backends strategy algorithm algorithms algo hasher hashers hashing
    """.split()
)

# Words ending in ``pass`` that do not name a password (``sshpass``, ``dbpass`` do).
NOT_PASS_WORDS = frozenset(
    "bypass compass encompass surpass trespass overpass underpass multipass impass".split()
)

# Words right before ``token`` that make it a non-credential token.
TOKEN_NOT_SECRET_BEFORE = frozenset(
    """
    pad eos bos unk sep mask cls special start end stop next prev previous page continuation
    cursor sync resume csrf xsrf anti forgery authenticity verification request cancellation
    cancel max min num total input output prompt completion context new old last first bad
    invalid expired lexer parser syntax ast word sub text image audio vision cache eof
    """.split()
)

# Words right before ``key`` that make it a non-credential key.
KEY_NOT_SECRET_BEFORE = frozenset(
    """
    public pub primary foreign sort partition sequence schema bucket cache idempotency hot
    shortcut map object row composite unique lookup index dict registry hash issuer react
    fingerprint kms keyboard group label field column attribute attr item entry config
    setting translation i18n message env route query param search filter order dedup dedupe
    cursor next prev page partition range cluster shard routing storage_account object_key
    dataset table record node tree heap list element legend child parent radio option
    host known authorized ssh gpg pgp verify verification encryption_public signing_public
    """.split()
)

# Words right before ``key`` that make it a credential even though ``key`` alone is weak.
KEY_SECRET_BEFORE = frozenset(
    """
    api access secret private client auth app application account service admin session
    signing sign encryption encrypt decryption master license licence consumer webhook
    deploy deployment integration subscription write read rest dev prod live test server
    shared symmetric hmac jwt crypto cipher aes rsa ssh_private root personal user sas
    """.split()
)

# Names whose metadata word is itself a secret (a Google service account's key id).
SECRET_METADATA_NAMES = frozenset({("private", "key", "id")})

# Words anywhere before the secret word that make the whole name a non-secret.
NAME_NOT_SECRET = frozenset(
    """
    no not non is has show hide toggle use enable disable require requires needs with
    without fake dummy example sample mock public pub forgot confirm_new generate get set
    validate check count
    """.split()
)

_WORD_SPLIT = re.compile(r"[A-Z]{2,}(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+[a-z]*")
_TOKEN_NOUN = re.compile(r"(?:access|auth|bearer|refresh|id|api|session|bot|app|user)?tokens?")

_AUTH_SCHEMES = re.compile(
    r"(?i)(?:bearer|basic|token|digest|bot|api-?token|api-?key|oauth|jwt|ssws|geniekey|key)[ \t]+"
)

#: After a name: a closing quote or ``]``, ``[25]``, a type (``: string``, Go's ``x string``),
#: then the operator.
ASSIGN_RE = re.compile(
    r"""(?:\\?["'`])?\]?(?:\[\d{0,6}\])?"""
    r"(?:[ \t]*:[ \t]*(?:string|String|str|number)\b(?=[ \t]*=))?"
    r"(?:[ \t]+(?:string|String|str)\b(?=[ \t]*=))?"
    r"[ \t]{0,16}(?P<op>:::=|::=|:=|\?=|\.=|\|\|=|===|!==|==|!=|=>|<-|=|:|,|>)?[ \t]{0,16}"
)

VALUE_RE = re.compile(
    r"""
    (?:[@rRbBuUfF]{1,2}(?=["'`]))?
    (?:
        \\"(?P<edq>(?:[^"\\\n]|\\[^"\n]){0,4096})\\"
      | \\'(?P<esq>(?:[^'\\\n]|\\[^'\n]){0,4096})\\'
      | "(?P<dq>(?:[^"\\\n]|\\[^\n]){0,4096})"
      | '(?P<sq>(?:[^'\\\n]|\\[^\n]){0,4096})'
      | `(?P<bq>[^`\n]{0,4096})`
      | (?P<uq>(?:[^\s"'`<\\,;&]|&(?![\w.-]{1,64}=)){1,4096})   # & ends it in a query
    )
    """,
    re.X,
)

_XML_VALUE = re.compile(r"\s{0,64}(?P<v>[^<\s][^<\n]{0,4095}?)\s{0,64}</")
_ATTR_VALUE = re.compile(r"""\s+value\s*=\s*(?P<q>["'])(?P<v>[^"'\n]{0,4096})(?P=q)""")
_HEADER_CREDENTIAL = re.compile(r"[A-Za-z0-9._~+/=:@!%*#$-]{1,4096}")
_TELEGRAM_SHAPE = re.compile(r"\d{1,20}:A[\w-]*")
_TELEGRAM = re.compile(r"\d{5,16}:A[\w-]{34}")
_BEARER = re.compile(r"(?i)bearer[ \t]+(?P<v>[A-Za-z0-9._~+/-]{8,4096}=*)")
_VALUE_IS_ASSIGNMENT = re.compile(r"(?i)[\w.-]{0,40}(?:pass|pwd|secret|token|key|auth)[\w.-]{0,40}[:=]")


def split_words(name: str) -> list[str]:
    """Split a name into lower-case words: ``sengridAPIToken_x`` -> sengrid, api, token, x."""
    return [w.lower() for w in _WORD_SPLIT.findall(name)]


def _word_kind(word: str) -> str | None:
    """The tier a single word gives its name, or None."""
    if "passw" in word or "pwd" in word or "passphrase" in word:
        return PASSWORD
    if word in ("pw", "pswd", "passcode") or (word.endswith("pass") and word not in NOT_PASS_WORDS):
        return PASSWORD
    if "secret" in word or "credential" in word or "apikey" in word or "bearer" in word:
        return TOKEN
    if word in ("auth", "oauth", "creds", "cred", "jwt", "pat", "authorization"):
        return TOKEN
    if word.startswith(("authoriz", "authtoken", "authkey")):
        return TOKEN
    if "token" in word:
        return TOKEN if _TOKEN_NOUN.fullmatch(word) or word.endswith("token") else None
    if word.endswith("key"):
        stem = word[:-3]
        if not stem:
            return WEAK
        if stem in KEY_SECRET_BEFORE or stem.endswith(("api", "access", "secret", "private")):
            return TOKEN
    return None


@lru_cache(maxsize=4096)
def classify_name(name: str) -> str | None:
    """Return ``password``, ``token`` or ``weak`` when ``name`` names a secret, else None."""
    words = split_words(name)
    if not words:
        return None
    best: str | None = None
    best_at = -1
    for i, word in enumerate(words):
        if word[0].isdigit():
            continue  # "88ypwd" of an id's random body ("mem_1m8vpayw88ypwd7x") names nothing
        kind = _word_kind(word)
        if kind is None or word in ("keys", "secrets") or word.endswith(
                ("tokens", "tokenizer", "tokenize")):
            continue
        if kind == PASSWORD or best != PASSWORD:
            best, best_at = kind, i
    if best is None:
        return None
    before = words[best_at - 1] if best_at > 0 else ""
    after = words[best_at + 1 :]
    if tuple(words[max(0, best_at - 1) :]) in SECRET_METADATA_NAMES:
        return TOKEN
    if any(w in METADATA_WORDS for w in after) or any(
            w in NAME_NOT_SECRET for w in words[:best_at]):
        return None
    word = words[best_at]
    if best == TOKEN and "token" in word and before in TOKEN_NOT_SECRET_BEFORE:
        return None
    if word == "key":
        if before in KEY_NOT_SECRET_BEFORE:
            return None
        if before in KEY_SECRET_BEFORE:
            return TOKEN
        if before and before.isalpha() and len(before) > 2:
            return QUALIFIED_KEY
    if best == TOKEN and word.endswith(("secret", "secrete")) and not after:
        return SECRET
    return best


def _header_value_ok(value: str) -> bool:
    """Credentials after ``Authorization:`` or ``Bearer``: anything real and long enough."""
    v = value.strip().rstrip(",;")
    if len(v) < HEADER_VALUE_MIN_LEN or is_placeholder(v) or (
            v.isalpha() and (v.islower() or v.istitle())):  # a word
        return False
    if not any(c.isdigit() for c in v) and not looks_random(v):
        return False
    return shannon_entropy(v) >= HEADER_ENTROPY_MIN


@lru_cache(maxsize=8192)
def _value_ok(kind: str, value: str, quoted: bool, literal: bool = False) -> bool:
    """Whether ``value`` assigned to a name of ``kind`` is a secret; ``literal``: the layout
    says the value is a literal (``literal_value_ok``)."""
    if _VALUE_IS_ASSIGNMENT.match(value):
        return False
    if _TELEGRAM_SHAPE.fullmatch(value) and not _TELEGRAM.fullmatch(value):
        return False  # shaped like a Telegram bot token but not a valid one
    if literal and kind in SECRET_NAME_KINDS and literal_value_ok(value, kind == PASSWORD):
        return True
    if kind == PASSWORD:
        return password_value_ok(value, quoted)
    if kind == SECRET:
        return password_value_ok(value, True) if quoted else token_value_ok(value, False)
    if kind == TOKEN:
        return token_value_ok(value, quoted)
    if kind == QUALIFIED_KEY and quoted and is_uuid(value):
        return True
    return token_value_ok(value, quoted, strict=True)


def _strip_unquoted(text: str, start: int, end: int) -> int:
    """Trim trailing punctuation and unbalanced closers from an unquoted value."""
    while end > start and text[end - 1] in ".:)]}":
        ch = text[end - 1]
        opener = {")": "(", "]": "[", "}": "{"}.get(ch)
        if opener and text.count(opener, start, end) >= text.count(ch, start, end):
            break
        end -= 1
    return end


def parse_value(text: str, pos: int) -> tuple[int, int, bool] | None:
    """Parse the value at ``pos``: return (start, end, quoted) of its content."""
    if not (m := VALUE_RE.match(text, pos)):
        return None
    for group in ("edq", "esq", "dq", "sq", "bq"):
        if m.group(group) is not None:
            return (*m.span(group), True)
    s, e = m.span("uq")
    e = _strip_unquoted(text, s, e)
    return (s, e, False) if e > s else None


@dataclass(frozen=True, slots=True)
class _Ctx:
    """Per-scan state shared by the keyword handlers."""

    text: str
    tb: bytes
    spans: list[Span] = field(default_factory=list)


def _key_bounds(ctx: _Ctx, i: int, j: int) -> tuple[int, int]:
    """Extend the keyword hit ``[i, j)`` to the whole name around it."""
    tb = ctx.tb
    lo, hi = max(0, i - MAX_KEY_SIDE), min(len(tb), j + MAX_KEY_SIDE)
    ks = tb.rfind(b" ", lo, i) + 1 or lo
    ke = tb.find(b" ", j, hi)
    ke = hi if ke == -1 else ke
    while ke > j and ctx.text[ke - 1] in ".-~":
        ke -= 1
    return ks, ke


def _reverse_compare(ctx: _Ctx, lower: bytes) -> None:
    """``if ("s3cr3t" == password)``: the literal sits before the name."""
    text = ctx.text
    for m in REVERSE_RE.finditer(lower):
        k = m.start()
        if (open_at := text.rfind(text[k], max(0, k - MAX_VALUE), k)) == -1:  # the quote
            continue
        s, e = open_at + 1, k
        name_at = m.end()
        ks = ctx.tb.rfind(b" ", max(0, name_at - MAX_KEY_SIDE), name_at) + 1
        ke = ctx.tb.find(b" ", name_at, name_at + MAX_KEY_SIDE)
        kind = classify_name(text[ks : ke if ke != -1 else name_at].strip("-.$@"))
        if kind and "\n" not in text[s:e] and _value_ok(kind, text[s:e], True):
            ctx.spans.append((s, e, "keyword-assignment"))


#: What a name stands after when its ``=`` starts a literal (.env, a query, a conninfo).
_LITERAL_BEFORE = " \t\r\n\"'?&;"
#: What follows an unquoted literal (code goes on with ``,``, ``)``, ``.attr``...).
_LITERAL_AFTER = " \t\r\n\"'&;.:#"


def _literal_layout(text: str, ks: int, m: re.Match[bytes]) -> bool:
    """``NAME=value`` with nothing around the ``=``, the name starting the text, a line, a
    word or a query parameter: a shell or ``.env`` assignment, a URL query or a connection
    string, where the value is a literal, not code."""
    return (m.group("op") == b"=" and m.group("kq") is None and m.start("op") == m.end("n")
            and m.end() == m.end("op") and (ks == 0 or text[ks - 1] in _LITERAL_BEFORE))


#: Names that take a value after ``to`` in prose ("changed the password to X").
_TO_NAMES = ("word", "phrase", "pass", "token", "secret")
#: Operators after which a value may stand on the next line.
_LINE_END_OPS = (b":", b"=", b":=", b"=>")


def find_keyword_secrets(text: str, lower: bytes, tb: bytes) -> list[Span]:
    """All keyword-assignment secrets in ``text`` (``lower``/``tb``: its byte views)."""
    ctx = _Ctx(text, tb)
    spans = ctx.spans
    i = lower.find(b"bearer")
    while i != -1:
        nxt = i + 6
        if (bm := _BEARER.match(text, i)) and _header_value_ok(bm.group("v")):
            spans.append((*bm.span("v"), "bearer"))
            nxt = bm.end("v")
        i = lower.find(b"bearer", nxt)
    resume = 0
    rfind = tb.rfind
    hits = [m for kw in _KEYWORDS if kw in lower for m in keyword_re(kw).finditer(lower)]
    for m in sorted(hits, key=lambda m: m.start()):
        i = m.start()
        if i < resume:
            continue
        lo = i - MAX_KEY_SIDE if i > MAX_KEY_SIDE else 0
        ks = rfind(b" ", lo, i) + 1 or lo
        ne = m.end("n")
        while ne > i and text[ne - 1] in ".-~":
            ne -= 1
        name = text[ks:ne]
        kind = classify_name(name.strip("-.$@"))
        if kind is None:
            resume = ne
            continue
        verb = m.group("verb")
        if verb is not None:
            # "password to X" (set/changed the password to X), but not "passed to".
            if not verb.rstrip(b" \t:").endswith(b"to") or name.lower().endswith(_TO_NAMES):
                resume = max(resume, _prose_value(ctx, kind, name, ks, m.end(), ne))
            continue
        if m.group("attr") is not None:
            if am := _ATTR_VALUE.match(text, m.end()):
                s, e = am.span("v")
                if _value_ok(kind, text[s:e], True):
                    spans.append((s, e, "keyword-assignment"))
                resume = am.end()
            continue
        op = m.group("op")
        if op is None and kind in (WEAK, QUALIFIED_KEY):
            continue  # ``key "x"`` is too weak without an operator
        if op == b"," and m.group("kq") is None:
            resume = ne
            continue
        if op == b">":
            resume = max(resume, _xml_element(ctx, kind, ks, m.end()))
            continue
        resume = max(resume, _assigned_value(ctx, kind, name, m.end(), ne,
                                             next_line=op in _LINE_END_OPS,
                                             literal=_literal_layout(text, ks, m)))
    if b"==" in lower or b"!=" in lower:
        _reverse_compare(ctx, lower)
    if b"-" in lower:
        for m in FLAG_RE.finditer(lower):
            ks, ke = m.start(), m.end("n")
            starts_word = ks == 0 or lower[ks - 1] in b" \t\n\"'=("
            if not starts_word or not _HAS_KEYWORD.search(m.group("n")):
                continue
            name = text[ks:ke]
            if (kind := classify_name(name.strip("-.$@"))) is not None:
                _assigned_value(ctx, kind, name, m.end(), ke)
    return spans


def _prose_value(ctx: _Ctx, kind: str, name: str, ks: int, pos: int, ne: int) -> int:
    """``my password is X``, ``the API token was X``, ``credentials are admin / X``."""
    text = ctx.text
    if kind in (WEAK, QUALIFIED_KEY):
        # "API key is": the word before decides ("the key is" names nothing).
        prev = _previous_word(ctx, ks)
        named = classify_name(f"{prev} {name}") if prev else None
        if named is None or named in (WEAK, QUALIFIED_KEY):
            return ne
        kind = named
    if _is_credentials_name(name) and (end := _credential_pair(ctx, pos)):
        return end
    if (parsed := parse_value(text, pos)) is None:
        return ne
    s, e, quoted = parsed
    value = text[s:e]
    ok = _value_ok(kind, value, True) if quoted else (
        prose_secret_ok(value, passphrase="phrase" in name.lower())
        and (kind == PASSWORD or token_value_ok(value, False)))
    if ok:
        ctx.spans.append((s, e, "password-in-prose" if kind == PASSWORD else "secret-in-prose"))
        return e
    return ne


#: ``admin / s3cr3t``, ``deploy:s3cr3t``: a user name, a separator, the password.
_CREDENTIAL_PAIR = re.compile(r"(?P<u>\w[\w.@+-]{0,127})[ \t]*[/:][ \t]*(?P<p>[^\s\"'`]{1,256})")
#: User names that say "a user name goes here" (``username / password``).
PAIR_USER_WORDS = frozenset(("user", "username", "login", "name", "email", "id", "userid"))


def _previous_word(ctx: _Ctx, ks: int) -> str:
    """The word before the name starting at ``ks`` ("public" in "public key: ...")."""
    text = ctx.text
    j = ks
    while j > 0 and text[j - 1] in " \t":
        j -= 1
    if j == ks:
        return ""
    i = ctx.tb.rfind(b" ", max(0, j - MAX_KEY_SIDE), j) + 1
    return text[i:j]


def _is_credentials_name(name: str) -> bool:
    return "cred" in name or "Cred" in name or "CRED" in name


def _credential_pair(ctx: _Ctx, pos: int) -> int:
    """A ``user / password`` pair after a credentials name; return its end, 0 if none."""
    text = ctx.text
    if not (m := _CREDENTIAL_PAIR.match(text, pos)):
        return 0
    s, e = m.span("p")
    e = _strip_unquoted(text, s, e)
    user, pw = m.group("u"), text[s:e]
    if user.lower() in PAIR_USER_WORDS or pw.startswith("/") or not prose_secret_ok(pw):
        return 0
    ctx.spans.append((s, e, "credential-pair"))
    return e


def _xml_element(ctx: _Ctx, kind: str, ks: int, pos: int) -> int:
    """``<apiToken>value</apiToken>``."""
    text = ctx.text
    m = _XML_VALUE.match(text, pos) if ks > 0 and text[ks - 1] == "<" else None
    if not m:
        return pos
    s, e = m.span("v")
    e = s + len(text[s:e].rstrip())
    if _value_ok(kind, text[s:e], True):
        ctx.spans.append((s, e, "keyword-assignment"))
    return m.end()


_NEXT_LINE_QUOTE = re.compile(r"[ \t]*\r?\n[ \t]{0,64}(?=[\"'`])")


def _assigned_value(ctx: _Ctx, kind: str, name: str, pos: int, ne: int,
                    next_line: bool = False, literal: bool = False) -> int:
    """Judge the value at ``pos`` assigned to ``name``; return where to resume. With
    ``next_line``, a quoted value alone on the next line counts (``"key":\n  "v"``); with
    ``literal`` (``_literal_layout``), a value the line ends after is a literal."""
    text = ctx.text
    if "auth" in name or "Auth" in name or "AUTH" in name:
        # Authorization: Bearer xxx / "auth": "Basic xxx"
        q = pos + 1 if pos < len(text) and text[pos] in "\"'`" else pos
        if sm := _AUTH_SCHEMES.match(text, q):
            if m := _HEADER_CREDENTIAL.match(text, sm.end()):
                if _header_value_ok(m.group()):
                    ctx.spans.append((m.start(), m.end(), "authorization"))
                return m.end()
    if kind == TOKEN and _is_credentials_name(name) and (end := _credential_pair(ctx, pos)):
        return end
    if (parsed := parse_value(text, pos)) is None and next_line:
        # Pretty-printed JSON: ``"password":`` at the end of a line, the value on the next.
        nl = _NEXT_LINE_QUOTE.match(text, pos)
        parsed = parse_value(text, nl.end()) if nl else None
        if parsed is not None and not parsed[2]:
            parsed = None
    if parsed is None:
        return ne
    s, e, quoted = parsed
    value = text[s:e]
    literal = literal and s == pos and (quoted or e == len(text) or text[e] in _LITERAL_AFTER)
    if _value_ok(kind, value, quoted, literal) or (
        name.lower().endswith("authorization") and _header_value_ok(value)
    ):
        if kind == WEAK and _previous_word(ctx, ne - len(name)).lower() in KEY_NOT_SECRET_BEFORE:
            return e  # "public key: age1...", "primary key: ..."
        ctx.spans.append((s, e, "keyword-assignment"))
        return e
    if e - s > SKIP_REJECTED_OVER and not quoted:
        return e
    return ne


# --- names that are only secret for one provider --------------------------------------------

#: (word starting a word of the name, value format, kind, min entropy): gitleaks-style
#: "keyword + format" rules for names that carry no secret word (``cloudflare: ...``,
#: ``SONAR_LOGIN = ...``, Bundler's ``BUNDLE_GEMS__EXAMPLE__COM=user:pass``). A format is
#: compiled (and cached by ``re``) when a value is first checked against it.
PROVIDER_NAMES = (
    (b"cloudflare", r"[\w-]{40}|[a-f0-9]{37}", "cloudflare-api-key", 2.8),
    (b"sourcegraph", r"[a-fA-F0-9]{40}", "sourcegraph-token", 2.8),
    (b"sonar", r"(?:sq[upa]_)?[A-Za-z0-9]{40}", "sonar-token", 2.8),
    (b"sumo", r"su[A-Za-z0-9]{12}|[A-Za-z0-9]{64}", "sumologic-key", 2.8),
    (b"messagebird", UUID + r"|[A-Za-z0-9]{25}", "messagebird-key", 2.8),
    (b"bundle_", r"[^\s:\"']{3,128}:[^\s:\"']{3,256}", "bundler-credentials", 2.0),
)

_OPS = ("=", ":", ":=", "::=", ":::=", "?=", ".=", "=>", ",")


def _names_provider(name: str, word: bytes) -> bool:
    """True when ``word`` starts a word of ``name`` (``SUMO_ACCESS_ID``) or spells whole
    words of it (``MessageBirdClientID``), but not ``sumOfExposures``."""
    w = word.decode().rstrip("_")
    if word == b"bundle_":
        # Bundler credentials: BUNDLE_<HOST> with dots written as "__".
        return name.upper().startswith("BUNDLE_") and "__" in name[7:]
    words = split_words(name)
    joined = ["".join(words[k : k + n]) for k in range(len(words)) for n in (2, 3)]
    return any(part.startswith(w) for part in words) or w in joined


def find_provider_name_secrets(text: str, lower: bytes, tb: bytes) -> list[Span]:
    """Values whose format is only a secret under a provider's name (``SONAR_LOGIN=...``)."""
    ctx = _Ctx(text, tb)
    for word, fmt, kind, min_entropy in PROVIDER_NAMES:
        i = lower.find(word)
        while i != -1:
            ks, ke = _key_bounds(ctx, i, i + len(word))
            nxt = ke + 1
            if _names_provider(text[ks:ke].lstrip("$-"), word):
                if (a := ASSIGN_RE.match(text, ke)) is not None and a.group("op") in _OPS:
                    if parsed := parse_value(text, a.end()):
                        s, e, _quoted = parsed
                        value = text[s:e]
                        if re.fullmatch(fmt, value) and provider_token_ok(value, min_entropy):
                            ctx.spans.append((s, e, kind))
                            nxt = e
            i = lower.find(word, max(nxt, i + 1))
    return ctx.spans
