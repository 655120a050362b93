"""Property-based tests for redaction (hypothesis): idempotence, no nesting, bounded growth,
planted secrets always removed, any Unicode accepted."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtui.engine.redaction import PLACEHOLDER, redact, scan

# Pieces that make redaction interesting: keys, operators, quotes, brackets, prefixes.
FRAGMENTS = [
    "password", "token", "api_key", "secret", "Bearer ", "Authorization: ", "=", ": ", ":=",
    '"', "'", "`", "[", "]", "{", "}", "(", ")", "<", ">", "\n", " ", "\t", "\\", "@", "://",
    "https://", "user:", "ghp_", "sk-", "xoxb-", "AKIA", "eyJ", ".", "-", "_", "~", "$",
    "${VAR}", PLACEHOLDER, "[[", "]]", "-----BEGIN RSA PRIVATE KEY-----\n",
    "-----END RSA PRIVATE KEY-----", "curl -u ", "kind: Secret\ndata:\n  ",
    "aB3dE5gH7jK9mN1pQ", "Zx9pQ2mN4vKwL8rT", "0123456789abcdef", "é", "日本", "🙂", "\x00",
]

SECRETS = [
    "ghp_" + "wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx",
    "AKIA" + "QX7Z4M2K9R3B6N5T",
    "xoxb-" + "263594206564-2343594206574-FGqddMF8t08v8N7Oq4i57vs1",
    "glpat-" + "x7Yq2Lm9Pz4Rt6Vw8Bn3",
    "sk_live_" + "51H8xQ2eZvKYlo2C9Xq7Lm4Nb8Rt",
    "hf_" + "jCBaQngSHiHDRYOcsMcifUcysGyaiybUWz",
    "npm_" + "sh049e65979gup1wxqfas7tkpuqp4x2m291z",
    "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
]

texty = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=12)), max_size=30
).map("".join)

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(texty)
def test_idempotent(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


@SETTINGS
@given(st.text(max_size=300))
def test_any_unicode_is_accepted(text: str) -> None:
    result = scan(text)
    assert isinstance(result.text, str)
    assert redact(result.text) == result.text


@SETTINGS
@given(texty)
def test_no_new_nested_placeholders(text: str) -> None:
    out = redact(text)
    for nested in ("[[REDACTED]]", PLACEHOLDER + PLACEHOLDER):
        assert out.count(nested) <= text.count(nested)


@SETTINGS
@given(texty)
def test_output_never_grows_beyond_placeholders(text: str) -> None:
    result = scan(text)
    assert len(result.text) <= len(text) + len(PLACEHOLDER) * len(result.findings)
    last_end = -1
    rebuilt = []
    for f in result.findings:
        assert 0 <= f.start < f.end <= len(text)
        assert f.start > last_end  # sorted, disjoint, not touching
        rebuilt.append(text[max(last_end, 0) : f.start] + PLACEHOLDER)
        last_end = f.end
    rebuilt.append(text[max(last_end, 0) :])
    assert "".join(rebuilt) == result.text  # findings describe exactly what changed


@SETTINGS
@given(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80),
    st.sampled_from(SECRETS),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=80),
    st.sampled_from([" ", "\n", "\t", '"', "'", "(", "=", ": ", ", ", "<", "> "]),
    st.sampled_from([" ", "\n", "\t", '"', "'", ")", ";", ",", ".", " >", "<"]),
)
def test_planted_secret_is_removed(before: str, secret: str, after: str, left: str, right: str) -> None:
    text = before + left + secret + right + after
    out = redact(text)
    assert secret not in out
    assert redact(out) == out
