"""docs/http.md's curl examples, run as written: every ```bash block of its `http` section, in
order, as one `bash -euo pipefail` script in a fresh directory (the repository's `.venv` linked
in), with 50051 and 50080 replaced by free ports. The `serve` block runs in the background, as
in "another terminal", until the script ends. A bash block followed by a plain ``` block must
print exactly that, where `…` stands for any text (ids, hashes, scores).

No curl example of the page lives outside that section: each one is run here.
"""

from __future__ import annotations

from pathlib import Path

from tests.doc_blocks import (
    ROOT,
    bash_with_output,
    doc,
    elided_match,
    fenced,
    marked_script,
    run_bash,
    section,
    split_marked,
)

from ..doc_blocks import STOP_SERVER, free_port, in_background
from ..serving import server_env

DOC = "docs/http.md"
LABEL = "http"
SERVE = "powercontext-memory serve"


def test_the_curl_examples_run_as_written(tmp_path: Path) -> None:
    steps = bash_with_output(section(DOC, LABEL))
    assert sum(SERVE in step.script for step in steps) == 1, "one serve block"
    grpc_port, http_port = free_port(), free_port()
    bodies = []
    for step in steps:
        body = step.script.replace("50051", str(grpc_port)).replace("50080", str(http_port))
        bodies.append(in_background(body) if SERVE in body else body)
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    done = run_bash(
        marked_script(bodies, LABEL, prelude=STOP_SERVER),
        tmp_path / "http.sh",
        cwd=tmp_path,
        env=server_env(),
        timeout=180.0,
        merge_stderr=True,
    )
    log = (tmp_path / "serve.log").read_text(encoding="utf-8")
    assert done.returncode == 0, f"the examples failed:\n{done.stdout}\n--- server\n{log}"
    assert f"http: http://127.0.0.1:{http_port}/" in log
    outputs = split_marked(done.stdout, LABEL, len(steps))
    for step, output in zip(steps, outputs, strict=True):
        if step.expected is not None:
            assert elided_match(step.expected, output), (
                f"{step.script}\n--- {DOC} shows\n{step.expected}--- it printed\n{output}"
            )


def test_every_curl_example_of_the_page_is_in_the_run_section() -> None:
    text = doc(DOC).read_text(encoding="utf-8")
    outside = text.replace(section(DOC, LABEL), "")
    assert not [block for block in fenced(outside) if "curl" in block.body]


def test_the_output_comparison_can_fail() -> None:
    shown = 'message {"revision":{"memoryRef":{"artifactId":"mem_art_…","revision":"1"},…}}\n'
    assert elided_match(shown, shown.replace("…", "0f3a", 1).replace("…", '"x":1'))
    assert not elided_match(shown, shown.replace('"1"', '"2"'))
