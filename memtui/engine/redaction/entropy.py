"""Value heuristics (entropy, randomness, placeholders, code references): whether a
candidate a detector found really looks like a secret. Pure functions over short strings.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache

PLACEHOLDER = "[REDACTED]"
Span = tuple[int, int, str]
"""What a detector finds: (start, end, kind) of a secret in the text."""

# --- tuning values -------------------------------------------------------------------------

#: Shannon entropy (bits per char) a value must reach to count as random, once it is long
#: enough; shorter values are held to ``RANDOM_ENTROPY_PER_LOG2_LEN * log2(len)``.
RANDOM_ENTROPY_MIN = 3.0
RANDOM_ENTROPY_PER_LOG2_LEN = 0.72
#: Stricter entropy for values under a weak key (a bare ``key``, a provider name).
WEAK_ENTROPY_MIN = 3.0
#: Minimum lengths per tier.
PASSWORD_MIN_LEN = 6
TOKEN_MIN_LEN = 8
WEAK_MIN_LEN = 16
#: Pure-digit values under a secret key must be at least this long (account numbers, ids).
DIGITS_MIN_LEN = 14
#: Letters-only values (no digit, no symbol) need mixed case and this length to look random.
LETTERS_ONLY_MIN_LEN = 16
#: Fraction of upper-case letters in a letters-only value above which it is not camelCase.
MIXED_CASE_MIN_UPPER_RATIO = 0.25
#: A value covered at this fraction by ascending runs (abcd, 1234) of SEQUENTIAL_MIN_RUN+
#: characters, one of them SEQUENTIAL_LONG_RUN+ long, is an alphabet listing.
SEQUENTIAL_MAX_FRACTION = 0.6
SEQUENTIAL_MIN_RUN = 5
SEQUENTIAL_LONG_RUN = 10
#: Entropy cap for hex-only values (their alphabet has 16 symbols, at most 4 bits).
HEX_ENTROPY_CAP = 2.8
#: A value whose letters are at least this much made of word-like pieces reads as words.
WORDLIKE_MAX_FRACTION = 0.7
#: A pronounceable piece has vowels in this proportion and no longer consonant cluster.
WORD_VOWEL_RATIO = (0.25, 0.65)
MAX_CONSONANT_CLUSTER = 3
#: Values with more whitespace-separated words than this are prose, not a passphrase.
PASSPHRASE_MAX_WORDS = 5
#: Letters-only quoted values need this many words to read as a passphrase.
PASSPHRASE_MIN_WORDS = 3
#: Longest lower-case word read as a word, not a password, on a literal line.
LITERAL_WORD_MAX_LEN = 12
#: Longest single word taken as a secret from running text.
PROSE_SECRET_MAX_LEN = 128
#: Provider tokens: minimum entropy of the random part after the fixed prefix.
PROVIDER_ENTROPY_MIN = 2.5

# Words that, as a whole value, are placeholders or keywords rather than secrets.
PLACEHOLDER_WORDS = frozenset(
    """
    password passwd passw pass pwd pw secret secrets token tokens key apikey api_key api-key
    credential credentials creds auth none null nil true false undefined empty changeme
    change_me change-me changeit example sample test testing tester dummy fake placeholder
    redacted hidden masked xxx yyy zzz todo tbd n/a na default required optional string str
    value values bytes int integer bool boolean object any var env unset unknown missing
    foo bar baz qux foobar user username admin_password your_password yourpassword mypassword
    my_password my-password secretkey secret_key my_secret mysecret your_token yourtoken
    mytoken my_token your-token access_token refresh_token bearer basic digest private public
    notapassword not_a_secret nosecret no_secret insecure dev development prod production
    local localhost postgres root guest anonymous letmein hunter hunter1 qwerty abc123 asdf
    abcdef 123456 12345678 123456789 password1 password123 secret123 s3cr3t p4ssw0rd
    """.split()
)

# Words that make a quoted value with spaces read as text rather than a passphrase.
PROSE_WORDS = frozenset(
    """
    the a an your you my our their his her its this that these those is are be been was were
    not no must should will can cannot may please enter set see use using used required
    optional at least most characters chars character here there with without from for to
    of in on and or if when same as above below stored saved missing empty invalid wrong
    incorrect too long short new old current choose type confirm repeat minimum maximum min
    max letters digits symbols number numbers only never always ask contact does do did has
    have had doesnt dont didnt isnt arent wasnt cant wont shouldnt doesn't don't didn't isn't
    aren't wasn't can't won't shouldn't
    """.split()
)

# Substrings that mark a template or an instruction rather than a literal secret.
PLACEHOLDER_MARKERS = tuple(
    """
    your_ your- yourapi <your insert _here -here here> replace_ replace- replaceme changeme
    change_me placeholder example dummy fake sample redacted not_real notreal put_your
    enter_your
    """.split()
) + ("your api",)

_MASK_RUN = re.compile(r"(?i)x{4,}|\*{3,}|#{4,}|•{3,}|\.{3,}|_{6,}")
_TEMPLATE = re.compile(
    r"""
    \$\{[^}\n]{0,200}\}?            # ${VAR}, ${VAR:-x}, ${{ secrets.X }}
  | \$\([^)\n]{0,200}\)?            # $(command)
  | \$[A-Za-z_][\w.:]{0,100}        # $VAR, $env:VAR
  | \$\d{1,2}                       # $1
  | %[A-Za-z_][\w.]{0,100}%         # %VAR% (Windows)
  | %\(?[\w.]{0,100}\)?[sdrif]      # %s, %(name)s
  | \{\{.{0,300}?\}\}               # {{ template }}
  | \{%.{0,300}?%\}                 # {% jinja %}
  | <%.{0,300}?%>                   # <%= erb %>
  | <[^<>\n]{0,200}>                # <your-key>
  | \[[A-Za-z][A-Za-z _.-]{0,60}\]  # [PASSWORD]
  | ENC\[.{0,2000}\]                # sops
  | @@[\w.-]{1,100}@@               # @@TOKEN@@
  | __[A-Z][A-Z0-9_]{1,100}__       # __TOKEN__
    """,
    re.X,
)
_BRACED = re.compile(r"\{([^{}\n]{0,200})\}")
_CODE_REF = re.compile(
    r"""
    (?:new\s+)?[A-Za-z_$][\w$]*             # identifier
    (?:(?:\.|::|->)[A-Za-z_$][\w$]*)*       # attribute access
    (?:\(.{0,2000}|\[.{0,2000})?            # call / index (rest of the value)
    """,
    re.X | re.S,
)
_HEX = re.compile(r"[0-9a-fA-F]+")
# Obvious code: ``get_token()``, ``os.environ[...]``, ``self.secret``, ``settings.KEY``.
_SIMPLE_CODE_REF = re.compile(r"(?:[A-Za-z_$][A-Za-z_$]*\.)*[A-Za-z_$][A-Za-z_$]*(?:\(.*|\[.*)?", re.S)
UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_UUID = re.compile(r"\{?" + UUID + r"\}?")
_PATHLIKE = re.compile(r"(?:[A-Za-z]:\\|\.{0,2}/|~/|/)[\w .~/\\-]*")
_WORDY_SEGMENT = re.compile(r"[A-Za-z][a-z]*(?:[-_][A-Za-z][a-z]*)*\.?[a-z0-9]{0,5}")


def shannon_entropy(value: str) -> float:
    """Shannon entropy of ``value`` in bits per character (0.0 for an empty string)."""
    n = len(value)
    if n == 0:
        return 0.0
    return -sum((c / n) * math.log2(c / n) for c in Counter(value).values())


def is_sequential(value: str) -> bool:
    """True for alphabet listings such as ``abcdef...xyz0123456789`` (not ``abcd1234``):
    ascending runs of 5+ characters cover most of it, and one of them is long."""
    if len(value) < 6:
        return False
    low = value.lower()
    runs = [1]
    for a, b in zip(low, low[1:], strict=False):
        if ord(b) - ord(a) == 1:
            runs[-1] += 1
        else:
            runs.append(1)
    covered = sum(run for run in runs if run >= SEQUENTIAL_MIN_RUN)
    return max(runs) >= SEQUENTIAL_LONG_RUN and covered >= SEQUENTIAL_MAX_FRACTION * len(value)


def is_masked(value: str) -> bool:
    """True for masked or templated filler: ``xxxx``, ``****``, ``####``, ``...``."""
    return _MASK_RUN.search(value) is not None


def is_single_char_run(value: str) -> bool:
    """True when ``value`` repeats one character (``aaaaaa``) or has almost no variety."""
    return len(set(value)) <= 2 and len(value) >= 3


def is_template(value: str) -> bool:
    """True when the whole value is a variable reference or template, not a literal."""
    if _TEMPLATE.fullmatch(value):
        return True
    braced = _BRACED.fullmatch(value)
    # ``{hunter2}`` and ``{ var }`` are templates; ``{ZqL5kVrX1n8tA2}`` is a literal.
    return braced is not None and not looks_random(braced.group(1).strip())


_MARKERS = re.compile("|".join(re.escape(m) for m in PLACEHOLDER_MARKERS))
_WHITESPACE = re.compile(r"\s")
_TEMPLATE_START = frozenset("$%{<[E@_")


def has_whitespace(value: str) -> bool:
    """True when ``value`` contains any whitespace."""
    return _WHITESPACE.search(value) is not None


def is_placeholder(value: str) -> bool:
    """True when ``value`` is a placeholder, a template, masked, or a common word."""
    v = value.strip()
    if not v or "REDACTED" in v:  # also our own PLACEHOLDER
        return True
    low = v.lower()
    if low in PLACEHOLDER_WORDS or low.strip("'\"`") in PLACEHOLDER_WORDS:
        return True
    if (v[0] in _TEMPLATE_START and is_template(v)) or is_masked(v) or is_single_char_run(v):
        return True
    return _MARKERS.search(low) is not None


def is_uuid(value: str) -> bool:
    """True for a canonical UUID (optionally in braces)."""
    return _UUID.fullmatch(value) is not None


def looks_like_path(value: str) -> bool:
    """True for file paths and URLs, which are addresses rather than secrets."""
    if "://" in value:
        return True
    if value.startswith(("/", "./", "../", "~/")) or (
        len(value) > 2 and value[1] == ":" and value[2] in "\\/"
    ):
        return _PATHLIKE.fullmatch(value) is not None or "/" in value[1:]
    if "/" in value or "\\" in value:
        segments = [s for s in re.split(r"[/\\]", value) if s]
        return bool(segments) and all(_WORDY_SEGMENT.fullmatch(s) for s in segments)
    return False


def looks_like_code_reference(value: str) -> bool:
    """True for ``get_token()``, ``os.environ["X"]``, ``self.password``, ``args.key``; a bare
    identifier only when it reads like one (``TOKEN=rs5r0r8xzw6lfy2`` is a literal)."""
    if not _CODE_REF.fullmatch(value):
        return False
    if "(" in value or "[" in value or "." in value or "::" in value or "->" in value:
        head = re.split(r"[(\[]", value, maxsplit=1)[0]
        parts = re.split(r"\.|::|->", head)
        return not any(looks_random(p, strict=True) for p in parts if p)
    return not looks_random(value)


def _switches(kinds: list[bool]) -> int:
    """Number of changes between neighbours of ``kinds``."""
    return sum(a != b for a, b in zip(kinds, kinds[1:], strict=False))


def looks_random(value: str, strict: bool = False) -> bool:
    """True when ``value`` looks machine-generated (a key, a token) rather than a word;
    ``strict`` (weak keys, values with no key) demands more length and entropy."""
    n = len(value)
    min_len = WEAK_MIN_LEN if strict else TOKEN_MIN_LEN
    if n < min_len or is_single_char_run(value) or is_sequential(value):
        return False
    ent = shannon_entropy(value)
    cap = WEAK_ENTROPY_MIN if strict else RANDOM_ENTROPY_MIN
    if _HEX.fullmatch(value):
        cap = min(cap, HEX_ENTROPY_CAP)
    elif _VERSIONED.search(value) or is_wordlike(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    if value.isdigit():
        return n >= DIGITS_MIN_LEN and ent >= min(cap, 2.5)
    if ent < min(cap, RANDOM_ENTROPY_PER_LOG2_LEN * math.log2(n)):  # n >= TOKEN_MIN_LEN
        return False
    if has_digit and has_alpha:
        # "utf8", "sha256", "v1beta2" have one or two switches; keys have many.
        need = 3 if (n < 24 or strict) else 2
        switches = _switches([c.isdigit() for c in value if c.isdigit() or c.isalpha()])
        return switches >= need or ent >= 3.5
    if has_alpha and not has_digit:
        symbols = sum(1 for c in value if not c.isalnum())
        if symbols >= 2 and symbols < n / 2 and not strict:
            # m{{h}o)p${e]nob(... : symbols mixed into letters
            return len(set(value) - set("-_. ")) >= 8 and not re.search(r"[a-z]{12,}", value)
        cases = [c.isupper() for c in value if c.isalpha()]
        ratio = sum(cases) / len(cases)
        mixed = MIXED_CASE_MIN_UPPER_RATIO <= ratio <= 1 - MIXED_CASE_MIN_UPPER_RATIO / 2
        return n >= LETTERS_ONLY_MIN_LEN and mixed and _switches(cases) >= n / 4
    return False


_WORD_PIECE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_VERSIONED = re.compile(r"(?:^|[-_:@ ])v?\d+\.\d+(?:\.\d+)*(?:[-.][A-Za-z0-9]+)?$")
_VOWELS = frozenset("aeiouyAEIOUY")


def is_wordlike(value: str) -> bool:
    """True when the letters of ``value`` mostly form pronounceable words
    (``AgencyIdentificationCodeContentType``; not ``qdfxxhn1q8nu49zilhn42kcx``: random
    strings have long consonant clusters and few long pieces with vowels)."""
    pieces = _WORD_PIECE.findall(value)
    letters = sum(map(len, pieces))
    wordy = sum(len(p) for p in pieces if len(p) >= 4 and not p.isupper() and _pronounceable(p))
    return letters > 0 and wordy >= WORDLIKE_MAX_FRACTION * letters


def _pronounceable(piece: str) -> bool:
    vowels = 0
    cluster = 0
    for c in piece:
        if c in _VOWELS:
            vowels += 1
            cluster = 0
        else:
            cluster += 1
            if cluster > MAX_CONSONANT_CLUSTER:
                return False
    return WORD_VOWEL_RATIO[0] <= vowels / len(piece) <= WORD_VOWEL_RATIO[1]


_SEPARATED_WORDS = re.compile(r"[a-z]+(?:[-_.][a-z]+)+")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def is_prose(value: str) -> bool:
    """True when a quoted value with spaces reads like a sentence (``"Enter your password"``,
    ``"not set"``, ``"Mot de passe"``) rather than a passphrase (``"P@ss w0rd 2024!"``)."""
    words = value.split()
    if len(words) > PASSPHRASE_MAX_WORDS:
        return True
    bare = [w.strip(_WORD_PUNCTUATION).lower() for w in words]
    all_alpha = all(w.isalpha() for w in bare)
    if all_alpha and value.rstrip().endswith((":", "?", ".", "!", "...")):
        return True
    if any(w in _SECRET_WORDS or w.startswith(_SECRET_WORD_STARTS) for w in bare):
        return True  # "Your password here", "API key", "Mot de passe"
    prose_words = sum(1 for w in bare if w in PROSE_WORDS)
    if prose_words >= 2 or (all_alpha and prose_words):
        return True
    # Two plain words ("hello world") read as text; three or more as a passphrase.
    return all_alpha and len(words) < PASSPHRASE_MIN_WORDS


_WORD_PUNCTUATION = "\"'`.,;:!?()[]{}<>"
_SECRET_WORDS = frozenset(
    "pass passe pwd pw pin key keys apikey clave contraseña kennwort passwort code".split()
)
_SECRET_WORD_STARTS = ("passw", "passph", "secret", "token", "cred", "login")
_TECH_WORD = re.compile(
    r"(?:sha|md|base|utf|ucs|argon|pbkdf|ipv|http|oauth|aes|rsa|ecdsa|ed|des|crc|v|x|hs|rs|es)"
    r"\d{1,4}[a-z]{0,3}"
)
_DIGITS = re.compile(r"\d+[a-z]{0,3}")


def _descriptive(value: str) -> bool:
    """``sha256-hashed``, ``base64-encoded``, ``8-chars``, ``x86_64``: lower-case words and
    technical names joined by ``-``/``_``, a description rather than a password."""
    if any(c.isupper() for c in value) or not all(c.isalnum() or c in "-_" for c in value):
        return False
    pieces = [p for p in re.split(r"[-_]", value) if p]
    return all(p.isalpha() or _TECH_WORD.fullmatch(p) or _DIGITS.fullmatch(p) for p in pieces)


@lru_cache(maxsize=8192)
def prose_secret_ok(value: str, passphrase: bool = False) -> bool:
    """Whether an unquoted word from running text (``my password is X``, a table cell, an
    argument) is a literal secret: it must mix letters with digits or symbols, or look
    random; not words, descriptions (``sha256-hashed``), variable names, paths or
    placeholders. With ``passphrase``, 3+ words joined by ``-`` (``ravel-quint-dusk``) too."""
    v = value
    if not PASSWORD_MIN_LEN <= len(v) <= PROSE_SECRET_MAX_LEN or has_whitespace(v):
        return False
    if is_placeholder(v) or looks_like_path(v) or _ENV_NAME.fullmatch(v):
        return False
    if passphrase and _SEPARATED_WORDS.fullmatch(v) and len(re.split(r"[-_.]", v)) >= 3:
        return True
    if _SEPARATED_WORDS.fullmatch(v) or _descriptive(v) or any(c in v for c in "(["):
        return False  # words, descriptions, code: get(x), env[...]
    has_alpha = any(c.isalpha() for c in v)
    has_other = any(not c.isalpha() for c in v)
    if has_alpha and has_other:
        return not _TECH_WORD.fullmatch(v.lower())
    return looks_random(v)


def password_value_ok(value: str, quoted: bool) -> bool:
    """Whether ``value`` under a password-like key is a literal password worth hiding."""
    v = value.strip()
    if len(v) < PASSWORD_MIN_LEN:
        return False
    if not quoted and _SIMPLE_CODE_REF.fullmatch(v) and not (v.isalpha() and looks_random(v)):
        return False
    if is_placeholder(v) or looks_like_path(v) or not any(c.isalnum() for c in v):
        return False
    if has_whitespace(v):
        return quoted and not is_prose(v)
    if _SEPARATED_WORDS.fullmatch(v) or _ENV_NAME.fullmatch(v):
        return False  # shorter-version, not_long_enough, GITHUB_TOKEN
    if not quoted:
        # A bare word is more likely a variable (password=userPassword) than a literal;
        # a bare word with digits (DB_PASSWORD=hunter2) is a literal.
        if v.isalpha():
            return looks_random(v)
        if any(c in v for c in "([.") and looks_like_code_reference(v):
            return False
    return True


_DASHED_PASSPHRASE = re.compile(r"[a-z]+(?:-[a-z]+){2,}")
_PASCAL_PASSPHRASE = re.compile(r"(?:[A-Z][a-z]+){3,}")


@lru_cache(maxsize=8192)
def literal_value_ok(value: str, password: bool) -> bool:
    """Whether ``value`` is a secret where the layout says it is a literal, not code (an
    ``.env`` or ``export`` line, a URL query, a netrc entry, a cookie): any value that is not
    a placeholder, a path, a word or a description. With ``password``, shorter values and
    passphrases (``candle-cloud-orange``, ``CandleCloudOrange``) count too."""
    v = value
    if len(v) < (PASSWORD_MIN_LEN if password else TOKEN_MIN_LEN) or has_whitespace(v):
        return False
    if is_placeholder(v) or looks_like_path(v) or _ENV_NAME.fullmatch(v):
        return False
    if v.isdigit():
        return password or len(v) >= DIGITS_MIN_LEN
    if password and (_DASHED_PASSPHRASE.fullmatch(v) or _PASCAL_PASSPHRASE.fullmatch(v)):
        return not is_prose(" ".join(_WORD_PIECE.findall(v)))
    if password and v.isalpha() and v.islower() and len(v) > LITERAL_WORD_MAX_LEN:
        return True  # longer than a word a setting takes (``disabled``, ``keychain``)
    # Words, cased like words (``userName``, ``HTTPServer``; not the ``Jw`` of ``NJw6VgjuUysj``).
    words = is_wordlike(v) and all(len(p) >= 3 or p.isupper() for p in _WORD_PIECE.findall(v))
    if _SEPARATED_WORDS.fullmatch(v) or _VERSIONED.search(v) or words:
        return False
    if not any(c.isalnum() for c in v) or (("-" in v or "_" in v) and _descriptive(v)):
        return False
    return not (any(c in v for c in "([") and looks_like_code_reference(v))


def token_value_ok(value: str, quoted: bool, strict: bool = False) -> bool:
    """Whether ``value`` under a token/secret/key name looks like a real credential."""
    v = value.strip()
    if len(v) < TOKEN_MIN_LEN or has_whitespace(v) or is_placeholder(v) or looks_like_path(v):
        return False
    if not quoted and _SIMPLE_CODE_REF.fullmatch(v):
        return False
    if is_uuid(v):
        return not strict
    if not quoted and looks_like_code_reference(v):
        return False
    return looks_random(v, strict=strict)


def provider_token_ok(body: str, min_entropy: float = PROVIDER_ENTROPY_MIN) -> bool:
    """Whether the variable part of a provider-format token is real (not ``xxxx``/low entropy)."""
    if not body or is_masked(body) or is_single_char_run(body) or "EXAMPLE" in body:
        return False
    return shannon_entropy(body) >= min_entropy
