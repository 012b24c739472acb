"""`python -m powercontext_memory`: see cli.py."""

from .cli import main

raise SystemExit(main())
