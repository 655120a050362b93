"""The extraction log's reason codes in plain words, for every front end."""

from __future__ import annotations

REASON_WORDS: dict[str, str] = {
    "generate_off": "generate is off",
    "not_idle": "finished too recently (not idle yet)",
    "missing_times": "start or finish time missing",
    "too_short": "task ran too briefly",
    "result_too_short": "result too short",
    "external_context": "used outside context",
    "quota_low": "little monthly quota left",
    "quota_check_failed": "quota could not be read",
    "already_extracted": "already turned into a memory",
    "forgotten": "its memory was forgotten",
    "PermissionDenied": "error: you may no longer write to that project",
    "InvalidInput": "error: the task has nothing to remember",
    "NotFound": "error: the task or project is gone",
    "StoreError": "error: the store could not be written",
    "model_cap_day": "the daily model token cap is reached",
    "model_cap_month": "the monthly model token cap is reached",
    "model_cap_unreadable": "the model token ledger could not be read",
    "model_not_ready": "the model endpoint is not set up",
    "model_nothing": "the model found nothing worth keeping",
    "model_timeout": "error: the model endpoint timed out",
    "model_connection": "error: the model endpoint could not be reached",
    "model_http": "error: the model endpoint answered with an HTTP error",
    "model_refusal": "error: the model declined",
    "model_cut_off": "error: the model's answer was cut off",
    "model_invalid_json": "error: the model's answer was not the JSON asked for",
    "model_gave_up": "error: the model failed too often; left",
}
"""Every reason code of the extraction log, and the error classes an ``error`` row
names, in plain words."""
