"""Where a batch's questions run: worker processes on this machine, or Ray tasks.

An engine runs one attempt of one question (:func:`quartet.batch.worker.run_job`) and
returns its outcome, or raises :class:`AttemptFailed` saying why it did not end: the
worker raised (``failed``), was killed (``worker died``) or ran past the time limit
(``timed out``; the worker is then killed). The coordinator decides on retries.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any, Protocol

from subagents.failures import plain_reason

#: The folder holding the ``host`` package, put on the workers' path so that they run
#: the same code as the batch.
ROOT = Path(__file__).resolve().parents[2]


class AttemptFailed(Exception):
    """An attempt that did not end with an outcome.

    Attributes:
        kind: ``failed``, ``worker died`` or ``timed out``.
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message


class Engine(Protocol):
    name: str

    async def start(self) -> None: ...

    def slots(self) -> int: ...

    async def attempt(self, job: dict[str, Any], timeout: float) -> dict[str, Any]: ...

    async def close(self) -> None: ...


def _last_line(text: str, width: int = 300) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return (lines[-1] if lines else "no output")[:width]


class LocalEngine:
    """Worker processes on this machine (``python -m quartet.batch.worker``), each in its own
    process group: Ctrl-C reaches the batch, not the workers.

    A worker runs one question at a time and is kept for the next question when its
    attempt ends well (the imports are paid once per worker, not once per question). A
    worker whose attempt fails, dies or times out is killed with everything it started,
    and the next attempt gets a new one.

    Args:
        logs: folder for each question's worker log (``<n>.log``, appended per attempt).
    """

    name = "local"

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.idle: list[asyncio.subprocess.Process] = []
        self.busy: set[asyncio.subprocess.Process] = set()

    async def start(self) -> None:
        self.logs.mkdir(parents=True, exist_ok=True)

    def slots(self) -> int:
        return max(1, os.cpu_count() or 1)

    async def _worker(self) -> asyncio.subprocess.Process:
        while self.idle:
            proc = self.idle.pop()
            if proc.returncode is None:
                return proc
        env = {**os.environ}
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
        with (self.logs / "workers.log").open("a", encoding="utf-8") as err:
            return await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "quartet.batch.worker",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=err,  # until its first question, whose log it then writes to
                start_new_session=True,
                env=env,
                limit=2**24,
            )

    async def attempt(self, job: dict[str, Any], timeout: float) -> dict[str, Any]:
        log = self.logs / f"{int(job['index']):04d}.log"
        proc = await self._worker()
        assert proc.stdin is not None and proc.stdout is not None
        self.busy.add(proc)
        reply: dict[str, Any] = {}
        try:
            proc.stdin.write(json.dumps({**job, "log": str(log)}, ensure_ascii=False).encode())
            proc.stdin.write(b"\n")
            await proc.stdin.drain()
            async with asyncio.timeout(timeout):
                line = await proc.stdout.readline()
            reply = json.loads(line) if line.strip() else {}
        except TimeoutError:
            raise AttemptFailed("timed out", f"no result after {timeout:g} s") from None
        except (BrokenPipeError, ConnectionResetError):
            pass  # the worker is gone: said below
        finally:
            self.busy.discard(proc)
            if "ok" in reply:
                self.idle.append(proc)
            else:  # what the worker started, and the worker on a timeout or a failure
                await _end(proc)
        if "ok" in reply:
            return reply["ok"]
        if "error" in reply:
            raise AttemptFailed("failed", str(reply["error"]))
        code = proc.returncode
        if code is not None and code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else -code
            raise AttemptFailed("worker died", f"the worker process was killed ({name})")
        text = log.read_text(encoding="utf-8") if log.exists() else ""
        raise AttemptFailed("worker died", f"the worker exited ({code}): {_last_line(text)}")

    async def close(self) -> None:
        for proc in [*self.idle, *self.busy]:
            await _end(proc)
        self.idle.clear()
        self.busy.clear()


async def _end(proc: asyncio.subprocess.Process) -> None:
    """Kill a worker and everything it started; wait for it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    await proc.wait()


def _host(address: str) -> str:
    """The host part of ``HOST:PORT`` or ``ray://HOST:PORT``."""
    return address.split("://", 1)[-1].rpartition(":")[0].strip("[]") or address


def _probe(address: str, timeout: float = 10.0) -> None:
    """Check that something answers at a ``HOST:PORT`` address (Ray itself would keep
    trying for minutes); ConnectionError when nothing does."""
    if "://" in address or ":" not in address:
        return
    try:
        port = int(address.rpartition(":")[2])
        socket.create_connection((_host(address), port), timeout=timeout).close()
    except (OSError, ValueError) as exc:
        raise ConnectionError(f"nothing answers at {address} ({exc})") from None


#: What Ray's token authentication reads: the mode (``token`` or ``disabled``), the token,
#: or a file holding it (else ``~/.ray/auth_token``).
AUTH_MODE, AUTH_TOKEN, AUTH_TOKEN_PATH = "RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"
_SET_TOKEN = f"set {AUTH_TOKEN} to the cluster's token (or {AUTH_TOKEN_PATH} to a file holding it)"


def _token_mode() -> None:
    """A token given in the environment is sent: Ray sends none to an explicit address
    unless ``RAY_AUTH_MODE=token``, so that is the default when a token is set."""
    if os.environ.get(AUTH_TOKEN) or os.environ.get(AUTH_TOKEN_PATH):
        os.environ.setdefault(AUTH_MODE, "token")


