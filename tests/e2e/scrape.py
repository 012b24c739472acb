"""Scrape a metrics endpoint over real HTTP and read samples out of the text format."""

from __future__ import annotations

import asyncio
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass

from prometheus_client.parser import text_string_to_metric_families

SETTLE_TIMEOUT = 10.0


@dataclass(frozen=True)
class Scrape:
    text: str

    def value(self, name: str, **labels: str) -> float:
        """The sum of the samples called `name` whose labels include `labels` (0 if none)."""
        total = 0.0
        for family in text_string_to_metric_families(self.text):
            for sample in family.samples:
                if sample.name == name and labels.items() <= sample.labels.items():
                    total += sample.value
        return total


def scrape_now(port: int, host: str = "127.0.0.1") -> Scrape:
    with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=10) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain")
        return Scrape(response.read().decode())


async def scrape(port: int) -> Scrape:
    return await asyncio.to_thread(scrape_now, port)


async def scrape_until(port: int, settled: Callable[[Scrape], bool]) -> Scrape:
    """Scrape until `settled` holds. A call is counted as it ends on the server, which may be
    just after its client has the status (an abort sends it first), so the last counts can
    trail by a moment; give up after SETTLE_TIMEOUT and return the last scrape."""
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while True:
        scraped = await scrape(port)
        if settled(scraped) or time.monotonic() > deadline:
            return scraped
        await asyncio.sleep(0.02)
