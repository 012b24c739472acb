"""Embedding models: the port (base.py) and real providers (MiniLM ONNX, OpenAI-compatible HTTP)."""
