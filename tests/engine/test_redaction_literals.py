"""Secrets whose layout says they are literals: ``.env``/``export``/query lines, netrc and
``.pgpass`` entries, ``Cookie`` headers, ``redis-cli -a``, ``htpasswd -b``, and provider
tokens glued after ``-``/``_``/``.`` or wrapped over lines; with the look-alikes that stay."""

from __future__ import annotations

import random
import string

import pytest

from memtui.engine.redaction import PLACEHOLDER, redact, scan

# Secrets are assembled from pieces so that this file does not itself look like a leak.
PW = "Kq8mZ2vP" + "9xWn3"
GH = "ghp_" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c"
ANTHROPIC_HEAD = "sk-ant-api03-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk6lMn9oPq"
ANTHROPIC_TAIL = "2rSt5uVw8xYz1aBc4dEf7gHi0jKl3mNo6pQr9sTu2vWx5yZa8bCd1eFg" + "-AbCdEfAA"

#: (text, the secret in it): each secret must go, the rest of the text must stay.
LITERALS = [
    ("staging .env: DB_PASSWORD=" + "SXRVxfCQGgXk", "SXRVxfCQGgXk"),
    ("export PGPASSWORD=" + "lmuezqpghopzgp", "lmuezqpghopzgp"),
    ("SSHPASS=" + PW + " sshpass -e ssh deploy@web1", PW),
    ("BACKUP_PASSPHRASE=" + "candle-cloud-orange-violet", "candle-cloud-orange-violet"),
    ("BACKUP_PASSPHRASE=" + "CandleCloudOrangeViolet", "CandleCloudOrangeViolet"),
    ("password=" + "kDNytsxq", "kDNytsxq"),
    ("client_secret=" + "NJw6VgjuUysj", "NJw6VgjuUysj"),
    ("https://auth.example.org/token?client_id=web&client_secret=" + "ekyw2bZLFoeb&x=1",
     "ekyw2bZLFoeb"),
    ('psql "host=db user=app password=' + "lmuezqpghopzgp" + '"', "lmuezqpghopzgp"),
    ("machine mirror.corp login ci password " + PW, PW),
    ("machine api.corp\n  login ci\n  password " + PW + "\n", PW),
    ("redis-cli -h cache -a " + PW + " ping", PW),
    ("htpasswd -b .htpasswd admin " + PW, PW),
    ("htpasswd -nbB admin " + PW, PW),
    ("htpasswd -c -b -C 12 /etc/nginx/.htpasswd admin '" + PW + "'", PW),
    ("sshpass -p " + PW + " ssh deploy@web1", PW),
    ("db.internal:5432:app:appuser:" + PW, PW),
    ("*:*:*:replicator:" + PW + "\n", PW),
    ("Cookie: theme=dark; session=" + PW + "abc", PW + "abc"),
    ("curl -H 'Set-Cookie: sid=" + "8f14e45fceea167a5a36dedd4bea2543" + "; Path=/'",
     "8f14e45fceea167a5a36dedd4bea2543"),
    ("src-" + GH, GH),
    ("build_" + GH + ".log", GH),
]