def _check_token(address: str, timeout: float = 10.0) -> None:
    """One call to the cluster's control service (GCS) at ``HOST:PORT``, authenticated as
    ``ray.init`` would be, so that a missing or wrong token fails at once instead of after
    Ray's retries. ConnectionError saying which variable to set; the token itself is never
    part of a message. Nothing is checked for ``ray://`` addresses or a Ray without token
    authentication."""
    if "://" in address:
        return
    try:
        import grpc
        from ray._private.grpc_utils import init_grpc_channel
        from ray._raylet import AuthenticationTokenLoader
        from ray.core.generated import gcs_service_pb2, gcs_service_pb2_grpc
        from ray.exceptions import AuthenticationError
    except ImportError:  # a Ray from before token authentication
        return
    try:
        have_token = AuthenticationTokenLoader.instance().has_token(ignore_auth_mode=True)
    except AuthenticationError:  # Ray says so when the file named cannot be read
        raise ConnectionError(
            f"{AUTH_TOKEN_PATH} names a file that cannot be read or is empty: {_SET_TOKEN}"
        ) from None
    if os.environ.get(AUTH_MODE, "").lower() == "token" and not have_token:
        raise ConnectionError(f"{AUTH_MODE} is token but no token was found: {_SET_TOKEN}")
    channel = init_grpc_channel(address)
    try:
        stub = gcs_service_pb2_grpc.NodeInfoGcsServiceStub(channel)
        stub.GetClusterId(gcs_service_pb2.GetClusterIdRequest(), timeout=timeout)
    except grpc.RpcError as exc:
        code = exc.code() if callable(getattr(exc, "code", None)) else None
        if code == grpc.StatusCode.UNAUTHENTICATED:
            if have_token:
                raise ConnectionError(f"the cluster refused the token: {_SET_TOKEN}") from None
            raise ConnectionError(f"the cluster requires a token: {_SET_TOKEN}") from None
        name = f" ({code.name})" if code is not None else ""  # a gRPC status, e.g. UNAVAILABLE
        raise ConnectionError(f"no Ray cluster answers at {address}{name}") from None
    finally:
        channel.close()


class RayEngine:
    """Each attempt is a Ray task (one CPU, no automatic retry: the coordinator retries,
    and a retried question resumes from its checkpoint).

    A cluster with token authentication takes the token from the environment only, as Ray
    does (``RAY_AUTH_TOKEN`` or ``RAY_AUTH_TOKEN_PATH``); it is never sent with a task nor
    written anywhere.

    Args:
        address: a running cluster (``ray://…`` or ``HOST:PORT``); None starts a local
            one, listening on 127.0.0.1 only, for the length of the batch.
    """

    name = "ray"

    def __init__(self, address: str | None) -> None:
        self.address = address
        self._remote: Any = None
        self._cpus = 1
        self._checked = False

    def prepare(self) -> None:
        """Before anything imports Ray (agentscope does): a local cluster, or one on a
        loopback address, keeps every Ray service on 127.0.0.1 (and the address is not
        rewritten to this machine's network address); a token in the environment turns on
        token authentication. Ray reads both when imported."""
        if not self.address or _host(self.address) in ("127.0.0.1", "localhost", "::1"):
            os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        if self.address:
            _token_mode()

    def check(self) -> None:
        """That the cluster at ``address`` answers and takes this batch's token, in a few
        seconds at most; ConnectionError saying what is wrong. Nothing for a local one."""
        if self.address and not self._checked:
            self.prepare()
            _probe(self.address)
            _check_token(self.address)
            self._checked = True

    async def start(self) -> None:
        self.prepare()
        self.check()
        import ray
        from ray import exceptions as rex

        from .worker import run_job

        # Blocking, in the main thread, so that Ray can set its signal handlers.
        logging.getLogger("ray").setLevel(logging.ERROR)
        try:
            if self.address:
                ray.init(address=self.address, logging_level=logging.ERROR, log_to_driver=False)
            else:
                ray.init(include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
        except rex.AuthenticationError:  # its text runs to several sentences
            raise ConnectionError(f"Ray's token authentication failed: {_SET_TOKEN}") from None
        self._cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        self._remote = ray.remote(num_cpus=1, max_retries=0)(run_job)

    def slots(self) -> int:
        return self._cpus

    async def attempt(self, job: dict[str, Any], timeout: float) -> dict[str, Any]:
        import ray
        from ray import exceptions as rex

        ref = self._remote.remote(job)
        try:
            async with asyncio.timeout(timeout):
                return await asyncio.wrap_future(ref.future())
        except TimeoutError:
            ray.cancel(ref, force=True)
            await asyncio.to_thread(ray.wait, [ref], timeout=120)
            raise AttemptFailed("timed out", f"no result after {timeout:g} s") from None
        except asyncio.CancelledError:
            ray.cancel(ref, force=True)
            raise
        except (rex.WorkerCrashedError, rex.NodeDiedError, rex.TaskCancelledError) as exc:
            raise AttemptFailed("worker died", _last_line(str(exc))) from None
        except rex.RayTaskError as exc:
            cause = exc.cause if isinstance(exc.cause, BaseException) else exc
            raise AttemptFailed("failed", plain_reason(cause)[:300]) from None
        except rex.RayError as exc:
            raise AttemptFailed("failed", _last_line(str(exc))) from None

    async def close(self) -> None:
        import ray

        ray.shutdown()
