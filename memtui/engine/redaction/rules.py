"""Provider token formats: credentials that identify themselves by their shape.

Each rule follows a provider's documented format (a literal prefix, a body of known alphabet
and length). Only the rules whose prefix starts a *run* of 16+ token characters are tried,
so ordinary text pays for one byte-level pass. Formats without a prefix (Azure, Discord,
Telegram, Mailchimp, Facebook) are picked by :func:`match_run` from cheap features of a run.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from .entropy import Span, is_sequential, looks_random, provider_token_ok, shannon_entropy

#: Minimum length of a run of token characters worth looking at.
MIN_RUN = 16
#: Entropy required of bodies whose alphabet is hex only (max 4 bits/char).
HEX_ENTROPY_MIN = 2.8
#: Prefixes this long or shorter are looked for glued after ``-``, ``_`` or ``.`` inside a
#: run (``src-ghp_...``) only when they hold ``_`` or capitals.
GLUED_SHORT_PREFIX_LEN = 4
#: Lines a wrapped token is followed over.
MAX_WRAPPED_LINES = 4
#: Shortest ``ya29.`` Google OAuth access token taken (real ones are 150+ characters).
GOOGLE_ACCESS_TOKEN_MIN_LEN = 40

_END = r"(?![A-Za-z0-9_-])"  # the token stops here (a "." after it ends a sentence)


@dataclass(frozen=True)
class TokenRule:
    """One provider format: ``pattern`` matched where a run starts with one of ``prefixes``
    is the secret; its body (after the prefix) must pass the entropy check. The pattern is
    compiled the first time a run starts with a prefix (a text meets few of them)."""

    kind: str
    prefixes: tuple[str, ...]
    pattern: str
    min_entropy: float = 2.5
    validator: Callable[[str], bool] | None = field(default=None, compare=False)

    @cached_property
    def regex(self) -> re.Pattern[str]:
        """``pattern`` compiled."""
        return re.compile(self.pattern)

    def check(self, text: str, pos: int, prefix: str) -> tuple[int, int] | None:
        """Return the secret's span when the rule matches at ``pos``."""
        if not (m := self.regex.match(text, pos)):
            return None
        value = m.group()
        body = value[len(prefix) :] if value.startswith(prefix) else value
        ok = provider_token_ok(body, self.min_entropy) and (
            self.validator is None or self.validator(value))
        return m.span() if ok else None


def _rule(kind: str, prefixes: str | tuple[str, ...], pattern: str, min_entropy: float = 2.5,
          validator: Callable[[str], bool] | None = None) -> TokenRule:
    prefixes = (prefixes,) if isinstance(prefixes, str) else prefixes
    return TokenRule(kind, prefixes, pattern, min_entropy, validator)


def _not_sequential(value: str) -> bool:
    return not is_sequential(value[4:]) and not is_sequential(value)


def _mixed_case(value: str) -> bool:
    body = value.split("_", 2)[-1]
    return any(c.isupper() for c in body) and any(c.islower() for c in body)


def _has_digit_and_cases(value: str) -> bool:
    return all(any(test(c) for c in value[2:]) for test in (str.isdigit, str.isupper, str.islower))


def _has_letter(value: str) -> bool:
    return any(c.isalpha() for c in value[4:])


def _random_tail(value: str) -> bool:
    return looks_random(value.split("-", 1)[-1].split("_", 1)[-1])


