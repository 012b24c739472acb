"""The observer port: what the service and its backend report while they work.

Only they know when a commit lands, a compare-and-swap is lost, the database fails or an
embedding call returns, so they report it here; the transport's Prometheus metrics implement
it (transport/metrics.py). The base class does nothing, so the domain runs unobserved by
default and never imports a metrics library. Label values passed here are fixed names from
the code (operations, purposes, outcomes, exception class names), never ids or user text.
"""

from __future__ import annotations

# Operation names of the write paths, as in each revision's lineage.
WRITE_OPERATIONS = ("remember", "forget", "reactivate", "organize")


class ServiceObserver:
    """Subclass and override what you record; every method here is a no-op."""

    def committed(self, operation: str) -> None:
        """A revision committed (`operation` is one of WRITE_OPERATIONS)."""

    def cas_conflict(self, operation: str) -> None:
        """A write was refused because its base revision is not the head (ABORTED)."""

    def database_error(self, backend: str, error: str) -> None:
        """The database driver failed (`error` is the exception's class name)."""

    def snapshot_moved(self, backend: str) -> None:
        """An optimistic read was run again: a commit moved its first answer meanwhile."""

    def embedded(self, purpose: str, outcome: str, seconds: float) -> None:
        """One call to the embedding model: purpose commit|query|rebuild, outcome ok|error."""

    def follow_opened(self) -> None:
        """A Changes follow feed started."""

    def follow_closed(self) -> None:
        """A Changes follow feed ended (however it ended)."""

    def history_page(self, revisions: int) -> None:
        """One page of a history stream (Changes) was read from the database."""


NO_OBSERVER = ServiceObserver()
