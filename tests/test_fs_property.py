"""Property: no generated path ever reads, lists or writes outside the granted roots,
and every refusal leaves the whole tree byte-for-byte unchanged.

Run with more examples: QUARTET_PROPERTY_EXAMPLES=50000 pytest tests/test_fs_property.py
"""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fs_service import (
    ALL_OPS,
    READ_OPS,
    DiskFileSystem,
    FileDomainService,
    FsError,
    MemoryFileSystem,
)

EXAMPLES = int(os.environ.get("QUARTET_PROPERTY_EXAMPLES", "4000"))
SECRET = b"OUTSIDE-SECRET-7f3a"
INTERNAL = b"INTERNAL-ONLY-91c2"
PAYLOAD = b"written-by-property-test"

# Segments an attacker would try, mixed with ordinary names and planted links.
NASTY_SEGMENTS = [
    "..",
    ".",
    "",
    "...",
    "%2e%2e",
    "%2E%2E",
    "%2e",
    "..%2f",
    "%2f",
    "%5c",
    "%00",
    "..\\..",
    "\\",
    "a\x00b",
    "\x00",
    "\n",
    "\r",
    "\t",
    "\x7f",
    "\u200b",
    "\u202e",
    "\uff0e\uff0e",
    "\uff0f",
    "\u2215",
    "\u2044",
    "\uff3c",
    "\u2024\u2024",
    "\u2025",
    "\ufe52\ufe52",
    "\uff0e",
    "．．",
    "..／",
    " ..",
    ".. ",
    "~",
    "~root",
    "dirlink",
    "filelink",
    "inlink",
    "secret.txt",
    "ok.txt",
    "sub",
    "报告.md",
    "a",
    "outside",
    "internal",
    "transcript.jsonl",
    "run",
    "input",
    "workspace",
    "userinput",
    "MARKER-BASE",
    "MARKER-RUN",
]
PREFIXES = [
    "/workspace/",
    "/userinput/",
    "/internal/",
    "/",
    "",
    "workspace/",
    "//workspace/",
    "/workspace",
    "/etc/",
    "/proc/self/",
    "\\workspace\\",
    "file:///workspace/",
    "/workspace/sub/",
    "/userinput/inlink/",
    "/workspace/dirlink/",
]
OPS_TRIED = [
    "list_dir",
    "stat",
    "exists",
    "read_bytes",
    "read_text",
    "search",
    "walk_files",
    "write_bytes",
    "delete",
]

segment = st.one_of(
    st.sampled_from(NASTY_SEGMENTS),
    st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=6),
)


@st.composite
def paths(draw, outside: str) -> str:
    prefix = draw(st.sampled_from([*PREFIXES, outside + "/", outside + "/../"]))
    parts = draw(st.lists(segment, min_size=0, max_size=5))
    sep = draw(st.sampled_from(["/", "/", "/", "\\", "//", "%2f"]))
    tail = draw(st.sampled_from(["", "", "/"]))
    return prefix + sep.join(parts) + tail


def snapshot(base: Path) -> dict[str, object]:
    """Every file, folder and link below ``base`` with its bytes or target (read with
    plain strings: it is taken twice for each example)."""
    out: dict[str, object] = {}
    root = str(base)
    cut = len(root) + 1
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            rel = full[cut:]
            if os.path.islink(full):
                out[rel] = ("link", os.readlink(full))
            elif os.path.isdir(full):
                out[rel] = ("dir",)
            else:
                with open(full, "rb") as f:
                    out[rel] = ("file", f.read())
    return out


def build_tree(base: Path) -> FileDomainService:
    if base.exists():
        shutil.rmtree(base)
    outside, run, inp = base / "outside", base / "run", base / "input"
    for d in (outside, run / "workspace" / "sub", run / "internal", inp):
        d.mkdir(parents=True)
    (outside / "secret.txt").write_bytes(SECRET)
    (run / "internal" / "transcript.jsonl").write_bytes(INTERNAL)
    (base / "MARKER-BASE").write_bytes(SECRET)
    (run / "MARKER-RUN").write_bytes(INTERNAL)
    (run / "workspace" / "ok.txt").write_bytes(b"ok")
    (run / "workspace" / "sub" / "ok.txt").write_bytes(b"ok")
    (inp / "ok.txt").write_bytes(b"input")
    os.symlink(outside, run / "workspace" / "dirlink")
    os.symlink(outside / "secret.txt", run / "workspace" / "filelink")
    os.symlink(outside, run / "workspace" / "sub" / "dirlink")
    os.symlink(outside, inp / "inlink")
    os.symlink(run / "internal", inp / "internal")
    fs = DiskFileSystem(run, mounts={"/userinput/": inp})
    return FileDomainService(
        fs.create_handle(
            [
                {"prefix": "/workspace/", "ops": set(ALL_OPS)},
                {"prefix": "/userinput/", "ops": set(READ_OPS)},
            ]
        )
    )


