"""The HTTP door: every RPC of the gRPC contract over HTTP/JSON (the Connect protocol), for curl
and browsers, and the web console's static files. It translates and forwards each call as a real
gRPC call to the server's private Unix socket, so tokens, limits, request ids, errors and
metrics are the gRPC server's own (docs/http.md)."""
