"""The versions `powercontext doctor` calls tested are exactly the ones this suite pins."""

from __future__ import annotations

from powercontext_client.runtime.host_checks import TESTED_VERSIONS

from .pins import pins


def test_doctor_knows_the_pinned_versions() -> None:
    assert sorted(p.version for p in pins("claude-code")) == sorted(TESTED_VERSIONS["claude"])
    assert sorted(p.version for p in pins("codex")) == sorted(TESTED_VERSIONS["codex"])
    assert sorted(p.version for p in pins("gemini-cli")) == sorted(TESTED_VERSIONS["gemini"])
