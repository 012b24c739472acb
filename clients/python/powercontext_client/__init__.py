"""Python client for PowerContext Memory."""
