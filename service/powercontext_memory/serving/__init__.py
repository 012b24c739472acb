"""Running a server: its frozen configuration (config.py), what it prints once listening
(startup.py), and the run itself (run.py); `powercontext-memory serve`, the tests and the
bench all start servers from a ServeConfig."""
