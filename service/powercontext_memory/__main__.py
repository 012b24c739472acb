"""`python -m powercontext_memory`: see cli/."""

from .cli import main

raise SystemExit(main())
