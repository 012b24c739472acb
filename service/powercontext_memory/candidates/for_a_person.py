"""Commands meant for a person at the machine, not for an agent running tasks unattended: they
open a viewer or an interactive UI for someone to look at (`open`, `xdg-open`, `$(BROWSER)`,
`webbrowser`, `cypress open`), pipe a download into a shell, or (un)install system packages to
provision the machine (CI, a hosting platform, a Homebrew formula's test).
"""

from __future__ import annotations

import re
from typing import Final

_STATEMENT_START: Final = r"(?:^|[;&|(]\s*)"
FOR_A_PERSON: Final = re.compile(
    _STATEMENT_START + r"(?:open|xdg-open)\s|\$[({]BROWSER[)}]|\bwebbrowser\b|"
    r"\bcypress\s+open\b|"
    r"\b(?:curl|wget)\b[^|;&]*\|\s*(?:sudo\s+)?(?:ba|z)?sh\b|"
    + _STATEMENT_START
    + r"(?:sudo\s+)?(?:brew|apt|apt-get|dnf|yum|pacman|port|choco|winget)\s+"
    r"(?:-\S+\s+)*(?:un)?install\b"
)


def for_a_person(line: str) -> bool:
    """The command line opens a viewer or an interactive UI, or provisions the machine."""
    return bool(FOR_A_PERSON.search(line))