# Rules are grouped by provider; the first literal prefix decides dispatch.
TOKEN_RULES: tuple[TokenRule, ...] = (
    # --- source hosting -----------------------------------------------------------------
    _rule("github-pat", "ghp_", r"ghp_[A-Za-z0-9]{36,255}" + _END, 3.0),
    _rule("github-oauth", "gho_", r"gho_[A-Za-z0-9]{36,255}" + _END, 3.0),
    _rule("github-app-token", ("ghu_", "ghs_"), r"gh[us]_[A-Za-z0-9]{36,255}" + _END, 3.0),
    _rule("github-refresh-token", "ghr_", r"ghr_[A-Za-z0-9]{36,255}" + _END, 3.0),
    _rule("github-fine-grained-pat", "github_pat_", r"github_pat_\w{70,120}" + _END, 3.0),
    _rule("gitlab-pat", "glpat-", r"glpat-[\w-]{20,300}(?:\.[0-9a-z]{9})?" + _END, 3.0),
    _rule("gitlab-pipeline-trigger-token", "glptt-", r"glptt-[\w-]{40}" + _END, 3.0),
    _rule("gitlab-runner-registration-token", "GR1348941", r"GR1348941[\w-]{20,64}" + _END, 3.0),
    _rule("gitlab-runner-token", "glrt-", r"glrt-[\w-]{20,300}(?:\.[0-9a-z]{9})?" + _END),
    _rule("gitlab-cicd-job-token", "glcbt-", r"glcbt-(?:[0-9a-zA-Z]{1,5}_)?[\w-]{20,64}" + _END),
    _rule("gitlab-deploy-token", "gldt-", r"gldt-[\w-]{20,64}" + _END),
    _rule("gitlab-feed-token", "glft-", r"glft-[\w-]{20,64}" + _END),
    _rule("gitlab-incoming-mail-token", "glimt-", r"glimt-[\w-]{25,64}" + _END),
    _rule("gitlab-agent-token", "glagent-", r"glagent-[\w-]{50,1024}" + _END),
    _rule("gitlab-oauth-app-secret", "gloas-", r"gloas-[\w-]{64}" + _END),
    _rule("gitlab-scim-token", "glsoat-", r"glsoat-[\w-]{20,64}" + _END),
    _rule("gitlab-feature-flag-token", "glffct-", r"glffct-[\w-]{20,64}" + _END),
    _rule("gitlab-session-cookie", "_gitlab_session=", r"_gitlab_session=[0-9a-z]{32}" + _END),
    _rule("bitbucket-app-password", "ATBB", r"ATBB[A-Za-z0-9_=.-]{28,64}" + _END, 3.0),
    # --- cloud --------------------------------------------------------------------------
    _rule("aws-access-key",
          tuple("AKIA ASIA ABIA ACCA A3T AGPA AIDA AROA AIPA ANPA ANVA APKA".split()),
          r"(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}"
          r"(?![A-Za-z0-9])", 0.0),
    _rule("aws-bedrock-api-key", "ABSKQmVkcm9ja0FQSUtleS",
          r"ABSKQmVkcm9ja0FQSUtleS[A-Za-z0-9+/]{100,200}={0,2}(?![A-Za-z0-9+/=])", 0.0),
    _rule("aws-bedrock-api-key", "bedrock-api-key-",
          r"bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%-]{0,2000}", 0.0),
    _rule("gcp-api-key", "AIza", r"AIza[\w-]{35}" + _END, 3.0, validator=_not_sequential),
    _rule("google-oauth-client-secret", "GOCSPX-", r"GOCSPX-[\w-]{28}" + _END, 3.0),
    # OAuth access tokens: ``ya29.`` then dot-separated base64url segments.
    _rule("google-oauth-access-token", "ya29.", r"ya29\.[\w-]{1,2048}(?:\.[\w-]{1,2048}){0,4}", 3.0,
          validator=lambda v: len(v) >= GOOGLE_ACCESS_TOKEN_MIN_LEN),
    _rule("alibaba-access-key", "LTAI", r"LTAI[A-Za-z0-9]{20}" + _END, 3.0),
    _rule("digitalocean-token", ("dop_v1_", "doo_v1_", "dor_v1_"), r"do[opr]_v1_[a-f0-9]{64}" + _END),
    _rule("heroku-api-key", "HRKU-", r"HRKU-[\w-]{58,64}" + _END, 3.0),
    _rule("flyio-token", ("fo1_",), r"fo1_[\w-]{43}" + _END, 3.0),
    _rule("flyio-token", ("fm1", "fm2"), r"fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3}", 3.0),
    _rule("databricks-token", "dapi", r"dapi[a-f0-9]{32}(?:-\d)?" + _END, 3.0),
    _rule("doppler-token", "dp.", r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}" + _END),
    _rule("dynatrace-token", "dt0c01.", r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}" + _END),
    _rule("hashicorp-vault-token", "hvs.", r"hvs\.[\w-]{90,200}" + _END, 3.0),
    # Short service tokens (a dev server's root token: ``hvs.`` + 24 characters).
    _rule("hashicorp-vault-token", "hvs.", r"hvs\.[A-Za-z0-9]{24,89}" + _END, 3.0,
          validator=_has_digit_and_cases),
    _rule("hashicorp-vault-token", ("hvb.", "hvr."), r"hv[br]\.[\w-]{90,400}" + _END, 3.0),
    _rule("hashicorp-vault-token", "s.", r"s\.[A-Za-z0-9]{24}" + _END, 3.0,
          validator=_has_digit_and_cases),
    _rule("harness-token", ("pat.", "sat."), r"(?:pat|sat)\.[\w-]{22}\.[\w-]{24}\.[\w-]{20}" + _END),
    _rule("cloudflare-origin-ca-key", "v1.0-", r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}" + _END),
    _rule("yandex-token", "t1.", r"t1\.[A-Za-z0-9_-]+={0,2}\.[A-Za-z0-9_-]{86}={0,2}"),
    _rule("yandex-api-key", "AQVN", r"AQVN[A-Za-z0-9_-]{35,38}" + _END, 3.0),
    _rule("scalingo-token", "tk-us-", r"tk-us-[\w-]{48}" + _END),
    _rule("infracost-token", "ico-", r"ico-[A-Za-z0-9]{32}" + _END, 3.0),
    _rule("pulumi-token", "pul-", r"pul-[a-f0-9]{40}" + _END),
    _rule("prefect-token", "pnu_", r"pnu_[A-Za-z0-9]{36}" + _END, 3.0),
    _rule("planetscale-token", "pscale_", r"pscale_(?:tkn|oauth|pw)_[\w=.-]{32,64}" + _END),
    _rule("openshift-token", "sha256~", r"sha256~[\w-]{43}" + _END, 3.0),
    _rule("clickhouse-secret", "4b1d", r"4b1d[A-Za-z0-9]{38}" + _END, 3.0),
    # The prefix is unambiguous: any 58 alphanumerics after it (bech32 is a subset).
    _rule("age-secret-key", "AGE-SECRET-KEY-1", r"AGE-SECRET-KEY-1[0-9A-Z]{58}(?![0-9A-Za-z])"),
    _rule("defined-networking-token", "dnkey-", r"dnkey-[\w=-]{26}-[\w=-]{52}" + _END),
    _rule("octopus-deploy-key", "API-", r"API-[A-Z0-9]{26}" + _END, 3.0),
    _rule("onepassword-secret-key", "A3-",
          r"A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}"
          r"-[A-Z0-9]{5}" + _END, 3.0),
    _rule("onepassword-service-token", "ops_eyJ", r"ops_eyJ[A-Za-z0-9+/]{250,}={0,3}", 3.0),
    # --- AI -----------------------------------------------------------------------------
    _rule("anthropic-api-key", "sk-ant-", r"sk-ant-[a-z]{3,6}\d{2}-[\w-]{80,120}AA" + _END, 3.0),
    _rule("openai-api-key", ("sk-proj-", "sk-svcacct-", "sk-admin-", "sk-None-"),
          r"sk-(?:proj|svcacct|admin|None)-[\w-]{20,300}", 3.0),
    _rule("openai-api-key", "sk-", r"sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}" + _END, 3.0),
    _rule("huggingface-token", "hf_", r"hf_[A-Za-z]{34}(?![A-Za-z0-9])", 3.0, validator=_mixed_case),
    _rule("huggingface-org-token", "api_org_", r"api_org_[A-Za-z]{34}(?![A-Za-z0-9])", 3.0,
          validator=_mixed_case),
    _rule("perplexity-api-key", "pplx-", r"pplx-[A-Za-z0-9]{48}" + _END, 3.0),
    _rule("replicate-token", "r8_", r"r8_[A-Za-z0-9]{37}" + _END, 3.0),
    _rule("groq-api-key", "gsk_", r"gsk_[A-Za-z0-9]{52}" + _END, 3.0),
    _rule("xai-api-key", "xai-", r"xai-[A-Za-z0-9]{80}" + _END, 3.0),
    # --- chat & collaboration -----------------------------------------------------------
    _rule("slack-token", tuple(f"xox{c}-" for c in "bparsoe"),
          r"xox[baprseo]-(?:\d-)?(?:\d{6,15}-){1,3}[A-Za-z0-9]{8,64}" + _END, 2.5),
    _rule("slack-token", "xoxb-", r"xoxb-\d{8,14}-[A-Za-z0-9]{16,32}" + _END, 3.0),
    _rule("slack-config-token", "xoxe.", r"xoxe\.xox[bp]-\d-[A-Za-z0-9]{100,200}" + _END, 3.0),
    _rule("slack-config-token", "xoxe-", r"xoxe-\d-[A-Za-z0-9]{100,200}" + _END, 3.0),
    _rule("slack-app-token", "xapp-", r"xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+" + _END, 3.0),
    _rule("slack-token", tuple(f"xox{c}-" for c in "bparsoecd"),
          r"xox[a-z]-[A-Za-z0-9-]{20,250}" + _END, 3.0, validator=_random_tail),
    _rule("notion-token", "ntn_", r"ntn_\d{11}[A-Za-z0-9]{35}" + _END, 3.0, validator=_has_letter),
    _rule("notion-token", "secret_", r"secret_[A-Za-z0-9]{43}" + _END, 3.5),
    _rule("airtable-pat", "pat", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}" + _END, 3.0),
    _rule("linear-api-key", "lin_api_", r"lin_api_[A-Za-z0-9]{40}" + _END, 3.0),
    _rule("atlassian-api-token", "ATATT3", r"ATATT3[A-Za-z0-9_=-]{150,300}" + _END, 3.0),
    _rule("readme-api-key", "rdme_", r"rdme_[a-z0-9]{70}" + _END, 3.0),
    _rule("postman-api-key", "PMAK-", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}" + _END),
    _rule("sourcegraph-token", "sgp_", r"sgp_(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40}" + _END, 3.0),
    _rule("typeform-token", "tfp_", r"tfp_[\w.=-]{59}" + _END),
    _rule("frameio-token", "fio-u-", r"fio-u-[\w=-]{64}" + _END),
    _rule("settlemint-token", ("sm_pat_", "sm_aat_", "sm_sat_"), r"sm_[pas]at_[a-zA-Z0-9]{16,}" + _END),
    _rule("grafana-cloud-token", "glc_", r"glc_[A-Za-z0-9+/]{32,400}={0,2}", 3.0),
    _rule("grafana-service-account-token", "glsa_", r"glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}" + _END, 3.0),
    _rule("grafana-api-key", "eyJrIjoi", r"eyJrIjoi[A-Za-z0-9]{70,400}={0,2}", 3.0),
    # ``sntrys_`` + base64 JSON claims (any key order) + ``_`` + a 43-character secret.
    _rule("sentry-org-token", "sntrys_eyJ",
          r"sntrys_eyJ[A-Za-z0-9+/=]{30,4096}_[A-Za-z0-9+/]{43}(?![A-Za-z0-9+/])", 3.0),
    _rule("sentry-user-token", "sntryu_", r"sntryu_[a-f0-9]{64}" + _END, 3.0),
    _rule("intra42-secret", "s-s4t2", r"s-s4t2(?:ud|af)-[a-f0-9]{64}" + _END, 3.0),
    # --- payments & commerce ------------------------------------------------------------
    _rule("stripe-key", ("sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_"),
          r"[rs]k_(?:live|test|prod)_[A-Za-z0-9]{10,247}" + _END, 3.0),
    _rule("square-token", ("sq0atp-", "sq0csp-"), r"sq0(?:atp|csp)-[\w-]{22,60}" + _END, 3.0),
    _rule("square-token", "EAAA", r"EAAA[\w-]{22,60}" + _END, 3.0),
    _rule("facebook-page-token", ("EAAM", "EAAC"), r"EAA[MC][A-Za-z0-9]{40,400}" + _END, 3.0),
    _rule("shopify-token", ("shpat_", "shpca_", "shppa_", "shpss_"), r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + _END),
    _rule("shippo-token", "shippo_", r"shippo_(?:live|test)_[a-fA-F0-9]{40}" + _END),
    _rule("duffel-token", "duffel_", r"duffel_(?:test|live)_[\w=-]{43}" + _END),
    _rule("easypost-token", ("EZAK", "EZTK"), r"EZ[AT]K[A-Za-z0-9]{54}" + _END, 3.0),
    _rule("flutterwave-key", ("FLWSECK", "FLWPUBK"), r"FLW(?:SECK|PUBK)_TEST-[a-hA-H0-9]{12,32}(?:-X)?" + _END),
    # Stripe and Svix webhook signing secrets (Svix's body is base64, may hold + / =).
    _rule("stripe-webhook-secret", "whsec_", r"whsec_[A-Za-z0-9+/]{24,128}={0,2}(?![\w+/=])", 3.0),
    _rule("adobe-client-secret", "p8e-", r"p8e-[A-Za-z0-9]{32}" + _END, 3.0),
    _rule("gocardless-token", "live_", r"live_[\w=-]{40}" + _END, 3.0, validator=_random_tail),
    # --- messaging ----------------------------------------------------------------------
    _rule("sendgrid-api-key", "SG.",
          r"SG\.(?:[\w=-]{20,24}\.[\w=-]{39,50}|[\w=-]{66})" + _END, 3.0),
    _rule("sendinblue-api-key", "xkeysib-", r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}" + _END),
    _rule("mailgun-key", ("key-", "pubkey-"), r"(?:pub)?key-[a-f0-9]{32}" + _END, 3.0),
    _rule("twilio-api-key", "SK", r"SK[0-9a-fA-F]{32}" + _END, 3.0),
    _rule("new-relic-key", ("NRAK-", "NRJS-", "NRII-"), r"NR(?:AK-[A-Z0-9]{27}|JS-[a-f0-9]{19}|II-[a-z0-9-]{32})" + _END),
    _rule("mapbox-token", ("pk.", "sk."), r"[ps]k\.eyJ[A-Za-z0-9_-]{40,}\.[A-Za-z0-9_-]{20,}|[ps]k\.[a-z0-9]{60}\.[a-z0-9]{22}" + _END, 3.0),
    _rule("twitter-bearer-token", "AAAAAAAAAAAAAAAAAAAAA", r"A{22}[A-Za-z0-9%]{80,120}", 3.0),
    # --- package registries -------------------------------------------------------------
    _rule("docker-pat", "dckr_pat_", r"dckr_pat_[\w-]{24,64}" + _END, 3.0),
    _rule("npm-token", "npm_", r"npm_[A-Za-z0-9]{36}" + _END, 3.0),
    _rule("pypi-token", "pypi-AgE", r"pypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[\w-]{50,}", 3.0),
    _rule("rubygems-token", "rubygems_", r"rubygems_[a-f0-9]{48}" + _END),
    _rule("clojars-token", "CLOJARS_", r"CLOJARS_[a-z0-9]{60}" + _END),
    _rule("artifactory-api-key", "AKCp", r"AKCp[A-Za-z0-9]{69}" + _END, 3.0),
    _rule("artifactory-reference-token", "cmVmd", r"cmVmd[A-Za-z0-9]{59}" + _END, 3.0),
    _rule("nuget-api-key", "oy2", r"oy2[a-z0-9]{43}" + _END, 3.0),
    # --- generic token shapes -----------------------------------------------------------
    _rule("jwt", "eyJ", r"eyJ[\w-]{10,}\.eyJ[\w-]{5,}(?:\.[\w-]*)?", 3.0),
    _rule("jwt", "ZXlK", r"ZXlK[A-Za-z0-9+/]{40,}={0,2}", 3.0,
          validator=lambda v: any(m in v for m in ("LmV5", "uZXl", "5leU"))),
    _rule("openai-api-key", "sk-", r"sk-[\w-]{20,250}" + _END, 3.2, validator=_random_tail),
)

