"""A throwaway PostgreSQL server on 127.0.0.1 for the store's tests and benches.

:func:`start_server` runs ``initdb`` into a new temporary folder and ``pg_ctl start``
on a free port, with password authentication over TCP; :meth:`PostgresServer.stop`
stops it and removes the folder. The binaries are Debian's (``/usr/lib/postgresql/*/bin``,
installed by ``scripts/setup.sh``). PostgreSQL refuses to run as root: as root, the
server runs as the ``postgres`` user the Debian package creates, through ``runuser``.
"""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ports import free_port

#: The superuser the server is made with, and its database.
ADMIN = "quartet"
#: The account the server runs as when the tests run as root.
SERVER_ACCOUNT = "postgres"
#: Seconds ``pg_ctl`` waits for the server to start or stop.
WAIT = 60


class ServerUnavailable(RuntimeError):
    """No PostgreSQL server can be started here; the message says why and what to do."""


def server_binaries() -> Path:
    """The folder of ``initdb``, ``pg_ctl`` and ``postgres``: the newest Debian version.

    Raises:
        ServerUnavailable: PostgreSQL's server binaries are not installed.
    """
    found = glob.glob("/usr/lib/postgresql/*/bin/initdb")
    if found:
        newest = max(found, key=lambda p: int(Path(p).parent.parent.name.split(".")[0]))
        return Path(newest).parent
    on_path = shutil.which("initdb")
    if on_path:
        return Path(on_path).parent
    raise ServerUnavailable(
        "PostgreSQL's server binaries (initdb, pg_ctl) are not installed, so the store's "
        "tests on PostgreSQL cannot start a server: run scripts/setup.sh (it installs "
        "Debian's postgresql package) or apt-get install postgresql."
    )


def _as_server() -> list[str]:
    """The prefix that runs a command as the server's account (none when not root).

    Raises:
        ServerUnavailable: running as root and the ``postgres`` account is missing.
    """
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam(SERVER_ACCOUNT)
    except KeyError:
        raise ServerUnavailable(
            f"the tests run as root and there is no {SERVER_ACCOUNT!r} account to run "
            "PostgreSQL as (Debian's postgresql package creates it)"
        ) from None
    return ["runuser", "-u", SERVER_ACCOUNT, "--"]


def _run(args: list[str], cwd: Path, what: str) -> None:
    """Run a server command; a failure is ServerUnavailable with its output."""
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=WAIT + 30)
    if proc.returncode != 0:
        raise ServerUnavailable(f"{what} failed ({proc.returncode}): {proc.stderr[-2000:]}")


@dataclass
class PostgresServer:
    """A running throwaway server: its folder, port and superuser's password."""

    base: Path
    bin_dir: Path
    port: int
    password: str
    prefix: list[str] = field(default_factory=list)
    _databases: int = 0

    def url(self, database: str = ADMIN) -> str:
        """The ``postgresql://`` URL of ``database`` on this server, password included."""
        return f"postgresql://{ADMIN}:{self.password}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A new empty database; its URL."""
        import psycopg

        self._databases += 1
        name = f"store_{self._databases}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        """Stop the server at once and remove its folder."""
        try:
            pg_ctl = str(self.bin_dir / "pg_ctl")
            args = [*self.prefix, pg_ctl, "-D", str(self.base / "data"), "-m", "immediate"]
            subprocess.run([*args, "-w", "stop"], cwd=self.base, capture_output=True, timeout=WAIT)
        finally:
            shutil.rmtree(self.base, ignore_errors=True)


def _init(base: Path, bin_dir: Path, prefix: list[str], password: str) -> None:
    """``initdb`` a cluster into ``base/data``: trust on its socket, passwords over TCP."""
    pwfile = base / "pw"
    pwfile.write_text(password + "\n", encoding="utf-8")
    if prefix:
        shutil.chown(pwfile, SERVER_ACCOUNT)
    args = [str(bin_dir / "initdb"), "-D", str(base / "data"), "-U", ADMIN, f"--pwfile={pwfile}"]
    args += ["--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-locale"]
    _run([*prefix, *args, "--no-sync"], base, "initdb")
    pwfile.unlink()


def start_server() -> PostgresServer:
    """Start a new server on 127.0.0.1 with a database named ``quartet``.

    Raises:
        ServerUnavailable: the binaries are missing or the server would not start.
    """
    bin_dir, prefix = server_binaries(), _as_server()
    base = Path(tempfile.mkdtemp(prefix="quartet-pg-"))
    if prefix:
        shutil.chown(base, SERVER_ACCOUNT)
    server = PostgresServer(base, bin_dir, free_port(), secrets.token_urlsafe(12), prefix)
    try:
        _init(base, bin_dir, prefix, server.password)
        options = f"-h 127.0.0.1 -p {server.port} -k {base} -F -c max_connections=50"
        pg_ctl = [str(bin_dir / "pg_ctl"), "-D", str(base / "data"), "-l", str(base / "log")]
        _run([*prefix, *pg_ctl, "-o", options, "-w", "-t", str(WAIT), "start"], base, "pg_ctl")
        with_db = [str(bin_dir / "createdb"), "-h", str(base), "-p", str(server.port)]
        _run([*prefix, *with_db, "-U", ADMIN, ADMIN], base, "createdb")
    except BaseException:
        server.stop()
        raise
    return server