PLANTED_LINKS = ("run/workspace/dirlink", "run/workspace/filelink", "run/workspace/sub/dirlink")


async def attempt(svc: FileDomainService, op: str, path: str) -> object:
    if op == "write_bytes":
        return await svc.write_bytes(path, PAYLOAD)
    if op == "search":
        return await svc.search(path, "SECRET|INTERNAL")
    return await getattr(svc, op)(path)


def leaked(result: object, path: str) -> bool:
    """Whether ``result`` shows outside content, or an outside name the request did not use.

    A granted path may itself be named like an outside file (``/workspace/secret.txt``);
    the result then echoes that name, which is not a leak.
    """
    text = repr(result).encode("utf-8", "backslashreplace")
    asked = path.encode("utf-8", "backslashreplace")
    if SECRET in text or INTERNAL in text:
        return True
    names = (b"secret.txt", b"MARKER-", b"transcript.jsonl")
    return any(m in text and m not in asked for m in names)


@pytest.fixture(scope="module")
def loop():
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


@pytest.fixture(scope="module")
def world(tmp_path_factory, loop):
    """The planted tree, its service, its snapshot, and whether the tree was last seen
    as planted (an example that found it so leaves the next one nothing to check)."""
    base = tmp_path_factory.mktemp("prop")
    svc = build_tree(base)
    return base, svc, snapshot(base), {"pristine": True}


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None,
)
@given(data=st.data())
def test_no_path_escapes_the_grants(world, loop, data):
    base, svc, pristine, seen = world
    path = data.draw(paths(str(base / "outside")), label="path")
    op = data.draw(st.sampled_from(OPS_TRIED), label="op")
    before = pristine if seen["pristine"] else snapshot(base)
    assert before == pristine
    seen["pristine"] = False  # until this example's snapshot after the attempt says so
    try:
        result = loop.run_until_complete(attempt(svc, op, path))
    except FsError as exc:
        assert str(exc).startswith("Error:"), str(exc)
        assert snapshot(base) == before, f"refused {op} {path!r} changed the tree"
        seen["pristine"] = True
        return
    assert not leaked(result, path), f"{op} {path!r} returned outside data: {result!r}"
    after = snapshot(base)
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    for rel in changed:
        assert rel.startswith("run/workspace/"), f"{op} {path!r} changed {rel}"
        # never a planted link nor anything through one; a new file or folder may be
        # named like one ("sub/x/filelink" is a fresh folder, not the planted link)
        assert not any(rel == link or rel.startswith(link + "/") for link in PLANTED_LINKS), (
            f"{op} {path!r} changed {rel}"
        )
        real = os.path.realpath(base / rel)
        assert real.startswith(str((base / "run" / "workspace").resolve()))
    if op == "write_bytes":
        assert svc.check(path, "write") == path
    # undo an allowed write or delete so later examples see the planted tree
    if after != pristine:
        build_tree(base)
        svc.handle.backend.__init__(base / "run", mounts={"/userinput/": base / "input"})
    else:
        seen["pristine"] = True


@settings(
    max_examples=max(EXAMPLES // 5, 100),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_memory_backend_keeps_to_its_grants(loop, data):
    fs = MemoryFileSystem()
    svc = FileDomainService(
        fs.create_handle(
            [
                {"prefix": "/workspace/", "ops": set(ALL_OPS)},
                {"prefix": "/userinput/", "ops": set(READ_OPS)},
            ]
        )
    )
    fs._files["/internal/t.jsonl"] = (INTERNAL, 0.0)
    fs._files["/userinput/ok.txt"] = (b"input", 0.0)
    path = data.draw(paths("/outside"), label="path")
    op = data.draw(st.sampled_from(OPS_TRIED), label="op")
    before = dict(fs._files)
    try:
        result = loop.run_until_complete(attempt(svc, op, path))
    except FsError:
        assert fs._files == before
        return
    assert not leaked(result, path)
    for key in fs._files.keys() - before.keys():
        assert key.startswith("/workspace/")
    assert fs._files["/internal/t.jsonl"] == before["/internal/t.jsonl"]
    assert fs._files["/userinput/ok.txt"] == before["/userinput/ok.txt"]