# Prefix rules that must win over a generic rule with the same prefix: ``sk-ant-`` keys
# that fail the Anthropic format are left to no other rule.
EXCLUSIVE_PREFIXES = ("sk-ant-",)


def _build_index(keep: Callable[[str], bool]) -> dict[str, list[tuple[str, TokenRule]]]:
    """The rules by the first two characters of each of their prefixes that ``keep`` keeps."""
    index: dict[str, list[tuple[str, TokenRule]]] = {}
    for rule in TOKEN_RULES:
        for prefix in filter(keep, rule.prefixes):
            index.setdefault(prefix[:2], []).append((prefix, rule))
    # Longer prefixes first so that the specific rule is tried before the generic one.
    for entries in index.values():
        entries.sort(key=lambda e: -len(e[0]))
    return index


def _distinctive(prefix: str) -> bool:
    """A prefix worth looking for glued inside a run: long, or with ``_`` or capitals
    (``ghp_``, ``AKIA``; not ``ico-`` after a file name's dot)."""
    return len(prefix) > GLUED_SHORT_PREFIX_LEN or "_" in prefix or not prefix.islower()


PREFIX_INDEX = _build_index(bool)
#: Prefixes looked for after a ``-``, ``_`` or ``.`` inside a run: the distinctive ones.
GLUED_INDEX = _build_index(_distinctive)
_GLUED = re.compile(r"[-_.](?=" + "|".join(map(re.escape, sorted(GLUED_INDEX))) + ")")
#: A wrapped token's next piece: a run of token characters alone at the start of a line.
_CONTINUATION = re.compile(r"\r?\n[ \t]{0,16}(?P<run>[A-Za-z0-9_.~-]{1,1024})(?=\s|$)")

