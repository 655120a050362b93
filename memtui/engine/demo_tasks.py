"""Demo tasks and extraction rounds (``memtui --demo``): through the real engine with the
demo's fixed clock and ids, alice's extraction log shows every outcome and reason code, and a
queued task receives a real first-turn injection.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from memtui.engine.api import Engine
from memtui.store.backend import StoreBackend
from memtui.store.models import Task
from memtui.store.timeutil import FixedClock

IDLE_WAIT_SECONDS = 20 * 60
"""Wait before a round so the tasks are idle (the default idle gate is 900 s)."""
GAP_SECONDS = 47 * 60
LOW_QUOTA_REMAINING = 0.1
"""Share of the limit left when the demo makes the quota run low (below the 20% gate)."""
DEMO_QUOTA_USD = 25.0


@dataclass(frozen=True)
class _Spec:
    """One demo task: where, what, how long it ran, what it cost."""

    project: str
    goal: str
    result: str
    minutes: float = 25
    cost: float = 0.18
    prompt: str = ""
    status: str = "completed"


def _record(engine: Engine, clock: FixedClock, spec: _Spec, **extra: object) -> Task:
    clock.advance(GAP_SECONDS)
    finished = clock()
    started = finished - timedelta(minutes=spec.minutes)
    queued = spec.status == "queued"
    prompt = spec.prompt or spec.goal.splitlines()[0] + ". Keep the change small."
    return engine.tasks.add_task(
        spec.project, spec.goal, prompt, spec.result, None if queued else started,
        None if queued else finished, status=spec.status, cost_usd=spec.cost,
        **extra)  # type: ignore[arg-type]


CHECKOUT = _Spec(
    "webshop", "Fix the flaky checkout test",
    "The checkout test failed about one run in ten because it compared Decimal totals built "
    "from floats. Totals now come from Decimal strings end to end and the test pins the tax "
    "rate fixture. Ran the suite 200 times with pytest-repeat: no failures.", 34, 0.41)
RATE_LIMIT = _Spec(
    "webshop", "Add rate limiting to the login endpoint",
    "Added django-ratelimit to the login view: 5 attempts per minute per username. Lockouts "
    "return 429 with a Retry-After header. The limit lives in settings.FEATURES so it can be "
    "tuned per environment; tests cover the lockout and the reset after a minute.", 52, 0.37)
RATE_LIMIT_AGAIN = _Spec(
    "webshop", "add rate limiting to  the LOGIN endpoint\nsecond pass: per-IP buckets as well",
    "Rate limiting now uses two buckets: 5 attempts per minute per username and 20 per minute "
    "per client IP (taken from X-Forwarded-For behind the load balancer only). The Redis "
    "cache backs the counters; the in-memory fallback is used in tests only.", 41, 0.33)
DJANGO = _Spec(
    "webshop", "Upgrade Django to 5.1",
    "Coordinated the upgrade in three sub-tasks: requirements, deprecations, and the admin "
    "templates. All apps run on Django 5.1; the only behaviour change was the new default "
    "for FORMS_URLFIELD_ASSUME_HTTPS, now set explicitly. CI is green on 3.11 and 3.12.",
    95, 0.62)
DJANGO_SUB = _Spec(
    "webshop", "Update the checkout service's requirements for Django 5.1",
    "Bumped django, django-stubs and djangorestframework in services/checkout; regenerated "
    "the lock file with uv. Two tests needed the new assertFormError signature. The service "
    "image builds and the smoke test passes against the staging database.", 38, 0.21)
EXPORT = _Spec(
    "webshop", "Investigate the slow order export",
    "The nightly order export took 14 minutes because the serializer loaded each order's "
    "line items one query at a time. With prefetch_related on items and products it takes 40 "
    "seconds. Added a query-count test so the N+1 cannot come back unnoticed.", 47, 0.29)
RENAME = _Spec("webshop", "Rename cart_total to order_total in the checkout view",
               "Renamed the variable in checkout/views.py and its two templates; no behaviour "
               "change. Grep finds no other uses in the repository, templates included, and "
               "the test suite passes unchanged after the rename on a clean checkout.",
               0.2, 0.02)
BUMP = _Spec("webshop", "Bump the webshop version to 2.14.0", "Done: version 2.14.0 tagged.",
             3, 0.03)
INCIDENT = _Spec(
    "webshop", "Draft the incident report for the payment outage",
    "Draft written in docs/incidents/2026-11-payments.md: timeline, customer impact (41 "
    "failed payments over 18 minutes), root cause (an expired webhook secret; the old "
    "WEBHOOK_SECRET=Q3v9XkPz7LmN2rT8bY4cW1 was rotated in the vault) and five follow-ups.",
    64, 0.44)
REFUNDS = _Spec(
    "webshop", "Document the refund flow",
    "Wrote docs/refunds.md: refunds are created from the admin only, go through Stripe's "
    "Refund API with an idempotency key per order line, and are reconciled nightly by the "
    "payments job. Partial refunds keep the original tax split per line.", 29, 0.19)
FEATURES = _Spec(
    "ml-pipeline", "Speed up nightly feature extraction",
    "Feature extraction went from 2 h 10 min to 35 min: the join against the events table "
    "now runs in DuckDB over the Parquet snapshot instead of pandas, and the embedding step "
    "batches 512 rows per call. Outputs are byte-identical on last week's snapshot.", 71, 0.58)
EVAL = _Spec(
    "ml-pipeline", "Compare our evaluation metrics with the published leaderboard",
    "Pulled the public leaderboard numbers with web search and compared them with our "
    "held-out metrics: our recall@10 is 3 points lower, mostly on long-tail categories. "
    "Wrote the comparison table to reports/leaderboard.md with links to the sources.", 33, 0.26)
ROLLOUT = _Spec(
    "ml-pipeline", "Retrain the ranking model on the November snapshot",
    "Training ran on snapshot 2026-11-01 with the pinned config. Validation NDCG 0.412 "
    "(previous 0.405). The run's artefacts are in the model registry under ranking/v37; "
    "promotion to staging waits for the A/B slot next week.", 120, 0.35)
CART_FIX = _Spec(
    "webshop", "Hotfix: cart total rounding for three-decimal currencies",
    "Bahraini dinar prices showed two decimals in the cart. Currency exponents now come from "
    "the ISO 4217 table in babel instead of a hard-coded 2; the cart, the order email and the "
    "invoice PDF all format with the currency's own exponent. Regression test added.", 22, 0.16)
SEARCH = _Spec(
    "ml-pipeline", "Tune the product search embedding cache",
    "The embedding cache hit rate was 61% because keys included the request locale. Keys now "
    "use the normalised query only; hit rate is 88% on yesterday's traffic replay and p95 "
    "search latency dropped from 340 ms to 190 ms. Cache size stays under 2 GB.", 44, 0.24)
PRICE_FEED = _Spec(
    "webshop", "Import the supplier price feed",
    "The supplier's CSV feed is imported every hour by a management command; rows with an "
    "unknown SKU are written to a review table instead of failing the run. The import is "
    "idempotent per feed file checksum, and prices only change at midnight UTC.", 36, 0.22)
SSH_KEYS = _Spec(
    "infra", "Rotate the dev box SSH host keys",
    "Rotated the host keys on all six dev boxes with the Ansible role; the new fingerprints "
    "are published in the team wiki and in the known_hosts file the bootstrap script "
    "installs. Old keys are kept for one week in /etc/ssh/retired for audits.", 27, 0.14)
BADGES = _Spec(
    "webshop", "Update the README badges after the CI move",
    "The README now shows the GitHub Actions status, coverage from Codecov and the supported "
    "Python versions from the package metadata; the old Travis badge and the dead "
    "requirements.io link are gone. The docs site picks the same badges up from the README.",
    9, 0.06)
FAILED = _Spec("webshop", "Migrate sessions to Redis", "Aborted: the staging Redis ran out of "
               "memory during the backfill.", 18, 0.12, status="failed")
INTERRUPTED = _Spec("ml-pipeline", "Backfill embeddings for 2025", "Interrupted by the nightly "
                    "maintenance window.", 50, 0.31, status="interrupted")
MERGED = _Spec("webshop", "Tidy up the checkout CSS", "Merged into the Django upgrade branch.",
               12, 0.05, status="merged")
PAGINATION = _Spec("webshop", "Add pagination to the order history page", "", 0, 0.0,
                   status="queued")
BOB_CDN = _Spec("webshop", "Tune the CDN cache headers for static files",
                "Static files now get Cache-Control: public, max-age=31536000, immutable; "
                "HTML stays no-cache. Hashed file names from ManifestStaticFilesStorage make "
                "this safe. Verified with curl against the CDN edge in two regions.", 31, 0.2)


def _round_one(alice: Engine, bob: Engine, clock: FixedClock) -> Task:
    """The first round's tasks; the checkout task (round two forgets its memory)."""
    checkout = _record(alice, clock, CHECKOUT)
    _record(alice, clock, RATE_LIMIT)
    django = _record(alice, clock, DJANGO)
    django_sub = _record(alice, clock, DJANGO_SUB, parent=django.id)
    export = _record(alice, clock, EXPORT)
    alice.tasks.add_followup(export.id, django_sub.id,
                             "While upgrading I saw the export serializer does one query per "
                             "order line; that is probably your slowness.")
    for spec in (RENAME, BUMP):
        _record(alice, clock, spec)
    alice.tasks.set_flags(_record(alice, clock, INCIDENT).id, generate="off")
    _record(alice, clock, FEATURES)
    _record(alice, clock, EVAL, external_context=True, source="codex",
            external_tool="web_search", source_ref="rollout-2026-11-06T14-02-11-demo-eval")
    clock.advance(GAP_SECONDS)
    alice.tasks.add_task(
        ROLLOUT.project, ROLLOUT.goal, ROLLOUT.goal, ROLLOUT.result,
        clock() - timedelta(minutes=ROLLOUT.minutes), None, cost_usd=ROLLOUT.cost,
        source="codex", source_ref="rollout-2026-11-06T16-40-03-demo-train",
        allow_missing_times=True)
    for spec in (FAILED, INTERRUPTED, MERGED):
        _record(alice, clock, spec)
    _record(bob, clock, BOB_CDN)
    clock.advance(IDLE_WAIT_SECONDS)
    _record(alice, clock, SEARCH)  # just finished: not idle yet
    clock.advance(60)
    alice.extraction.run_round()
    return checkout


