"""What a rules file says that is no rule for an agent working in the repository: governance
(issue and pull-request intake, licensing, conduct, releases, community, and everything under
such a heading), a person's setup of a checkout or a machine (cloning, forking, adding a remote,
installing system packages or a tool from its website), the maintainers speaking of themselves
("We welcome …") or reassuring a person ("Don't be discouraged …"), and advice to bypass the
project's checks (`git push --no-verify`; forbidding it is a rule).
"""

from __future__ import annotations

import re
from typing import Final

from .commands import commands
from .modality import CONSTRAINT_EN

GOVERNANCE: Final = re.compile(
    r"code of conduct|\blicen[cs]e[ds]?\b|\bCLA\b|issue tracker|\b(?:open|file|create|submit) an "
    r"issue|corresponding issue|linked issue|an issue first|in an issue|comment on the issue|"
    r"maintainers?'?s? (?:discretion|feedback|input)|will be (?:closed|rejected)|get closed|"
    r"be rejected|banned|release draft|publish (?:a |the )?release|donat|sponsor|discord|twitter|"
    r"stack overflow|spread the word|"
    # pull-request intake: what is welcome, which issue a PR must reference, auto-closing
    r"\b(?:are|is) (?:always |very |more than |also )?welcome\b|\bwelcome as\b|"
    r"\b(?:reference|link) (?:to )?(?:a |an |the )?(?:tracked |existing |open )?issue\b|"
    r"\bauto-?clos|\byou(?:'re| are) assigned\b|\bassigned to you\b",
    re.IGNORECASE,
)
# A heading about releasing *and* building (a "build and release guide") is not governance.
_WORK_HEADING: Final = re.compile(r"build|test|develop|setup|install|workflow|local", re.I)
# Commands that set up a person's checkout or machine, never run by an agent working in one:
# cloning, adding a remote, installing system packages, putting credentials in the environment.
SETUP_COMMAND: Final = re.compile(
    r"\bgit clone\b|\bgit remote add\b|\bsudo\s|"
    r"\b(?:apt|apt-get|brew|dnf|yum|pacman|choco|winget)\s+install\b|"
    r"\bexport\s+\w*(?:KEY|TOKEN|SECRET|PASSWORD|PAT)\w*=",
    re.IGNORECASE,
)
# Steps for a person setting up a checkout, never for an agent working in one.
HUMAN_SETUP: Final = re.compile(
    SETUP_COMMAND.pattern + r"|\byour fork\b|\bfork the\b|"
    r"\b(?:have|has|is|are|was|were)\s+(?:\S+\s+){0,2}installed\b|"
    r"^install \[[^\]]+\]\([^)]*\)\W*$",  # a tool installed from its website
    re.IGNORECASE,
)
GOVERNANCE_HEADING: Final = re.compile(
    r"code of conduct|licen[cs]e|releas|publish|community|support|getting help|report(?:ing)? "
    r"(?:a )?(?:bug|issue)|troubleshoot|faq|acknowledg|credits|sponsor|donat|governance|"
    r"what gets rejected|before you start|finding issues|become a maintainer|"
    r"\bclose\b|without review",
    re.IGNORECASE,
)
_MAINTAINER_VOICE: Final = re.compile(r"^(?:we|our|i|thank|thanks)\b", re.IGNORECASE)
# Reassurance for a person, not an instruction: "Don't be discouraged if a reviewer asks …".
_REASSURANCE: Final = re.compile(
    r"^(?:please\s+)?(?:don't|do not)\s+(?:be\s+(?:discouraged|afraid|shy|intimidated|"
    r"worried)|hesitate|worry)\b",
    re.IGNORECASE,
)
# How a person bypasses the project's checks (`git push --no-verify`): never advice for an
# agent, though forbidding it ("Never skip pre-commit hooks (`--no-verify`)") is a rule.
_BYPASS: Final = re.compile(r"--no-verify\b|\bgit\s+commit\s+-n\b")


def refused(plain: str) -> bool:
    """Governance, a person's setup step, the maintainers speaking of themselves or reassuring a
    person, or advice to bypass the project's checks."""
    if GOVERNANCE.search(plain) and not commands(plain) or HUMAN_SETUP.search(plain):
        return True
    if _REASSURANCE.match(plain) or (_BYPASS.search(plain) and not CONSTRAINT_EN.search(plain)):
        return True
    return bool(_MAINTAINER_VOICE.match(plain)) and not commands(plain)


def governance_heading(heading: str) -> bool:
    """A heading over governance text (a \"build and release\" heading is work, not governance)."""
    return bool(GOVERNANCE_HEADING.search(heading)) and not _WORK_HEADING.search(heading)
