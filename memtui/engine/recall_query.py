"""What a recall question asks for: the words that matter (case-folded, without
``STOPWORDS`` and ``QUESTION_WORDS`` unless nothing else is left), each ASCII word in all its
forms (``linter``, ``linting`` and ``lints`` find each other: exact forms, not a prefix query),
the other spelling of ``ABBREVIATIONS``, and whether it is about the user (``I``, ``my``...).
``rank``: among the memories scoring at least ``RELEVANT_SHARE`` of the best, the current
project's first (the user's own when about the user), then the rest; then weaker matches.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from memtui.store.models import Memory

STOPWORDS = frozenset("""
a about after again all also am an and any are as at be been before but by can could did do
does doing done for from had has have he her here him his how i if in into is it its just me
more my no not now of on once only or our out over please she should so some than that the
their them then there these they this those to too up us very was we were what when where
which while who why will with would you your
""".split())
"""Words too common to say whether two texts are about the same thing."""
QUESTION_WORDS = frozenset("""
ask asked again anything currently default did exactly ever know kind mine myself ours
remember remind said say tell thing things usual usually use used uses using whats wheres
whom whose
""".split())
"""Words of how a question is asked, not of what it is about (left out of recall)."""
USER_WORDS = frozenset({"i", "me", "my", "mine", "myself", "im", "ive"})
MIN_STEM = 4
SHORT_WORD = 4
SUFFIXES = ("ational", "ations", "ation", "ating", "ated", "ates", "ences", "ence", "ances",
            "ance", "ments", "ment", "ingly", "ings", "ing", "ies", "ied", "ers", "er", "ed",
            "ally", "ly", "es", "s", "e", "y")
"""Endings cut from a word to find its stem, longest first (the first that leaves
``MIN_STEM`` letters wins)."""
DOUBLED_AFTER = ("ing", "ed", "er", "ers", "ings")
"""After these endings a doubled last consonant is one (``running`` → ``run``)."""
FORM_SUFFIXES = ("", "s", "es", "e", "ed", "d", "er", "ers", "ing", "ion", "ions", "ation",
                 "ations", "y", "ies", "ment", "ments", "ly", "ence", "ences", "ance", "erence",
                 "erences", "ate", "ated", "ity", "al", "ize", "ized")
"""Endings added to a stem to match a word's other forms (rarer ones found nothing more on the
recall benchmark)."""
SPELLINGS = (("ogue", "og"), ("our", "or"), ("ise", "ize"), ("yse", "yze"), ("tre", "ter"))
"""British and American endings of the same word (``catalogue``/``catalog``): a word with
one also asks for the other."""

ABBREVIATIONS = {short: long.replace("_", " ") for short, long in (
    pair.split("=") for pair in """
a11y=accessibility auth=authentication authn=authentication authz=authorization
cd=continuous_delivery cfg=configuration ci=continuous_integration cli=command_line
config=configuration db=database dep=dependency deps=dependencies dev=development
dir=directory doc=documentation docs=documentation e2e=end_to_end env=environment
fn=function func=function gh=github i18n=internationalization impl=implementation
infra=infrastructure k8s=kubernetes l10n=localization lib=library mfa=multi_factor
mr=merge_request msg=message os=operating_system perf=performance pg=postgres pkg=package
pr=pull_request prod=production py=python qa=quality_assurance repo=repository
sso=single_sign_on tz=time_zone ui=user_interface ux=user_experience vm=virtual_machine
js=javascript ts=typescript
""".split())}
"""Common developer short forms and what they stand for (general vocabulary, both ways)."""
TOOL_KINDS = {kinds: tools.split() for line in """
multiplexer: tmux zellij byobu
linter lint: ruff eslint flake8 pylint golangci clippy rubocop shellcheck
formatter: prettier ruff gofmt rustfmt isort
checker: mypy pyright tsc pyre
bundler: vite webpack esbuild turbopack
ci pipeline pipelines: jenkins circleci gitlab buildkite
payment payments billing: stripe paypal braintree adyen
password passwords secret secrets credential credentials: 1password bitwarden lastpass
test tests testing: pytest jest vitest mocha junit rspec unittest
browser e2e: playwright cypress selenium puppeteer
database databases: postgres postgresql mysql sqlite mongodb mariadb dynamodb
cache caching: redis memcached
queue queues worker workers background job jobs: celery sidekiq kafka rabbitmq sqs
orm: sqlalchemy prisma hibernate activerecord
editor ide: vim neovim emacs vscode pycharm intellij zed
shell: zsh bash
container containers: docker podman containerd
cluster orchestration: kubernetes k8s nomad
infrastructure provisioning: terraform pulumi ansible cloudformation
cloud hosting: aws gcp azure heroku vercel netlify
monitoring metrics alerting dashboards: prometheus grafana datadog pagerduty
exceptions crash crashes: sentry bugsnag rollbar
logging: loki elasticsearch kibana splunk
framework: django flask fastapi nextjs
frontend: react vue svelte angular
dependency dependencies package packages: pip poetry uv npm pnpm yarn
documentation: sphinx mkdocs docusaurus
chat: slack discord
ticket tickets tracker: jira
migration migrations: alembic flyway liquibase
login authentication sso: oauth okta auth0 keycloak
""".strip().splitlines() for kinds, tools in [line.split(":", 1)]}
"""Kinds of developer tools and well-known tools of each kind, most used first (not names that
are everyday words): a question naming the kind also asks for the tools' names."""
TOOLS_PER_KIND = 4
"""Tools a kind adds at most, so that a second kind named is asked for too (the store
searches at most ``MAX_RECALL_TERMS`` words)."""
_LONG_FORMS = {tuple(long.split()): short for short, long in ABBREVIATIONS.items()}

