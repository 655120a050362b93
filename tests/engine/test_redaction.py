"""Redaction: API, rule families, spans, and the labelled corpus (spec 20 / 60)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from memtui.engine.redaction import (
    PLACEHOLDER,
    Finding,
    RedactionResult,
    findings_as_json,
    redact,
    scan,
)

# Secrets are assembled from pieces so that this file does not itself look like a leak.
GH = "ghp_" + "wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx"
AWS_ID = "AKIA" + "QX7Z4M2K9R3B6N5T"
AWS_SECRET = "k7Qe/9Zr2" + "Lw8Xv4Tb1Nn6Ym3Hc5Jd0Fs7Ga2PqU8"
SLACK = "xoxb-" + "263594206564-2343594206574-FGqddMF8t08v8N7Oq4i57vs1"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEpQIBAAKCAQEAn6/O8li+SX4m98LLYt/PKSzEmQ++ZBD7Loh9P13f4yQ92EF3\n"
    "yxR5MsXFu9PRsrYQA7/4UTPHiC4y2sAVCBg4C2yyBpUEtMQjyCESi6Y=\n"
    "-----END RSA PRIVATE KEY-----"
)

SECRET_SAMPLES = {
    "github": f"export GITHUB_TOKEN={GH}",
    "github-bare": f"the token {GH} leaked",
    "gitlab": "glpat-" + "x7Yq2Lm9Pz4Rt6Vw8Bn3",
    "aws": f"aws_access_key_id = {AWS_ID}",
    "google": "AIza" + "SyD8k2Lq9Zm4Xr7Tv1Nb6Hc3Jw5Pe0Ga2Uf",
    "stripe": "sk_live_" + "51H8xQ2eZvKYlo2C9Xq7Lm4Nb8Rt",
    "slack": SLACK,
    "slack-webhook": "https://hooks.slack.com/services/T0DCUJB1Q/B0DD08H5G/" + "bJtrpFi1fO1JMCcwLx8uZyAg",
    "openai": "sk-proj-" + "SevzWEV_NmNnMndQ5gn6PjFcX_9ay5SEKse8AL0EuYAB0cIgFW7Equ3vCbUbYShvii6L3rBw3WT3BlbkFJdD9",
    "anthropic": "sk-ant-api03-" + "aio4589214fr1f-p-fo8pr_cm3ye-jfvx52imjkm_en4qszx1b0rfprj-uzz7bcdm-xoz77alqy3bmcf6w-83n9h1b39-AA",
    "npm": "npm_" + "sh049e65979gup1wxqfas7tkpuqp4x2m291z",
    "pypi": "pypi-AgEIcHlwaS5vcmc" + "CJDU3OTM1MjliLWIyYTYtNDEwOC05NzRkLTM0MjNiNmEwNWIzYgACF1sxLFsi",
    "twilio": "SK" + "6a02cbedf7960df30e6a86bea413e922",
    "sendgrid": "SG." + "ngeVfQFYQlKU0ufo8x5d1A.TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr",
    "huggingface": "hf_" + "jCBaQngSHiHDRYOcsMcifUcysGyaiybUWz",
    "telegram": "bot token 110201543:" + "AAHdqTcvCH1vGWJxfSe1ofSAs0K5PALDsaw",
    "jwt": f"session={JWT}",
    "pem": PEM,
    "url": "postgresql://app:" + "S3cr3tPassw0rd" + "@db.internal:5432/app",
    "bearer": "Authorization: Bearer " + "cfcabd11c7ed9a41b1a3e063c32d5114",
    "basic": "curl -H 'Authorization: Basic " + "YnJvd3Nlcjo9cGFzc3dvcmQx" + "'",
    "password": 'password = "' + "hunter2-Zq9" + '"',
    "json": '{"client_secret": "' + "6da89121079f83b2eb6acccf8219ea982c3d79bc" + '"}',
    "yaml": "api_key: " + "HXe8DGg1iJd2AopzyxkFB7F2",
    "db_pass": "db_pass=" + "Tr0ub4dor&3x",
    "yaml-password": "password: " + "hunter2",
    "flag": "huggingface-cli login --token " + "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",
    "curl-user": "curl -u elastic:" + "P@ssw0rd$1" + " https://localhost:9200",
    "xml": "<apiToken>\n  " + "w5nbrs024hu04tlklsv0grkw3shfyig4" + "\n</apiToken>",
    "kubernetes": (
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n"
        "  password: " + "UyFCXCpkJHpEc2I9" + "\n"
    ),
}

ORDINARY_SAMPLES = [
    'password = os.environ["DB_PASSWORD"]',
    "token = get_token()",
    "password: ${DB_PASSWORD}",
    "api_key=<your-key>",
    'api_key = "your-api-key-here"',
    "SECRET_KEY=changeme",
    "token: xxxxxxxxxxxxxxxxxxxx",
    "password = None",
    'token = "null"',
    "auth = true",
    "max_tokens: 4096",
    "for key, value in sorted(d.items()):",
    'tokenizer.pad_token = tokenizer.eos_token',
    'headers = {"Authorization": f"Bearer {token}"}',
    "Authorization: Bearer $API_TOKEN",
    "curl -u \"$USER:$PASSWORD\" https://example.org",
    "https://github.com/org/repo/blob/main/README.md",
    "3f0a6b2e-5c1d-4e8f-9a7b-2c3d4e5f6a7b",
    "9fceb02d0ae598e95dc970b74767f19372d61af8",
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "/home/dev/.ssh/id_ed25519.pub",
    "GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}",
    "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----",
    "The password is stored in the keychain; the token expires after an hour.",
    'let api_key = std::env::var("API_KEY")?;',
    "TOKEN=$(gh auth token)",
    "login(password=userPassword)",
    '<input type="password" autocomplete="current-password">',
    'os.environ["GITHUB_TOKEN"] = token',
    "mongodb://localhost:27017/?authSource=admin",
    '"key": "memories/2024/06/01/abc.json"',
    "if token_count > max_tokens: raise",
]


@pytest.mark.parametrize("name", sorted(SECRET_SAMPLES))
def test_secret_is_redacted(name: str) -> None:
    text = SECRET_SAMPLES[name]
    result = scan(text)
    assert result.findings, name
    assert PLACEHOLDER in result.text
    for finding in result.findings:
        secret = text[finding.start : finding.end]
        assert secret not in result.text or len(secret) < 4


@pytest.mark.parametrize("text", ORDINARY_SAMPLES)
def test_ordinary_text_is_unchanged(text: str) -> None:
    assert redact(text) == text


def test_keyword_assignment_keeps_the_key() -> None:
    assert redact('api_key = "' + "HXe8DGg1iJd2AopzyxkFB7F2" + '"') == f'api_key = "{PLACEHOLDER}"'
    assert redact("GITHUB_TOKEN=" + GH) == f"GITHUB_TOKEN={PLACEHOLDER}"
    assert redact('{"password": "' + "Zx9!pQ2#mN4v" + '"}') == f'{{"password": "{PLACEHOLDER}"}}'


def test_whole_unquoted_value_is_redacted() -> None:
    assert redact("db_pass=" + "Tr0ub4dor&3x") == f"db_pass={PLACEHOLDER}"
    out = redact("https://x.org/cb?access_token=" + "Zx9pQ2mN4vKwL8rT" + "&state=abc")
    assert out == f"https://x.org/cb?access_token={PLACEHOLDER}&state=abc"


def test_url_password_keeps_user_and_host() -> None:
    out = redact("redis://default:" + "Vq8Lm2Xz9Kp4" + "@cache.internal:6379/0")
    assert out == f"redis://default:{PLACEHOLDER}@cache.internal:6379/0"


def test_pem_block_keeps_armour() -> None:
    out = redact("key:\n" + PEM + "\nend")
    assert out.startswith("key:\n-----BEGIN RSA PRIVATE KEY-----\n")
    assert out.endswith("-----END RSA PRIVATE KEY-----\nend")
    assert "MIIE" not in out


def test_unterminated_pem_is_redacted() -> None:
    text = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
    assert "b3Blbn" not in redact(text)


def test_aws_secret_next_to_access_key() -> None:
    out = redact(f"{AWS_ID}\n{AWS_SECRET}\n")
    assert AWS_ID not in out and AWS_SECRET not in out


def test_findings_are_spans_in_the_original() -> None:
    text = f"first {GH} then password={'Zx9pQ2mN4vKw'} done"
    result = scan(text)
    assert [f.kind for f in result.findings] == ["github-pat", "keyword-assignment"]
    assert text[result.findings[0].start : result.findings[0].end] == GH
    assert text[result.findings[1].start : result.findings[1].end] == "Zx9pQ2mN4vKw"
    assert all(isinstance(f, Finding) for f in result.findings)


def test_findings_as_json_never_holds_the_value() -> None:
    result = scan(f"token: {GH}")
    data = findings_as_json(result.findings)
    assert data == [{"kind": "github-pat", "start": 7, "end": 7 + len(GH)}]
    assert GH not in json.dumps(data)


def test_result_shape() -> None:
    clean = scan("nothing to see")
    assert isinstance(clean, RedactionResult)
    assert clean.text == "nothing to see" and clean.findings == ()
    assert scan("").text == ""


def test_idempotent_on_samples() -> None:
    for text in list(SECRET_SAMPLES.values()) + ORDINARY_SAMPLES:
        once = redact(text)
        assert redact(once) == once, text


def test_no_nested_placeholders() -> None:
    for text in (f"[{GH}]", f"[[{GH}]]", f"{GH}{GH}", f"token=[{GH}]", f"{PLACEHOLDER}{GH}"):
        out = redact(text)
        assert "[[REDACTED]]" not in out.replace("[[[REDACTED]]]", "")
        assert f"{PLACEHOLDER}{PLACEHOLDER}" not in out
        assert redact(out) == out


def test_engine_module_imports_only_stdlib() -> None:
    package = Path(__file__).resolve().parents[2] / "memtui" / "engine" / "redaction"
    for path in package.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else []
            else:
                continue
            for name in names:
                assert not name.startswith(("memtui", "textual", "rich", "sqlite_utils")), (
                    path.name,
                    name,
                )


def test_the_labelled_corpus_meets_the_bars() -> None:
    from memtui.bench.redaction import FP_BAR, RECALL_BAR, resolve_corpus, score_corpus

    corpus = resolve_corpus()
    if corpus is None:
        pytest.skip("no labelled corpus named by $MEMTUI_REDACTION_CORPUS")
    score = score_corpus(corpus)
    assert score["recall"] >= RECALL_BAR, score["missed_rules"]
    assert score["false_positive_rate"] <= FP_BAR, score["false_positive_rules"]


def test_an_id_whose_random_body_spells_a_keyword_is_not_a_secret_name() -> None:
    from memtui.engine.redaction import redact as redact_text

    ids = '["mem_1m8vpayw88ypwd7w", "mem_1m8vpayw88ypwd7x", "task_1m8v9token2kx"]'
    assert redact_text(ids) == ids
    assert redact_text('{"ids": ["mem_0001pwd", "mem_0002pwd"]}') == \
        '{"ids": ["mem_0001pwd", "mem_0002pwd"]}'
