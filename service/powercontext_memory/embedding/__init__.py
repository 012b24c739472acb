"""Embedding models: the port (port.py) and real providers (USE-multilingual and MiniLM, both
local and offline; an OpenAI-compatible HTTP endpoint)."""