# --- formats without a fixed prefix ------------------------------------------------------

_AZURE_CLIENT_SECRET = re.compile(r"(?<![\w~.-])[\w~.-]{3}\dQ~[\w~.-]{31,34}(?![\w~.-])")
_DISCORD_BOT = re.compile(r"[MNO][\w-]{23,25}\.[\w-]{6}\.[\w-]{27,38}(?![\w-])")
_TELEGRAM = re.compile(r"(?<![\w:])\d{5,16}:A[\w-]{34}(?![\w-])")
_TELEGRAM_PATH = re.compile(r"\d{5,16}:[\w-]{30,40}(?![\w-])")
_MAILCHIMP = re.compile(r"(?<![\w-])[0-9a-f]{32}-us\d{1,2}(?![\w-])")
_FACEBOOK_APP = re.compile(r"(?<!\w)\d{15,16}\|[\w-]{27}(?![\w-])")
_TF_TOKEN = re.compile(r"(?<![\w.-])[a-zA-Z0-9]{14}\.atlasv1\.[\w=-]{60,70}(?![\w=-])")
_DIGITS_BEFORE = re.compile(r"\d{8,16}$")
#: A Twilio auth token: 32 hex digits right after ``auth token`` (with ``is``, ``:``, ``=``,
#: ``to`` or a line break between), how the Twilio console labels it: no operator needed.
TWILIO_AUTH_TOKEN_LEN = 32
_TWILIO_AUTH_BEFORE = re.compile(
    r"(?i)auth[ _-]?token(?:[ \t]*[:=]|[ \t]+(?:is|was|to|now|set[ \t]+to)){0,2}[ \t]*(?:\r?\n[ \t]*)?$"
)
_HEX32 = re.compile(r"[0-9a-f]{32}")


