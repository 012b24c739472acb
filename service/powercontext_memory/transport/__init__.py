"""gRPC transport: wire <-> domain conversion, error mapping, the servicer and the server."""
