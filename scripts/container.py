"""Build the project's image from its Dockerfile and run it with podman, where no Docker daemon
runs and Docker Hub cannot be reached (this machine: only the docker client, Debian's mirror and
PyPI).

    python scripts/container.py build          # prints the image it built
    python scripts/container.py podman ps -a   # podman on this project's own store
    python scripts/container.py clean          # the store: every container, image and volume

`build` first makes a stand-in for the Dockerfile's base (python:3.11-slim): Debian bookworm,
whose python3 is 3.11, by `mmdebstrap --variant=minbase` from the machine's apt mirror, with
python, pip and venv, imported as localhost/powercontext-base:KEY. KEY hashes how it is made
(packages, mirror, hooks) and the extra CA certificates copied in: it is made again only when
one of those changes. Then `podman build --build-arg BASE=that image` runs the Dockerfile
itself, pip installing from PyPI.

Everything lives in .cache/container/ (git-ignored; POWERCONTEXT_CONTAINER_CACHE moves it):
podman's store with the base, the cached layers and the volumes. Root only; the tools are
Debian packages: `apt-get install -y podman runc mmdebstrap`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# A folder outside the checkout (POWERCONTEXT_CONTAINER_CACHE) lets fresh clones share the base
# and the cached layers.
CACHE = Path(os.environ.get("POWERCONTEXT_CONTAINER_CACHE") or ROOT / ".cache" / "container")
STORE = CACHE / "storage"
IMAGE = "localhost/powercontext-memory:test"
BASE_REPOSITORY = "localhost/powercontext-base"
TOOLS = ("podman", "runc", "mmdebstrap")
INSTALL_HINT = "apt-get install -y podman runc mmdebstrap"
SUITE = "bookworm"  # python3 3.11, the Dockerfile's Python
BASE_PACKAGES = ("python3", "python3-venv", "python3-pip", "python-is-python3", "ca-certificates")
# Certificates this machine trusts beyond Debian's (a TLS-inspecting proxy's): pip in the build
# must trust what pip on the host trusts.
EXTRA_CA_DIR = Path("/usr/local/share/ca-certificates")
# What python:3.11-slim sets; an imported root filesystem has no environment at all.
BASE_ENV = ("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8")
BUILD_TIMEOUT = 1200.0
COMMAND_TIMEOUT = 120.0


class ContainerError(RuntimeError):
    """A step failed: the message says which, with the command's own error output."""


def check_tools() -> None:
    if os.geteuid() != 0:
        raise ContainerError("needs root: rootful podman (overlay storage) and mmdebstrap")
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        raise ContainerError(f"missing {', '.join(missing)}: {INSTALL_HINT}")


def podman_command(*args: str) -> list[str]:
    """podman on the project's own store. Each flag is what works on this kind of machine:
    overlay (the kernel's, as root; vfs copies every layer whole and builds several times
    slower), runc (crun refuses the hybrid cgroup v1/v2 layout: "cgroups in hybrid mode not
    supported"), cgroupfs (no systemd), and the run state in a short path under /tmp (socket
    paths must stay short; the state must not outlive a reboot)."""
    run_state = _run_state()
    return [
        "podman",
        "--root", str(STORE),
        "--runroot", str(run_state),
        "--tmpdir", str(run_state / "libpod"),
        "--storage-driver", "overlay",
        "--runtime", "runc",
        "--cgroup-manager", "cgroupfs",
        "--events-backend", "file",
        *args,
    ]  # fmt: skip


def _run_state() -> Path:
    return Path(tempfile.gettempdir()) / f"powercontext-podman-{_digest(str(STORE))[:12]}"