def match_run(text: str, start: int, end: int) -> list[Span]:
    """Secrets found in the run ``text[start:end]``: its first two characters pick the prefix
    rules to try, a few cheap features of it the prefix-less rules."""
    found = _prefixed(text, start, end) if text[start : start + 2] in PREFIX_INDEX else []
    glue = None if found else _GLUED.search(text, start + 1, end - MIN_RUN)
    while glue is not None and not found:
        # A token glued after ``-``, ``_`` or ``.`` (``src-ghp_...``).
        found = _prefixed(text, glue.end(), end, GLUED_INDEX)
        glue = _GLUED.search(text, glue.end(), end - MIN_RUN)
    run = text[start:end]
    if end - start == TWILIO_AUTH_TOKEN_LEN and start > 9:
        m = _TWILIO_AUTH_BEFORE.search(text, max(0, start - 40), start)
        if m and _HEX32.fullmatch(run) and shannon_entropy(run) >= HEX_ENTROPY_MIN:
            found.append((start, end, "twilio-auth-token"))
    if "Q~" in run:
        for azure in _AZURE_CLIENT_SECRET.finditer(text, max(0, start - 1), end + 1):
            if provider_token_ok(azure.group(), 3.0):
                found.append((azure.start(), azure.end(), "azure-client-secret"))
    if run[0] in "MNOA" and run.count(".") >= 2:
        m = _DISCORD_BOT.search(text, start, min(end + 1, start + 80))
        if m and provider_token_ok(m.group(), 3.0):
            found.append((m.start(), m.end(), "discord-bot-token"))
    if "-us" in run:
        m = _MAILCHIMP.search(text, start, end)
        if m and shannon_entropy(m.group()[:32]) >= HEX_ENTROPY_MIN:
            found.append((m.start(), m.end(), "mailchimp-api-key"))
    if "atlasv1" in run:
        if (m := _TF_TOKEN.search(text, start, end)) and provider_token_ok(m.group(), 3.0):
            found.append((m.start(), m.end(), "terraform-cloud-token"))
    if start > 5:
        before = text[start - 1]
        if before == ":":
            digits = _digits_start(text, start - 1)
            if text.startswith("/bot", digits - 4):
                # A bot token in a Bot API path: /bot<id>:<secret>/sendMessage.
                m = _TELEGRAM_PATH.match(text, digits)
                if m and looks_random(run) and provider_token_ok(run, 3.0):
                    found.append((m.start(), m.end(), "telegram-bot-token"))
            elif run[0] == "A":
                if (m := _TELEGRAM.match(text, digits)) and provider_token_ok(run[:35], 3.0):
                    found.append((m.start(), m.end(), "telegram-bot-token"))
        elif before == "|":
            m = _FACEBOOK_APP.match(text, _digits_start(text, start - 1))
            if m and provider_token_ok(run[:27], 3.0):
                found.append((m.start(), m.end(), "facebook-access-token"))
    return found


