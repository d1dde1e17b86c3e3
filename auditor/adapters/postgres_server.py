"""A throwaway PostgreSQL server for audits and tests of database-backed DP systems.

:func:`temporary_postgres` runs Debian's ``postgresql`` binaries (``initdb``, ``pg_ctl``) on a
data directory of its own in a temporary folder, listening on a Unix socket in that folder and
on no TCP address, and stops it and deletes the folder on exit.  Nothing is mocked: the
SmartNoise SQL adapters' PostgreSQL variants send their queries to this server.

Runs as root too (Debian's CI and development machines): ``initdb`` refuses root, so the
server's processes are then run as the unprivileged ``postgres`` account that Debian's package
creates, with the folder handed to it.

Only the binaries are needed (``apt-get install -y postgresql``), not a running service.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PostgresServer", "find_postgres_bin", "temporary_postgres"]

#: where Debian's packages put the server binaries (newest version first)
_DEBIAN_ROOT = Path("/usr/lib/postgresql")


@dataclass(frozen=True)
class PostgresServer:
    """A running server: connect with :attr:`dsn` (a libpq connection string)."""

    socket_dir: str
    port: int
    user: str
    database: str = "postgres"

    @property
    def dsn(self) -> str:
        """``host=<socket dir> port=<port> user=<user> dbname=postgres``: no password, the
        socket is reachable only through the temporary folder."""
        return f"host={self.socket_dir} port={self.port} user={self.user} dbname={self.database}"


def find_postgres_bin() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``: ``$PG_BIN`` if set, else the newest
    ``/usr/lib/postgresql/<version>/bin``, else the folder of ``initdb`` on ``PATH``; None
    when the server is not installed."""
    candidates: list[Path] = []
    if os.environ.get("PG_BIN"):
        candidates.append(Path(os.environ["PG_BIN"]))
    if _DEBIAN_ROOT.is_dir():
        versions = [p for p in _DEBIAN_ROOT.iterdir() if p.name.replace(".", "").isdigit()]
        versions.sort(key=lambda p: float(p.name), reverse=True)
        candidates += [p / "bin" for p in versions]
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).parent)
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    return None


def _free_port() -> int:
    """A port number no local TCP listener holds now: the server listens on a Unix socket
    only, but the port names the socket file (``.s.PGSQL.<port>``)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _runner(folder: Path) -> tuple[list[str], str]:
    """The command prefix that runs the server's binaries, and the database superuser: as
    root, through ``runuser`` as Debian's ``postgres`` account (``initdb`` refuses root)."""
    if os.geteuid() != 0:
        return [], pwd.getpwuid(os.geteuid()).pw_name
    try:
        account = pwd.getpwnam("postgres")
    except KeyError:
        raise RuntimeError(
            "running as root needs the 'postgres' account (Debian's postgresql package makes it)"
        ) from None
    os.chown(folder, account.pw_uid, account.pw_gid)
    return ["runuser", "-u", "postgres", "--"], "postgres"


@contextlib.contextmanager
def temporary_postgres(
    bin_dir: Path | None = None, timeout: float = 60.0
) -> Iterator[PostgresServer]:
    """Start a fresh server in a temporary data directory; stop it and delete everything on exit.

    Raises:
        FileNotFoundError: no server binaries (install Debian's ``postgresql``).
        RuntimeError: ``initdb`` or ``pg_ctl start`` failed (its output in the message).
    """
    bin_dir = bin_dir or find_postgres_bin()
    if bin_dir is None:
        raise FileNotFoundError(
            "PostgreSQL server binaries not found (apt-get install -y postgresql, or set PG_BIN)"
        )
    folder = Path(tempfile.mkdtemp(prefix="dp-audit-pg-"))
    data, log = folder / "data", folder / "server.log"
    prefix, user = _runner(folder)
    port = _free_port()

    def run(*args: str) -> None:
        done = subprocess.run(
            [*prefix, *args], capture_output=True, text=True, timeout=timeout, check=False
        )
        if done.returncode != 0:
            tail = (done.stdout + done.stderr).strip()[-2000:]
            raise RuntimeError(f"{Path(args[0]).name} failed ({done.returncode}): {tail}")

    started = False
    try:
        run(str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", user, "--no-sync")
        # no TCP listener; the socket lives in the temporary folder; fsync off: throwaway data
        options = f"-c listen_addresses='' -c unix_socket_directories={folder} -p {port} -F"
        started = True
        run(str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", options, "-w", "start")
        yield PostgresServer(socket_dir=str(folder), port=port, user=user)
    finally:
        if started:
            with contextlib.suppress(Exception):
                run(str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop")
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    """``python -m auditor.adapters.postgres_server COMMAND …``: run COMMAND with a fresh
    server, its DSN in ``$DP_AUDIT_POSTGRES_DSN``; the server is stopped when COMMAND ends.
    Returns COMMAND's exit code (2 when no command is given)."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    if not args:
        print(
            "usage: python -m auditor.adapters.postgres_server COMMAND [ARGS...]", file=sys.stderr
        )
        return 2
    with temporary_postgres() as server:
        env = dict(os.environ, DP_AUDIT_POSTGRES_DSN=server.dsn)
        print(f"PostgreSQL server at {server.dsn}", file=sys.stderr)
        return subprocess.run(args, env=env, check=False).returncode


if __name__ == "__main__":
    raise SystemExit(main())