def podman(*args: str, timeout: float = COMMAND_TIMEOUT) -> str:
    """Run podman; its stdout, or ContainerError with its stderr."""
    command = podman_command(*args)
    try:
        result = subprocess.run(command, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired as error:
        raise ContainerError(f"`podman {' '.join(args)}` took over {timeout:.0f} s") from error
    if result.returncode != 0:
        raise ContainerError(
            f"`podman {' '.join(args)}` exited {result.returncode}:\n"
            + result.stderr.decode(errors="replace").strip()
        )
    return result.stdout.decode(errors="replace")


def run_limits() -> list[str]:
    """`podman run` options for the process limits. Rootful podman raises the open-file and
    process limits to its own defaults, which takes CAP_SYS_RESOURCE, not granted here ("error
    setting rlimit ... operation not permitted"); the container gets this process's limits
    instead, the process limit capped at pid_max (above it the same error)."""
    _, files = resource.getrlimit(resource.RLIMIT_NOFILE)
    _, processes = resource.getrlimit(resource.RLIMIT_NPROC)
    pid_max = int(Path("/proc/sys/kernel/pid_max").read_text())
    processes = pid_max if processes == resource.RLIM_INFINITY else min(processes, pid_max)
    if files == resource.RLIM_INFINITY:
        files = 1 << 20
    return ["--ulimit", f"nofile={files}:{files}", "--ulimit", f"nproc={processes}:{processes}"]


# --- The base: Debian bookworm by mmdebstrap, imported once per key ----------------------------


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def extra_certificates() -> list[Path]:
    return sorted(EXTRA_CA_DIR.glob("*.crt")) if EXTRA_CA_DIR.is_dir() else []


def base_key() -> str:
    """What makes the base: the command, the environment it gets and the certificates' text."""
    parts = [*bootstrap_command(), *BASE_ENV]
    parts += [f"{cert.name}\n{cert.read_text()}" for cert in extra_certificates()]
    return _digest("\0".join(parts))[:16]


def debian_mirror() -> str:
    """The first apt source of the bookworm suite itself (deb822 or one-line format)."""
    sources = Path("/etc/apt/sources.list.d")
    for path in sorted(sources.glob("*.sources")):
        for stanza in re.split(r"\n\s*\n", path.read_text(errors="replace")):
            uris = re.search(r"^URIs:\s*(\S+)", stanza, re.MULTILINE)
            suites = re.search(r"^Suites:(.*)$", stanza, re.MULTILINE)
            if uris and suites and SUITE in suites.group(1).split():
                return uris.group(1)
    for path in [Path("/etc/apt/sources.list"), *sorted(sources.glob("*.list"))]:
        if path.exists():
            for line in path.read_text(errors="replace").splitlines():
                match = re.match(r"deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)", line.strip())
                if match and match.group(2) == SUITE:
                    return match.group(1)
    return "http://deb.debian.org/debian"


def image_exists(image: str) -> bool:
    result = subprocess.run(podman_command("image", "exists", image), capture_output=True)
    return result.returncode == 0


def ensure_base() -> str:
    """localhost/powercontext-base:KEY, made now unless the store already holds it."""
    image = f"{BASE_REPOSITORY}:{base_key()}"
    if not image_exists(image):
        _bootstrap_into(image)
        _remove_other_bases(image)
    return image


def bootstrap_command() -> list[str]:
    """mmdebstrap (debootstrap's successor: one apt and dpkg pass, about half the CPU time) of
    the minimal variant, its root filesystem as a tar on stdout."""
    certs = extra_certificates()
    hooks = [f"copy-in {cert} /usr/local/share/ca-certificates/" for cert in certs]
    hooks += ['chroot "$1" update-ca-certificates'] if certs else []
    hooks += [': > "$1/etc/resolv.conf"']  # podman puts its own there; not the host's
    return [
        "mmdebstrap", "--quiet", "--variant=minbase", f"--include={','.join(BASE_PACKAGES)}",
        *[f"--customize-hook={hook}" for hook in hooks],
        SUITE, "-", debian_mirror(),
    ]  # fmt: skip


def _bootstrap_into(image: str) -> None:
    """`mmdebstrap ... | podman import -`: the root filesystem as a one-layer image."""
    changes = [f"--change=ENV {pair}" for pair in BASE_ENV] + ['--change=CMD ["python3"]']
    with (
        tempfile.TemporaryFile() as log,
        subprocess.Popen(bootstrap_command(), stdout=subprocess.PIPE, stderr=log) as bootstrap,
    ):
        imported = subprocess.run(
            podman_command("import", *changes, "-", image),
            stdin=bootstrap.stdout,
            capture_output=True,
            timeout=BUILD_TIMEOUT,
        )
        if bootstrap.wait() != 0 or imported.returncode != 0:
            log.seek(0)
            detail = log.read().decode(errors="replace")[-3000:]
            detail += imported.stderr.decode(errors="replace")
            raise ContainerError(
                f"making the base failed (mmdebstrap exit {bootstrap.returncode}, podman import "
                f"exit {imported.returncode}):\n{detail.strip()}"
            )


def _remove_other_bases(keep: str) -> None:
    listed = podman("images", "--format", "json", BASE_REPOSITORY)
    for entry in json.loads(listed or "[]"):
        for name in entry.get("Names") or []:
            if name != keep:
                podman("rmi", "--force", name)


# --- The image ----------------------------------------------------------------------------------


def build(tag: str = IMAGE, build_args: tuple[str, ...] = ()) -> str:
    """The Dockerfile built on the local base (layers cached in the store); returns `tag`."""
    check_tools()
    base = ensure_base()
    options = [f"--build-arg={arg}" for arg in (f"BASE={base}", *build_args)]
    podman(
        "build",
        "--isolation=chroot",  # RUN in a chroot on the host's network: no runtime, no cgroups
        "--layers",
        "--format=docker",  # the OCI format drops HEALTHCHECK
        *options,
        f"--tag={tag}",
        f"--file={ROOT / 'Dockerfile'}",
        str(ROOT),
        timeout=BUILD_TIMEOUT,
    )
    podman("image", "prune", "--force")  # layers of earlier builds that nothing uses now
    return tag


@dataclass(frozen=True)
class Container:
    """A container of the store, by name: the podman commands a test needs."""

    name: str

    def exec(self, *command: str) -> str:
        return podman("exec", self.name, *command)

    def inspect(self, template: str) -> str:
        return podman("inspect", "--format", template, self.name).strip()

    def published_port(self, container_port: int) -> int:
        """The host port podman picked for `container_port` (published as 127.0.0.1::PORT)."""
        mapping = podman("port", self.name, f"{container_port}/tcp").split()
        if not mapping:
            raise ContainerError(f"{self.name}: port {container_port} is not published")
        return int(mapping[0].rsplit(":", 1)[1])

    def stop(self) -> None:
        podman("stop", "--time", "20", self.name)

    def start(self) -> None:
        podman("start", self.name)

    def logs(self) -> str:
        """What the container printed on stdout (the startup line) and stderr (the log)."""
        command = podman_command("logs", self.name)
        result = subprocess.run(command, capture_output=True, text=True, timeout=COMMAND_TIMEOUT)
        return result.stdout + result.stderr

    def remove(self) -> None:
        podman("rm", "--force", "--ignore", self.name)


def create_volume(name: str, label: str = "") -> str:
    podman("volume", "create", *([f"--label={label}"] if label else []), name)
    return name


def run_detached(
    image: str, name: str, *, volume: str, ports: tuple[int, ...] = (), label: str = ""
) -> Container:
    """`podman run -d` with a named volume at /data and each port published on 127.0.0.1 at a
    free host port. The HEALTHCHECK's timer needs systemd (podman logs that it has none); the
    check itself runs with `podman healthcheck run NAME`."""
    publish = [f"--publish=127.0.0.1::{port}" for port in ports]
    labels = [f"--label={label}"] if label else []
    podman(
        "run", "--detach", f"--name={name}", *labels, *run_limits(),
        f"--volume={volume}:/data", *publish, image,
    )  # fmt: skip
    return Container(name)


def remove_labelled(label: str) -> None:
    """Containers left by an interrupted run (matched by their label), then their volumes."""
    names = podman("ps", "--all", "--filter", f"label={label}", "--format", "{{.Names}}")
    for name in names.split():
        podman("rm", "--force", "--ignore", name)
    for volume in podman("volume", "ls", "--filter", f"label={label}", "--quiet").split():
        podman("volume", "rm", "--force", volume)


def clean() -> None:
    """Everything in the store, then the folder. Not `podman system reset`: it would also delete
    the machine's podman networks, which every store shares."""
    if STORE.exists():
        podman("rm", "--all", "--force")
        podman("volume", "rm", "--all", "--force")
        podman("rmi", "--all", "--force")
    shutil.rmtree(_run_state(), ignore_errors=True)
    shutil.rmtree(CACHE, ignore_errors=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    build_parser = sub.add_parser("build", help="the image (and its local base when missing)")
    build_parser.add_argument("--tag", default=IMAGE)
    build_parser.add_argument("--build-arg", action="append", default=[], metavar="NAME=VALUE")
    sub.add_parser("base", help="only the local base image")
    sub.add_parser("clean", help="remove the store and the cache")
    podman_parser = sub.add_parser("podman", help="podman with the store's flags")
    podman_parser.add_argument("args", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    try:
        if args.command == "build":
            print(build(args.tag, tuple(args.build_arg)))
        elif args.command == "base":
            check_tools()
            print(ensure_base())
        elif args.command == "clean":
            clean()
        else:
            return subprocess.call(podman_command(*args.args))
    except ContainerError as error:
        print(f"container.py: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