def _prefixed(text: str, start: int, end: int,
              index: dict[str, list[tuple[str, TokenRule]]] = PREFIX_INDEX) -> list[Span]:
    """The provider token starting at ``start`` (the run ends at ``end``), also when it is
    wrapped onto the next lines."""
    for prefix, rule in index.get(text[start : start + 2], ()):
        if not text.startswith(prefix, start):
            continue
        if span := rule.check(text, start, prefix):
            return [(span[0], span[1], rule.kind)]
        if text.startswith(("\n", "\r\n"), end):
            if wrapped := _wrapped(text, start, end, prefix, rule):
                return wrapped
        if prefix in EXCLUSIVE_PREFIXES:
            break
    return []


def _wrapped(text: str, start: int, end: int, prefix: str, rule: TokenRule) -> list[Span]:
    """A token broken over lines (``sk-ant-api03-...`` then the rest alone on the next
    line): one span per line piece when the joined pieces match ``rule``."""
    pieces = [(start, end)]
    for _ in range(MAX_WRAPPED_LINES - 1):
        if (line := _CONTINUATION.match(text, pieces[-1][1])) is None:
            break
        pieces.append(line.span("run"))
        joined = "".join(text[s:e] for s, e in pieces)
        span = rule.check(joined, 0, prefix)
        if span and span[1] > len(joined) - (line.end() - line.start("run")):
            spans: list[Span] = []
            left = span[1]
            for s, e in pieces:
                spans.append((s, min(e, s + left), rule.kind))
                left -= e - s
            return spans
    return []


def _digits_start(text: str, sep: int) -> int:
    """Index where the run of digits that ends just before ``sep`` starts."""
    m = _DIGITS_BEFORE.search(text, max(0, sep - 16), sep)
    return m.start() if m else sep