RELEVANT_SHARE = 0.5
"""A memory scoring at least this share of the best match ranks by its tier."""
CANDIDATE_FACTOR = 3
MIN_CANDIDATES = 20

_WORD = re.compile(r"\w+", re.UNICODE)
_LETTERS = re.compile(r"[a-z]+")


def stem(word: str) -> str:
    """The stem of a case-folded ASCII word: without the longest of ``SUFFIXES`` that leaves
    ``MIN_STEM`` letters; a short word loses only a plural ``s``."""
    if len(word) <= SHORT_WORD:
        return word[:-1] if word.endswith("s") and len(word) > 3 and word[-2] != "s" else word
    for suffix in SUFFIXES:
        base = word[: -len(suffix)]
        if not word.endswith(suffix) or len(base) < MIN_STEM:
            continue
        if suffix[0] in "iy" and base[-1] in "aeiou":
            continue
        if suffix in DOUBLED_AFTER and base[-1] == base[-2] and base[-1] not in "aeiouls":
            base = base[:-1]
        return base
    return word


def forms(word: str) -> list[str]:
    """``word`` and the forms of its stem (``FORM_SUFFIXES``), ``word`` first."""
    base = stem(word)
    found = dict.fromkeys([word, *spellings(word),
                           *(base + suffix for suffix in FORM_SUFFIXES)])
    if base[-1] not in "aeiouwxy":
        found.update(dict.fromkeys(base + base[-1] + suffix for suffix in DOUBLED_AFTER))
    return list(found)


def spellings(word: str) -> list[str]:
    """The other spellings of ``word`` by ``SPELLINGS``."""
    return [word[: -len(ending)] + other for pair in SPELLINGS
            for ending, other in (pair, pair[::-1])
            if word.endswith(ending) and len(word) - len(ending) >= MIN_STEM]


@dataclass(frozen=True)
class Question:
    """An analysed recall question: ``match`` is the store's full-text text (the forms of one
    word joined by ``|``), ``about_user`` whether it names the asker."""

    match: str
    about_user: bool
    words: tuple[str, ...]


def analyse(text: str) -> Question:
    """The words of ``text`` that matter, stemmed (see the module doc)."""
    words = [word.casefold() for word in _WORD.findall(text)]
    about_user = any(word in USER_WORDS for word in words)
    kept = [word for word in words if word not in STOPWORDS and word not in QUESTION_WORDS
            and len(word) > 1] or words
    terms: dict[str, None] = {}
    for word in [*kept, *expansions(words)]:
        terms.setdefault("|".join(forms(word)) if _LETTERS.fullmatch(word) else word)
    terms.update(dict.fromkeys(tool_names(kept)))
    return Question(" ".join(terms), about_user, tuple(kept))


def expansions(words: Sequence[str]) -> list[str]:
    """The words of the other spellings (``ABBREVIATIONS``) of those among ``words``."""
    found: list[str] = []
    for index, word in enumerate(words):
        short = word if word in ABBREVIATIONS else word[:-1] if word[:-1] in ABBREVIATIONS \
            else None
        if short is not None:
            found.extend(ABBREVIATIONS[short].split())
        found.extend(abbreviation for long, abbreviation in _LONG_FORMS.items()
                     if tuple(words[index:index + len(long)]) == long)
    return [word for word in found if word not in STOPWORDS]


def tool_names(words: Sequence[str]) -> list[str]:
    """The first ``TOOLS_PER_KIND`` tools of each kind of ``TOOL_KINDS`` named in ``words``,
    taken in turns (each kind's first tool, then each one's second ...)."""
    stems = {stem(word) for word in words}
    named = [tools[:TOOLS_PER_KIND] for kinds, tools in _KIND_STEMS if kinds & stems]
    return list(dict.fromkeys(tool for turn in itertools.zip_longest(*named) for tool in turn
                              if tool is not None))


_KIND_STEMS = [(frozenset(map(stem, kinds.split())), tools) for kinds, tools in TOOL_KINDS.items()]


def candidates(limit: int) -> int:
    """How many full-text candidates to read for ``limit`` ranked memories."""
    return max(limit * CANDIDATE_FACTOR, MIN_CANDIDATES)


def rank(scored: Sequence[tuple[Memory, float]], question: Question, actor: str,
         current: str | None, limit: int) -> list[Memory]:
    """The best ``limit`` of ``scored`` (higher better) by the tiers of the module doc."""
    if not scored:
        return []
    best = max(score for _memory, score in scored)

    def tier(memory: Memory) -> int:
        own = memory.scope == "user" and memory.owner == actor
        if question.about_user:
            return 0 if own else 1 if memory.project == current else 2
        return 0 if current is None or memory.project == current else 1

    def key(item: tuple[int, tuple[Memory, float]]) -> tuple[int, float, int]:
        position, (memory, score) = item
        relevant = best <= 0 or score >= best * RELEVANT_SHARE
        return (tier(memory) if relevant else 3, -score, position)

    return [memory for _position, (memory, _score) in sorted(enumerate(scored), key=key)][:limit]
