# ruff: noqa: E501  (one sample per line: the table reads best unwrapped)
"""A positive case and a near miss for every secret rule, built from pieces at run time so that
no string in the repository is a secret a scanner (or GitHub's push protection) would flag."""

from __future__ import annotations

import random
import string
from dataclasses import dataclass

_RNG = random.Random(20261201)
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
LOWER = string.ascii_lowercase


def chars(alphabet: str, n: int) -> str:
    """``n`` characters of ``alphabet`` with high entropy (every sample differs)."""
    return "".join(_RNG.choice(alphabet) for _ in range(n))


def j(*parts: str) -> str:
    return "".join(parts)


@dataclass(frozen=True)
class Sample:
    rule: str
    secret: str
    """What the finding's span must hold."""
    line: str
    """A line holding it, as a memory would."""
    near_miss: str
    """A line that looks like it but is no secret of this rule."""


def _samples() -> list[Sample]:
    out: list[Sample] = []

    def add(rule: str, secret: str, near: str, before: str = "token: ", after: str = "\n") -> None:
        out.append(Sample(rule, secret, before + secret + after, before + near + after))

    upper27 = string.ascii_uppercase + "234567"
    add("aws-access-token", j("AK", "IA", chars(upper27, 16)), j("AK", "IA", chars(upper27, 12), "EXAMPLE"))
    add("gcp-api-key", j("AI", "za", chars(ALNUM + "-_", 35)), j("AI", "za", chars(ALNUM, 30)))
    azure = j(chars(ALNUM, 3), "8", "Q", "~", chars(ALNUM + "_~.-", 32))
    add("azure-ad-client-secret", azure, j(chars(ALNUM, 3), "8", "Q", "~", chars(ALNUM, 20)), before="secret=")
    add("digitalocean-pat", j("dop", "_v1_", chars(HEX, 64)), j("dop", "_v1_", chars(HEX, 63)))
    add("digitalocean-access-token", j("doo", "_v1_", chars(HEX, 64)), j("doo", "_v1_", "0" * 64))
    add("anthropic-api-key", j("sk-", "ant-", "api03-", chars(ALNUM + "_-", 93), "AA"),
        j("sk-", "ant-", "api03-", chars(ALNUM, 93), "AB"))
    add("anthropic-admin-api-key", j("sk-", "ant-", "admin01-", chars(ALNUM + "_-", 93), "AA"),
        j("sk-", "ant-", "admin01-", chars(ALNUM, 90), "AA"))
    add("openai-api-key", j("sk-", "proj-", chars(ALNUM, 74), "T3Blbk", "FJ", chars(ALNUM, 74)),
        j("sk-", "proj-", chars(ALNUM, 74), "T3Blbk", "FX", chars(ALNUM, 74)))
    add("huggingface-access-token", j("hf", "_", chars(LOWER, 34)), j("hf", "_", chars(LOWER, 20), "1" * 14))
    add("github-pat", j("gh", "p_", chars(ALNUM, 36)), j("gh", "p_", chars(ALNUM, 35)), after=" \n")
    add("github-fine-grained-pat", j("github", "_pat_", chars(ALNUM + "_", 82)), j("github", "_pat_", chars(ALNUM, 60)))
    add("github-app-token", j("gh", "s_", chars(ALNUM, 36)), j("gh", "s_", "a" * 36))
    add("github-oauth", j("gh", "o_", chars(ALNUM, 36)), j("gh", "o_", chars(ALNUM, 20)))
    add("github-refresh-token", j("gh", "r_", chars(ALNUM, 36)), j("gh", "r_", "ab" * 18))
    add("gitlab-pat", j("gl", "pat-", chars(ALNUM + "_-", 20)), j("gl", "pat-", chars(ALNUM, 19)), after=" \n")
    add("gitlab-deploy-token", j("gl", "dt-", chars(ALNUM + "_-", 20)), j("gl", "dt-", "x" * 20))
    add("slack-bot-token", j("xo", "xb-", chars("0123456789", 12), "-", chars("0123456789", 12), "-", chars(ALNUM, 24)),
        j("xo", "xb-", chars("0123456789", 8), "-", chars(ALNUM, 24)))
    add("slack-user-token", j("xo", "xp-", chars("0123456789", 12), "-", chars("0123456789", 12), "-",
                              chars("0123456789", 12), "-", chars(ALNUM, 32)),
        j("xo", "xp-", chars("0123456789", 12), "-", chars(ALNUM, 32)))
    add("slack-app-token", j("xa", "pp-1-", chars(string.ascii_uppercase + string.digits, 11), "-",
                             chars("0123456789", 13), "-", chars(LOWER + string.digits, 64)),
        j("xa", "pp-", chars(string.ascii_uppercase, 11)))
    add("twilio-api-key", j("S", "K", chars("0123456789abcdefABCDEF", 32)), j("S", "K", chars("0123456789abcdef", 31)), after=" \n")
    add("sendgrid-api-token", j("S", "G.", chars(ALNUM + "_-", 22), ".", chars(ALNUM + "_-", 43)),
        j("S", "G.", chars(ALNUM, 40)))
    add("npm-access-token", j("np", "m_", chars(LOWER + string.digits, 36)), j("np", "m_", chars(LOWER, 30)))
    add("pypi-upload-token", j("py", "pi-", "AgEIcHlwaS5vcmc", chars(ALNUM + "_-", 70)), j("py", "pi-", "AgEIcHlwaS5vcmc", chars(ALNUM, 40)))
    add("databricks-api-token", j("da", "pi", chars(HEX, 32)), j("da", "pi", chars(HEX, 31)))
    add("hashicorp-tf-api-token", j(chars(LOWER + string.digits, 14), ".", "atlas", "v1", ".", chars(ALNUM + "-_=", 64)),
        j(chars(LOWER + string.digits, 14), ".", "ATLAS", "V1", ".", chars(ALNUM, 64)))
    add("pulumi-api-token", j("pu", "l-", chars(HEX, 40)), j("pu", "l-", chars(HEX, 39)))
    add("postman-api-token", j("PM", "AK-", chars(HEX, 24), "-", chars(HEX, 34)), j("PM", "AK-", chars(HEX, 24), "-", chars(HEX, 30)))
    add("grafana-api-key", j("eyJr", "Ijoi", chars(ALNUM, 80)), j("eyJr", "Ijoi", chars(ALNUM, 60)))
    add("grafana-cloud-api-token", j("gl", "c_", chars(ALNUM + "+/", 40)), j("gl", "c_", chars(ALNUM, 20)))
    add("grafana-service-account-token", j("gl", "sa_", chars(ALNUM, 32), "_", chars(HEX, 8)),
        j("gl", "sa_", chars(ALNUM, 32), "_", chars(HEX, 7)))
    add("sentry-user-token", j("sn", "tryu_", chars(HEX, 64)), j("sn", "tryu_", chars(HEX, 60)))
    add("sentry-org-token", j("sn", "trys_", "eyJpYXQiO", chars(ALNUM, 20), "LCJyZWdpb25fdXJs", chars(ALNUM, 20), "_", chars(ALNUM + "+/", 43)),
        j("sn", "trys_", "eyJpYXQiO", chars(ALNUM, 20), "_", chars(ALNUM, 43)))
    add("stripe-access-token", j("sk", "_live_", chars(ALNUM, 24)), j("sk", "_live_", chars(ALNUM, 8)))
    add("shopify-access-token", j("sh", "pat_", chars(HEX, 32)), j("sh", "pat_", chars(HEX, 31)), after=" \n")
    add("shopify-shared-secret", j("sh", "pss_", chars(HEX, 32)), j("sh", "pss_", "0f" * 16))
    body = "\n".join(chars(ALNUM + "+/", 64) for _ in range(4))
    begin, end = j("-----", "BEGIN RSA PRIVATE", " KEY-----"), j("-----", "END RSA PRIVATE", " KEY-----")
    add("private-key", j(begin, "\n", body, "\n", end), j(begin, "\n", chars(ALNUM, 20), "\n", end), before="")
    return out


SAMPLES = _samples()
