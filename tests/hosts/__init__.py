"""The real-host suite (docs/hosts-testing.md)."""

import pytest

# The shared checks assert in these helper modules: rewritten like a test's, a failing one
# shows the values it compared.
for _module in ("expectations", "fail_open"):
    pytest.register_assert_rewrite(f"{__name__}.{_module}")