def _round_two(alice: Engine, clock: FixedClock, checkout: Task) -> None:
    checkout_log = alice.store.tasks.get_log(checkout.id)
    if checkout_log is not None and checkout_log.memory_id:
        alice.identity.forget(checkout_log.memory_id)
    refunds = _record(alice, clock, REFUNDS)
    clock.advance(5 * 60)
    alice.identity.add_memory("Refunds are issued from the admin only, through Stripe's "
                              "Refund API with one idempotency key per order line.",
                              "decision", "webshop", source_thread_id=refunds.id)
    _record(alice, clock, RATE_LIMIT_AGAIN)
    clock.advance(IDLE_WAIT_SECONDS)
    alice.extraction.run_round()
    _record(alice, clock, CART_FIX)
    clock.advance(60)
    alice.extraction.run_round(force=True, limit=1)


def _quota_rounds(alice: Engine, clock: FixedClock) -> None:
    spent = alice.tasks.quota_status().spent_usd
    alice.tasks.set_quota(round(spent / (1 - LOW_QUOTA_REMAINING), 2))
    _record(alice, clock, PRICE_FEED)
    clock.advance(IDLE_WAIT_SECONDS)
    alice.extraction.run_round()
    # A quota row someone edited by hand ("25 USD" is text, not a number): fail closed.
    _record(alice, clock, _Spec("webshop", "Add a health check for the payments webhook",
                                "The /healthz/payments endpoint now checks the webhook "
                                "signature secret is loaded and that the last webhook arrived "
                                "within 30 minutes during business hours; the load balancer "
                                "and the uptime monitor both poll it once a minute.", 26, 0.15))
    try:
        alice.store.tasks.set_quota("alice", "25 USD", alice.store.now())
    except Exception as error:  # a database that checks column types refuses the hand edit
        if alice.store.failure(error) is None:
            raise
    clock.advance(IDLE_WAIT_SECONDS)
    alice.extraction.run_round(limit=1)
    alice.tasks.set_quota(DEMO_QUOTA_USD)


def _error_round(alice: Engine, bob: Engine, clock: FixedClock) -> None:
    _record(alice, clock, SSH_KEYS)
    bob.identity.set_member("infra", "alice", "reader")
    clock.advance(IDLE_WAIT_SECONDS)
    _record(alice, clock, BADGES)  # finished a minute before the round: not idle yet
    clock.advance(60)
    alice.extraction.run_round(limit=2)


def seed_tasks(store: StoreBackend, clock: FixedClock, engines: dict[str, Engine]) -> None:
    """Record the demo tasks and run the extraction rounds of the module's story."""
    alice, bob = engines["alice"], engines["bob"]
    alice.settings.update(generate_memories=1, use_memories=1)
    alice.tasks.set_quota(DEMO_QUOTA_USD)
    _round_two(alice, clock, _round_one(alice, bob, clock))
    _quota_rounds(alice, clock)
    _error_round(alice, bob, clock)
    queued = _record(alice, clock, PAGINATION)
    alice.injection.prepare_first_turn(queued.id, apply=True)
    _record(alice, clock, _Spec("webshop", "Add pagination to the order history page",
                                "", 0, 0.0, status="queued"), continuation=True)