#: Texts that must come through unchanged (names, references, placeholders, prose, code).
NEAR_MISSES = [
    "PASSWORD_MIN_LENGTH=12",
    "password=$DB_PASSWORD",
    "password: ${{ secrets.X }}",
    "password=<redacted>",
    "the password is stored in vault",
    "f(password=pw_hash)",
    "connect(host=h, password=pwHash)",
    "    password=db_password,",
    "DB_PASSWORD=${DB_PASSWORD:-}",
    "PASSWORD_FILE=/run/secrets/db",
    "export GITHUB_TOKEN=$(gh auth token)",
    "AUTH_PROVIDER=keycloak",
    "PGPASSFILE=/home/dev/.pgpass",
    "AUTH0_DOMAIN=dev-abc123xy.us.auth0.com",
    "OKTA_AUTH_SERVER=aus1abcd2EFgh3",
    "AUTH_BACKEND=ldap3Backend",
    "PASSWORD_HASHER=bcrypt_sha256",
    "SSHPASS=$PASS",
    "DB_PASSWORD=postgres",
    "password=hashed",
    "PASSWORD_AUTH=disabled",
    "PASSPHRASE=must-be-set",
    "BACKUP_PASSPHRASE=DefaultBackupPassphrase",
    "passphrase=correct-horse",
    "BYPASS_PROXY=localhost",
    "compass=northwest",
    "export SUDO_ASKPASS=/usr/lib/ssh/x11-ssh-askpass",
    "api_token=settings.API_TOKEN",
    "redis-cli -h cache ping",
    'redis-cli --no-auth-warning -a "$REDIS_PASS" ping',
    "htpasswd -c .htpasswd admin",
    "htpasswd -b .htpasswd admin $PASS",
    "machine github.com login user password $TOKEN",
    "the machine learning login flow password reset",
    "Cookie: theme=dark; lang=en-US",
    "Set-Cookie: id=a3fWa; Expires=Thu, 21 Oct 2021 07:28:00 GMT; Secure; HttpOnly",
    "Set-Cookie: sessionid=; Max-Age=0; Path=/",
    "Cookie: JSESSIONID=${SESSION}",
    "localhost:5432:*:postgres:postgres",
    "2024-06-01T10:02:03Z INFO worker done",
    "src/app.py:12:5:E501:line",
    "the_ghp_prefix_is_documented_here",
    "http://assets.example.net/video_box.ico-7a388b69018576d24b59331fd60aab0c.png",
]


@pytest.mark.parametrize(("text", "secret"), LITERALS, ids=[t[:32] for t, _ in LITERALS])
def test_literal_secret_is_redacted_and_only_it(text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out
    assert out == text.replace(secret, PLACEHOLDER)


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_miss_is_unchanged(text: str) -> None:
    assert scan(text).findings == ()


def test_wrapped_provider_key_is_redacted_on_both_lines() -> None:
    text = f"key:\n{ANTHROPIC_HEAD}\n{ANTHROPIC_TAIL}\nnext line"
    out = redact(text)
    assert out == f"key:\n{PLACEHOLDER}\n{PLACEHOLDER}\nnext line"
    assert [f.kind for f in scan(text).findings] == ["anthropic-api-key"] * 2


def test_wrapped_only_when_the_pieces_make_a_key() -> None:
    # A prefix cut short, then an ordinary line: neither line is taken.
    text = f"{ANTHROPIC_HEAD}\nthe rest of the message"
    assert redact(text) == text


def _redacted_share(make: object, n: int = 500) -> float:
    assert callable(make)
    return sum(PLACEHOLDER in redact(make()) for _ in range(n)) / n


WORDS = "candle cloud orange violet river stone maple tiger amber frost lunar copper".split()


@pytest.mark.parametrize(("key", "alphabet", "length", "floor"), [
    ("DB_PASSWORD=", string.ascii_letters + string.digits, 12, 0.99),
    ("password=", string.ascii_letters + string.digits, 8, 0.98),
    ("client_secret=", string.ascii_letters + string.digits, 12, 0.98),
    ("DB_PASSWORD=", string.ascii_lowercase, 20, 0.99),
    ("export PGPASSWORD=", string.ascii_lowercase, 14, 0.99),
], ids=["alnum12", "password8", "client-secret12", "lower20", "lower14"])
def test_random_env_values_are_redacted(key: str, alphabet: str, length: int,
                                        floor: float) -> None:
    rng = random.Random(f"{key}{length}")
    share = _redacted_share(lambda: key + "".join(rng.choice(alphabet) for _ in range(length)))
    assert share >= floor


@pytest.mark.parametrize("join", ["-".join, lambda ws: "".join(w.title() for w in ws)],
                         ids=["hyphenated", "camel-case"])
def test_word_passphrases_are_redacted(join: object) -> None:
    assert callable(join)
    rng = random.Random(7)
    assert _redacted_share(lambda: "BACKUP_PASSPHRASE=" + join(rng.sample(WORDS, 4))) == 1.0
