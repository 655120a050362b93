"""Names that are only secret for one provider (``SONAR_LOGIN=...``, ``BUNDLE_<HOST>``):
the value is redacted when it has the provider's format, and look-alike names or values
(``sumOfExposures``, a short or low-entropy value, a placeholder) come through unchanged."""

from __future__ import annotations

import pytest

from memtui.engine.redaction import PLACEHOLDER, scan

CF = "Zq3xR8_vKp2mW9-tLc7YhB4nJd6sFg1aQe5uXo0i"  # 40 of [\w-]
SONAR = "sqp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0"
SUMO_ID = "suA7k2Lm9Qx4Zt"
SUMO_KEY = "Qm4Xz8Rt2Lk7Wn3Hp6Vb9Jc1Fd5Gs0Ay" * 2
BIRD = "Xk3Lm9Qz2Rt7Wn4Hp8Vb1Jc6F"  # 25 alphanumerics

CAUGHT = [
    (f"cloudflare_api_key: {CF}", CF, "cloudflare-api-key"),
    (f"export CLOUDFLARE_GLOBAL={CF}", CF, "cloudflare-api-key"),
    (f"SONAR_LOGIN = {SONAR}", SONAR, "sonar-token"),
    (f"SUMO_ACCESS_ID={SUMO_ID}", SUMO_ID, "sumologic-key"),
    (f'sumologic = "{SUMO_KEY}"', SUMO_KEY, "sumologic-key"),
    (f"MessageBirdClientID := {BIRD}", BIRD, "messagebird-key"),
    ("BUNDLE_GEMS__EXAMPLE__COM=deploy:Tr0ub4dor-x9", "deploy:Tr0ub4dor-x9",
     "bundler-credentials"),
]

UNCHANGED = [
    f"sumOfExposures = {SUMO_KEY}",  # "sum" is no provider word at a word start
    "SONAR_LOGIN = aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",  # no entropy
    "cloudflare_zone: example.com",  # not the key's format
    "BUNDLE_PATH=vendor/bundle",  # no host, no user:pass
    "BUNDLE_GEMS__EXAMPLE__COM=${BUNDLE_USER}",  # a template
    f"the cloudflare dashboard shows {CF[:20]}",  # no assignment
]


@pytest.mark.parametrize(("text", "secret", "kind"), CAUGHT, ids=[c[2] + str(i)
                                                                   for i, c in enumerate(CAUGHT)])
def test_a_provider_value_under_its_name_is_redacted(text: str, secret: str, kind: str) -> None:
    result = scan(text)
    assert secret not in result.text and PLACEHOLDER in result.text
    assert kind in {finding.kind for finding in result.findings}


@pytest.mark.parametrize("text", UNCHANGED)
def test_look_alikes_come_through_unchanged(text: str) -> None:
    assert scan(text).text == text
