"""The scan pipeline: run the detectors, merge their spans, build the redacted text.

Detectors work on two byte views made once per scan (same offsets as the text): ``lower``,
the text as ``latin-1`` (``?`` for other characters) lower-cased, for literal pre-filters
and the keyword search; ``tb``, ``a`` for each token character ``[A-Za-z0-9_.~-]`` and a
space for the rest, where ``find(b"a" * 16)`` finds candidate provider tokens. Patterns have
bounded repetition and detectors resume after what they consumed: the scan is linear.
"""

from __future__ import annotations

import bisect
import string
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from . import structured
from .commands import find_argument_passwords, find_command_passwords
from .entropy import PLACEHOLDER, Span
from .keywords import find_keyword_secrets, find_provider_name_secrets
from .rules import MIN_RUN, match_run
from .tables import find_table_secrets

#: Redaction passes run until the output is stable (idempotence); this bounds them.
MAX_PASSES = 4

_TOKEN_CHARS = set((string.ascii_letters + string.digits + "_.~-").encode())
_TOKEN_TABLE = bytes(0x61 if b in _TOKEN_CHARS else 0x20 for b in range(256))
_RUN_NEEDLE = b"a" * MIN_RUN
_PLACEHOLDER_LEN = len(PLACEHOLDER)

#: The other detectors, each run when the lower-cased text holds one of its literals (or
#: always, for none); a detector checks any further literal it needs itself.
_DETECTORS: tuple[tuple[tuple[bytes, ...], Callable[[str, bytes], list[Span]]], ...] = (
    ((b"-----begin",), structured.find_pem_blocks),
    ((b"://",), structured.find_url_passwords),
    ((b"|",), find_table_secrets),
    ((b"curl",), structured.find_curl_credentials),
    ((), find_command_passwords),  # starts from each "-p"
    ((b"redis-cli", b"htpasswd"), find_argument_passwords),
    ((b"machine",), structured.find_netrc_passwords),
    ((b"cookie",), structured.find_cookie_values),
    ((), structured.find_pgpass_passwords),
    ((b"kind:",), structured.find_k8s_secret_data),
    ((b"sig=", b"flyv1", b"hook", b"softlayer"), structured.find_marked_secrets),
)

# Priority of a kind when spans merge: provider-specific names win over generic ones.
_GENERIC_KINDS = ("keyword-assignment", "authorization", "bearer")


@dataclass(frozen=True)
class Finding:
    """One redacted secret: its rule id and its span in the *original* text (no value)."""

    kind: str
    start: int
    end: int


@dataclass(frozen=True)
class RedactionResult:
    """The redacted text and what was found where."""

    text: str
    findings: tuple[Finding, ...]


def _detect(text: str) -> list[Span]:
    """All raw spans (may overlap) found by every detector in one pass."""
    raw = text.encode("latin-1", "replace")
    lower, tb = raw.lower(), raw.translate(_TOKEN_TABLE)
    spans: list[Span] = []

    # Provider tokens: runs of >= MIN_RUN token characters.
    i = tb.find(_RUN_NEEDLE)
    n = len(tb)
    while i != -1:
        j = tb.find(b" ", i)
        if j == -1:
            j = n
        spans.extend(match_run(text, i, j))
        i = tb.find(_RUN_NEEDLE, j)

    aws = [s for s in spans if s[2] == "aws-access-key"]
    if aws:
        spans.extend(structured.find_aws_secret_near(text, aws))
    spans.extend(find_keyword_secrets(text, lower, tb))
    spans.extend(find_provider_name_secrets(text, lower, tb))
    for needles, detector in _DETECTORS:
        if not needles or any(needle in lower for needle in needles):
            spans.extend(detector(text, lower))
    return spans


def _merge(text: str, spans: list[Span]) -> list[Span]:
    """Merge overlapping or touching spans; widen ``[secret]`` to avoid ``[[REDACTED]]``."""
    cleaned = sorted((s, e, k) for s, e, k in spans if 0 <= s < e <= len(text))
    merged: list[Span] = []
    for s, e, k in cleaned:
        if merged and s <= merged[-1][1]:
            ls, le, lk = merged[-1]
            specific = lk in _GENERIC_KINDS and k not in _GENERIC_KINDS
            merged[-1] = (ls, max(le, e), k if specific else lk)
        else:
            merged.append((s, e, k))
    out: list[Span] = []
    for s, e, k in merged:
        # Grow over placeholders already adjacent, and over brackets around the secret.
        while True:
            if text.startswith(PLACEHOLDER, e):
                e += _PLACEHOLDER_LEN
            elif s >= _PLACEHOLDER_LEN and text.startswith(PLACEHOLDER, s - _PLACEHOLDER_LEN):
                s -= _PLACEHOLDER_LEN
            elif s > 0 and e < len(text) and text[s - 1] == "[" and text[e] == "]":
                s, e = s - 1, e + 1
            else:
                break
        if out and s <= out[-1][1]:
            ps, pe, pk = out[-1]
            out[-1] = (ps, max(pe, e), pk)
        else:
            out.append((s, e, k))
    return out


def _apply(text: str, spans: list[Span]) -> str:
    starts = [0, *(e for _s, e, _k in spans)]
    ends = [*(s for s, _e, _k in spans), len(text)]
    return PLACEHOLDER.join(text[a:b] for a, b in zip(starts, ends, strict=True))


def _map_back(spans: list[Span], new: list[Span]) -> list[Span]:
    """Map spans found in the redacted text back to offsets of the original text."""
    # Output layout: original segments interleaved with placeholders, as
    # (out_start, orig_start, orig_end, is_placeholder).
    records: list[tuple[int, int, int, bool]] = []
    out_pos = orig_pos = 0
    for s, e, _k in spans:
        placeholder_at = out_pos + s - orig_pos
        records += [(out_pos, orig_pos, s, False), (placeholder_at, s, e, True)]
        out_pos, orig_pos = placeholder_at + _PLACEHOLDER_LEN, e
    records.append((out_pos, orig_pos, -1, False))
    out_starts = [record[0] for record in records]

    def to_orig(p: int, is_end: bool) -> int:
        """Offset in the original text of output offset ``p``."""
        idx = bisect.bisect_right(out_starts, p) - 1
        if is_end and idx > 0 and out_starts[idx] == p:
            idx -= 1  # an end offset belongs to the segment before the boundary
        o_start, g_start, g_end, is_ph = records[idx]
        if is_ph:
            return g_end if is_end else g_start
        return g_start + (p - o_start)

    return [(to_orig(s, False), to_orig(e, True), k) for s, e, k in new]


def scan(text: str) -> RedactionResult:
    """The redacted ``text`` and the findings (rule id and span in ``text``, never the value)."""
    spans = _merge(text, _detect(text)) if text else []
    if not spans:
        return RedactionResult(text, ())
    out = _apply(text, spans)
    for _ in range(MAX_PASSES - 1):
        extra = _merge(out, _detect(out))
        if not extra:
            break
        spans = _merge(text, spans + _map_back(spans, extra))
        out = _apply(text, spans)
    findings = tuple(Finding(k, s, e) for s, e, k in spans)
    return RedactionResult(out, findings)


def redact(text: str) -> str:
    """Return ``text`` with every secret replaced by ``[REDACTED]``."""
    return scan(text).text


def findings_as_json(findings: Iterable[Finding]) -> list[dict[str, object]]:
    """Findings as JSON-ready dicts ``{"kind", "start", "end"}`` (never the secret value)."""
    return [{"kind": f.kind, "start": f.start, "end": f.end} for f in findings]
