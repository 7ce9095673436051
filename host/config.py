"""Settings: CLI flags, then environment variables, then an optional ``quartet.toml``.

Every key ``quartet.toml`` may hold is listed in :data:`TOML_KEYS`; any other key is an
error that names it and suggests the nearest valid one. ``quartet.example.toml`` at the
repository root shows them all with their defaults.
"""

from __future__ import annotations

import contextlib
import difflib
import math
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from fs_service.backends.store_engine import StoreURL, is_store_url
from subagents.names import PIPELINE_ORDER
from subagents.secrets import secret_values
from subagents.settings import SettingsError, ToolSettings, parse_switch
from subagents.skills import SKILL_FILE, load_skill

from .brains.access import ModelAccess
from .brains.ledger import PRICE_FIELDS, ModelPrice
from .brains.limits import DEFAULT_MODEL_ATTEMPTS, DEFAULT_MODEL_TIMEOUT

FORMATS = ("md", "html", "pdf", "pptx")

#: Tool calls a subagent may make in one delegation (the call past it is refused).
DEFAULT_TOOL_CALL_CAP = 80
#: How deep delegations may nest.
DEFAULT_DEPTH_CAP = 3

#: In :data:`TOML_KEYS`, a table key standing for any name the user chooses.
ANY = "*"

#: Every key of ``quartet.toml``. A value is ``None`` for a plain value, a dict for a
#: table (its keys, or :data:`ANY`), and a one-item list for an array of tables.
TOML_KEYS: dict[str, Any] = {
    "quartet": {
        "model": None,
        "model_timeout": None,
        "model_attempts": None,
        "formats": None,
        "runs_dir": None,
        "input": None,
        "max_rounds": None,
        "max_pages": None,
        "concurrency": None,
        "tool_call_cap": None,
        "depth_cap": None,
        "stage_timeout": None,
        "history_chars": None,
        "max_tokens": None,
        "max_cost": None,
        "spreadsheet_formulas": None,
        "experience": None,
        "store": None,
        "project": None,
        "cache_fresh": None,
        "cache_max_mb": None,
        "page_cache": None,
        "glossary": [{"same": None, "related": None}],
        "skills": dict.fromkeys(PIPELINE_ORDER),
        "stage_timeouts": dict.fromkeys(PIPELINE_ORDER),
        "prices": {ANY: dict.fromkeys(PRICE_FIELDS)},
        "approve": {"tools": None, "default": None},
        "mcp": [
            {
                "subagent": None,
                "name": None,
                "tools": None,
                "command": None,
                "args": None,
                "url": None,
                "env": {ANY: None},
            }
        ],
    }
}


@dataclass(frozen=True)
class McpServerConfig:
    """One external MCP server and the tools a subagent may use from it."""

    subagent: str
    name: str
    tools: tuple[str, ...]
    command: str | None = None
    args: tuple[str, ...] = ()
    url: str | None = None
    env: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, raw: dict[str, Any]) -> McpServerConfig:
        """Build from a ``[[quartet.mcp]]`` table; ValueError says what is missing."""
        tools = raw.get("tools")
        if not raw.get("subagent") or not raw.get("name"):
            raise ValueError("an [[quartet.mcp]] entry needs 'subagent' and 'name'")
        if not isinstance(tools, list) or not tools or not all(isinstance(t, str) for t in tools):
            raise ValueError(f"mcp server {raw['name']!r}: 'tools' must list the tool names")
        if bool(raw.get("command")) == bool(raw.get("url")):
            raise ValueError(f"mcp server {raw['name']!r}: give exactly one of 'command', 'url'")
        return cls(
            subagent=str(raw["subagent"]),
            name=str(raw["name"]),
            tools=tuple(tools),
            command=raw.get("command"),
            args=tuple(str(a) for a in raw.get("args", ())),
            url=raw.get("url"),
            env={str(k): str(v) for k, v in raw.get("env", {}).items()},
        )


class ConfigError(ValueError):
    """A setting is missing or malformed; the message says which and how to fix it."""


#: The memory store's database file, in the runs folder unless ``store`` names another.
STORE_NAME = Path(".store") / "quartet.sqlite"
#: The project whose memories a run reads and writes unless ``project`` names another.
DEFAULT_PROJECT = "default"
#: The longest project name, in characters.
MAX_PROJECT_CHARS = 100

#: The longest timeout any setting may give, in seconds (a day).
MAX_SECONDS = 86_400.0
#: How long a cached page is reused without asking its site: a day.
DEFAULT_CACHE_FRESH = 86_400.0
#: The longest freshness window, in seconds (a year).
MAX_CACHE_FRESH = 365 * 86_400.0
#: The store's bound, in MiB.
DEFAULT_CACHE_MAX_MB = 512
#: The units ``cache_fresh`` may be given in, in seconds.
DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$", re.I)
#: The largest value of each numeric setting (each must also be more than 0). Generous,
#: but finite: a count or a timeout past these is a typo, and an infinite one breaks
#: the clocks and loops that use it.
MOST: dict[str, float] = {
    "tool_call_cap": 10_000,
    "depth_cap": 32,
    "stage_timeout": MAX_SECONDS,
    "max_pages": 10_000,
    "max_rounds": 100,
    "concurrency": 256,
    "history_chars": 100_000_000,
    "model_timeout": MAX_SECONDS,
    "model_attempts": 100,
    "max_tokens": 10**12,
    "max_cost": 10**9,
    "cache_max_mb": 1_000_000,
}


@dataclass
class Settings:
    """Everything a run needs to know, resolved once."""

    model: str = "offline"
    formats: tuple[str, ...] = FORMATS
    runs_dir: Path = Path("runs")
    input_dir: Path | None = None
    #: the id the run's folder takes (the command line chooses it to say where the run
    #: goes in its first line); None: a new one when the run starts
    run_id: str | None = None
    tool_call_cap: int = DEFAULT_TOOL_CALL_CAP
    depth_cap: int = DEFAULT_DEPTH_CAP
    stage_timeout: float = 600.0
    stage_timeouts: dict[str, float] = field(default_factory=dict)
    max_pages: int = 24
    max_rounds: int = 3
    concurrency: int = 3
    history_chars: int = 200_000
    #: the run's model budgets (None: no limit): tokens read and written, and cost in the
    #: price table's currency; once one is spent, research stops and the report is written
    max_tokens: int | None = None
    max_cost: float | None = None
    model_timeout: float = DEFAULT_MODEL_TIMEOUT
    model_attempts: int = DEFAULT_MODEL_ATTEMPTS
    prices: dict[str, ModelPrice] = field(default_factory=dict)
    mcp_servers: list[McpServerConfig] = field(default_factory=list)
    tools: ToolSettings = field(default_factory=ToolSettings)
    #: the model providers' keys and base URLs (read from the environment once)
    models: ModelAccess = field(default_factory=ModelAccess)
    #: every credential value the run must never show, collected once: from the
    #: environment when the settings were made (see :func:`subagents.secrets.secret_scope`)
    secrets: tuple[str, ...] = field(default_factory=lambda: tuple(secret_values()), repr=False)
    record: bool = False
    approve_tools: tuple[str, ...] = ()
    approve_default: str = "deny"
    quiet: bool = False
    #: show every task and tool call while the run works (``--verbose``)
    verbose: bool = False
    json_output: bool = False
    #: the user's words for their field (``[[quartet.glossary]]``): groups of words that
    #: name the same thing (``same``) and closely related ones (``related``)
    glossary: tuple[dict[str, tuple[str, ...]], ...] = ()
    #: the user's own skill folders by subagent (``[quartet.skills]``), each holding a
    #: ``SKILL.md``; added to that subagent's shipped skills
    skills: dict[str, tuple[Path, ...]] = field(default_factory=dict)
    #: whether subagents may record verified lessons in their skills' experience logs
    #: (``experience``), and the Host records what a run shows of sites
    experience: bool = False
    #: the memory store (``store``): its database file, or the URL of a PostgreSQL
    #: server; None: :data:`STORE_NAME` in the runs folder (see :meth:`store_path`)
    store_file: Path | StoreURL | None = None
    #: whose memories, beside the user's: the store keeps each project apart
    project: str = DEFAULT_PROJECT
    #: how long a page in the page cache is reused without asking its site, in seconds
    #: (``cache_fresh``; 0: every reuse asks)
    cache_fresh: float = DEFAULT_CACHE_FRESH
    #: the bound on the store (page cache and memories), in MiB (``cache_max_mb``)
    cache_max_mb: int = DEFAULT_CACHE_MAX_MB
    #: read nothing from the page cache in this run (``--fresh``); what it fetches is
    #: still kept
    fresh: bool = False
    #: whether runs use the page cache at all (``page_cache``; off: nothing is read from
    #: it or kept in it)
    page_cache: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

    def store_path(self) -> Path | StoreURL:
        """The memory store: ``store`` (a database file, or a PostgreSQL server's URL,
        printed with its password masked), else :data:`STORE_NAME` in the runs folder."""
        return self.store_file if self.store_file is not None else self.runs_dir / STORE_NAME


def parse_formats(text: str) -> tuple[str, ...]:
    """``"md,pdf"`` → ``("md", "pdf")``; unknown names are a ConfigError."""
    wanted = tuple(dict.fromkeys(f.strip().lower() for f in text.split(",") if f.strip()))
    unknown = [f for f in wanted if f not in FORMATS]
    if not wanted or unknown:
        raise ConfigError(
            f"--formats: unknown {', '.join(unknown) or '(empty)'}; choose from "
            f"{', '.join(FORMATS)}, comma-separated"
        )
    return wanted


def check_keys(data: Mapping[str, Any], keys: Mapping[str, Any], where: str = "") -> None:
    """Refuse any key of ``data`` that ``keys`` (a part of :data:`TOML_KEYS`) lacks.

    The ConfigError names the key and the table it is in, and suggests the nearest
    valid key.
    """
    for key, value in data.items():
        if key not in keys and ANY not in keys:
            valid = [k for k in keys if k != ANY]
            near = difflib.get_close_matches(key, valid, n=1)
            hint = f"did you mean {near[0]}?" if near else f"valid keys: {', '.join(valid)}"
            table = f" in [{where}]" if where else ""
            raise ConfigError(f"unknown key {key!r}{table}; {hint}")
        inner = keys.get(key, keys.get(ANY))
        name = f"{where}.{key}" if where else key
        if isinstance(inner, dict):
            if not isinstance(value, dict):
                raise ConfigError(f"{name} must be a table ([{name}])")
            check_keys(value, inner, name)
        elif isinstance(inner, list):
            if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
                raise ConfigError(f"{name} must be an array of tables ([[{name}]])")
            for entry in value:
                check_keys(entry, inner[0], name)


def _from_toml(path: Path) -> dict[str, Any]:
    """The ``[quartet]`` table of ``path`` (empty when there is no file), keys checked."""
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        check_keys(data, TOML_KEYS)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    return data.get("quartet", {})


def check_runs_dir(path: Path) -> Path:
    """``path`` if run folders can be made in it, else a ConfigError saying why not.

    Nothing is created: the nearest existing folder on the way must be a writable folder.
    """
    _check_folder(path, f"--runs-dir {path}")
    return path


def _check_folder(path: Path, label: str) -> None:
    """Raise a ConfigError starting with ``label`` unless folder ``path`` exists and is
    writable, or can be made: the nearest existing folder on the way must be writable."""
    existing = path
    while not os.path.lexists(existing) and existing != existing.parent:
        existing = existing.parent
    where = "it" if existing == path else str(existing)
    if not existing.is_dir():
        raise ConfigError(f"{label}: {where} is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(f"{label}: {where} is not writable")


def check_store_url(raw: str) -> StoreURL:
    """The PostgreSQL server's URL ``store`` gives, checked for a host; nothing is
    connected to.

    Raises:
        ConfigError: the URL cannot be read or names no host (shown with its password
            masked).
    """
    url = StoreURL(raw.strip())
    try:
        parts = urlsplit(url.url)
        host, _port = parts.hostname, parts.port
    except ValueError:
        raise ConfigError(f"store: {url} is not a URL of a PostgreSQL server") from None
    if not host and "host" not in dict(parse_qsl(parts.query)):
        raise ConfigError(f"store: {url} names no host (postgresql://user@host:port/db)")
    return url


def check_store(raw: Any) -> Path | StoreURL:
    """The memory store as ``store`` gives it, checked: a PostgreSQL server's URL
    (``postgresql://…``), else a database file (``~`` expanded).

    Nothing is created: the file may be missing, but not a folder, and its folder must
    exist writable or be one that can be made.

    Raises:
        ConfigError: ``raw`` is empty or not text, is a URL without a host, names a
            folder, or lies where no file can be written.
    """
    if not isinstance(raw, str | os.PathLike) or not str(raw).strip():
        raise ConfigError(f"store: expected the path of a database file, got {raw!r}")
    if is_store_url(raw):
        return check_store_url(str(raw))
    path = Path(str(raw).strip()).expanduser()
    label = f"store {path}"
    if path.is_dir():
        raise ConfigError(f"{label}: it is a folder, not a database file")
    _check_folder(path.parent, label)
    return path


def check_project(raw: Any) -> str:
    """The project name ``project`` gives, checked.

    Raises:
        ConfigError: it is not text, is empty, is longer than
            :data:`MAX_PROJECT_CHARS` or holds a control character.
    """
    name = raw.strip() if isinstance(raw, str) else ""
    if not name or len(name) > MAX_PROJECT_CHARS or not name.isprintable():
        raise ConfigError(
            f"project: expected a name of 1 to {MAX_PROJECT_CHARS} printable characters, "
            f"got {raw!r}"
        )
    return name


def make_runs_dir(path: Path) -> Path:
    """Create the runs folder if needed; a ConfigError (not a traceback) when it fails."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"--runs-dir {path}: cannot create it ({exc.strerror or exc})") from None
    return check_runs_dir(path)


def _pick(
    flags: Mapping[str, Any], toml: Mapping[str, Any], flag: str, env_name: str, default: Any
) -> Any:
    """A setting's value: its flag, else its environment variable, else quartet.toml."""
    if flags.get(flag) is not None:
        return flags[flag]
    if os.environ.get(env_name):
        return os.environ[env_name]
    return toml.get(flag, default)


def runs_dir_setting(flag: str | None, toml_path: Path | None = None) -> Path:
    """The runs folder alone (for ``quartet runs`` and ``show``), checked, not created."""
    toml = _from_toml(toml_path or Path("quartet.toml"))
    return check_runs_dir(
        Path(_pick({"runs_dir": flag}, toml, "runs_dir", "QUARTET_RUNS_DIR", "runs"))
    )


def _prices(raw: Any) -> dict[str, ModelPrice]:
    """The price table: ``[quartet.prices."provider:name"]`` tables, per million tokens."""
    if not isinstance(raw, dict):
        raise ConfigError('prices: expected tables such as [quartet.prices."openai:gpt-4o-mini"]')
    try:
        return {str(model): ModelPrice.parse(str(model), table) for model, table in raw.items()}
    except ValueError as exc:
        raise ConfigError(f"quartet.toml: {exc}") from None


def load_settings(flags: dict[str, Any], toml_path: Path | None = None) -> Settings:
    """Resolve settings with precedence flags > environment > ``quartet.toml``."""
    toml = _from_toml(toml_path or Path("quartet.toml"))
    env = os.environ

    def pick(flag: str, env_name: str, default: Any) -> Any:
        return _pick(flags, toml, flag, env_name, default)

    s = Settings()
    s.model = str(pick("model", "QUARTET_MODEL", "offline"))
    s.formats = parse_formats(str(pick("formats", "QUARTET_FORMATS", ",".join(FORMATS))))
    s.runs_dir = check_runs_dir(Path(pick("runs_dir", "QUARTET_RUNS_DIR", "runs")))
    inp = pick("input", "QUARTET_INPUT", None)
    if inp:
        s.input_dir = Path(inp)
        if not s.input_dir.is_dir():
            raise ConfigError(f"--input: {inp} is not a folder")
    for name, env_name, conv in (
        ("tool_call_cap", "QUARTET_TOOL_CALL_CAP", int),
        ("depth_cap", "QUARTET_DEPTH_CAP", int),
        ("stage_timeout", "QUARTET_STAGE_TIMEOUT", float),
        ("max_pages", "QUARTET_MAX_PAGES", int),
        ("max_rounds", "QUARTET_MAX_ROUNDS", int),
        ("concurrency", "QUARTET_CONCURRENCY", int),
        ("history_chars", "QUARTET_HISTORY_CHARS", int),
        ("model_timeout", "QUARTET_MODEL_TIMEOUT", float),
        ("model_attempts", "QUARTET_MODEL_ATTEMPTS", int),
    ):
        setattr(s, name, positive(pick(name, env_name, getattr(s, name)), name, conv))
    s.max_tokens = _budget(pick("max_tokens", "QUARTET_MAX_TOKENS", None), "max_tokens", int)
    s.max_cost = _budget(pick("max_cost", "QUARTET_MAX_COST", None), "max_cost", float)
    s.stage_timeouts = {
        str(k): positive(v, f"stage_timeouts.{k}", float, MAX_SECONDS)
        for k, v in toml.get("stage_timeouts", {}).items()
    }
    s.prices = _prices(toml.get("prices", {}))
    try:
        s.mcp_servers = [McpServerConfig.parse(raw) for raw in toml.get("mcp", [])]
    except (ValueError, AttributeError, TypeError) as exc:
        raise ConfigError(f"quartet.toml: {exc}") from None
    try:
        s.tools = ToolSettings.from_env(env)
        if not env.get("QUARTET_SPREADSHEET_FORMULAS", "").strip():
            formulas = parse_switch(toml.get("spreadsheet_formulas", False), "spreadsheet_formulas")
            s.tools = replace(s.tools, spreadsheet_formulas=formulas)
    except SettingsError as exc:
        raise ConfigError(str(exc)) from None
    s.models = ModelAccess.from_env(env)
    s.secrets = tuple(secret_values(env))
    s.approve_tools, s.approve_default = _approval(flags, toml)
    s.glossary = parse_glossary(toml.get("glossary", []))
    s.skills = parse_skills(toml.get("skills", {}))
    _memory_settings(s, toml)
    _cache_settings(s, flags, toml)
    s.record = bool(flags.get("record"))
    s.quiet = bool(flags.get("quiet"))
    s.verbose = bool(flags.get("verbose"))
    s.json_output = bool(flags.get("json"))
    return s


def _memory_settings(s: Settings, toml: Mapping[str, Any]) -> None:
    """Set ``s``'s experience switch, memory store and project from the environment
    (``QUARTET_EXPERIENCE``, ``QUARTET_STORE``, ``QUARTET_PROJECT``), else ``quartet.toml``.
    """
    env = os.environ
    s.experience = _switch(toml, "experience", "QUARTET_EXPERIENCE", False)
    store = env.get("QUARTET_STORE") or toml.get("store")
    s.store_file = None if store is None else check_store(store)
    s.project = check_project(env.get("QUARTET_PROJECT") or toml.get("project", DEFAULT_PROJECT))


def _cache_settings(s: Settings, flags: Mapping[str, Any], toml: Mapping[str, Any]) -> None:
    """Set ``s``'s page cache settings: ``cache_fresh``, ``cache_max_mb`` and the
    ``page_cache`` switch from the environment (``QUARTET_CACHE_FRESH``,
    ``QUARTET_CACHE_MAX_MB``, ``QUARTET_PAGE_CACHE``), else ``quartet.toml``; ``fresh``
    from the ``--fresh`` flag."""
    fresh = _pick(flags, toml, "cache_fresh", "QUARTET_CACHE_FRESH", DEFAULT_CACHE_FRESH)
    s.cache_fresh = parse_duration(fresh, "cache_fresh")
    bound = _pick(flags, toml, "cache_max_mb", "QUARTET_CACHE_MAX_MB", DEFAULT_CACHE_MAX_MB)
    s.cache_max_mb = positive(bound, "cache_max_mb", int)
    s.fresh = bool(flags.get("fresh"))
    s.page_cache = _switch(toml, "page_cache", "QUARTET_PAGE_CACHE", True)


def _switch(toml: Mapping[str, Any], key: str, variable: str, default: bool) -> bool:
    """An on/off setting: from the environment variable ``variable`` when it is set, else
    ``key`` in ``quartet.toml``, else ``default``; a ConfigError for anything but a
    switch."""
    try:
        return parse_switch(os.environ.get(variable, "").strip() or toml.get(key, default), key)
    except SettingsError as exc:
        raise ConfigError(str(exc)) from None


def parse_duration(raw: Any, name: str, most: float = MAX_CACHE_FRESH) -> float:
    """A length of time in seconds: a number of seconds, or a number with a unit
    (``90s``, ``30m``, ``12h``, ``1d``, ``2w``).

    Args:
        raw: the value as given: a TOML number, or the text of a flag or an environment
            variable.
        name: the setting's name, for the error.
        most: the longest time allowed, in seconds.

    Raises:
        ConfigError: ``raw`` is not such a time (a boolean is not one), is negative, or
            is longer than ``most``.
    """
    seconds: float | None = None
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        seconds = float(raw)
    elif isinstance(raw, str) and (found := _DURATION.match(raw)):
        seconds = float(found.group(1)) * DURATION_UNITS[(found.group(2) or "s").lower()]
    if seconds is None or not math.isfinite(seconds):
        raise ConfigError(
            f"{name}: expected seconds or a time such as 30m, 12h, 1d or 2w, got {raw!r}"
        )
    if not 0 <= seconds <= most:
        raise ConfigError(f"{name}: must be from 0 to {most:g} seconds, got {raw!r}")
    return seconds


def _budget(raw: Any, name: str, conv: type[int] | type[float]) -> Any:
    """A budget's value: None when unset, else a positive number (a ConfigError if not)."""
    return None if raw is None or raw == "" else positive(raw, name, conv)


def positive(raw: Any, name: str, conv: type[int] | type[float], most: float | None = None) -> Any:
    """``raw`` as a finite number of type ``conv``, more than 0 and at most ``most``.

    Args:
        raw: the value as given: a TOML number, or the text of a flag or an environment
            variable.
        name: the setting's name, for the error.
        conv: ``int`` (a whole number is required) or ``float``.
        most: the largest value allowed; by default the setting's entry in :data:`MOST`.

    Raises:
        ConfigError: ``raw`` is not a number (a boolean is not one), is not whole where
            ``conv`` is ``int``, is infinite or NaN, or is out of range.
    """
    top = MOST.get(name, math.inf) if most is None else most
    value = _number(raw, name, conv)
    if not 0 < value <= top:
        most_text = f"{top:,.0f}" if conv is int else f"{top:g}"
        raise ConfigError(f"{name}: must be positive and at most {most_text}, got {raw!r}")
    return value


def _number(raw: Any, name: str, conv: type[int] | type[float]) -> Any:
    """``raw`` as a finite ``conv``; a ConfigError when it is not one."""
    value: int | float | None = None
    if isinstance(raw, str):
        with contextlib.suppress(ValueError):
            value = float(raw)
    elif isinstance(raw, int | float) and not isinstance(raw, bool):
        value = raw
    if value is None:
        raise ConfigError(f"{name}: expected a number, got {raw!r}")
    if not math.isfinite(value):
        raise ConfigError(f"{name}: expected a finite number, got {raw!r}")
    if conv is int and value != int(value):
        raise ConfigError(f"{name}: expected a whole number, got {raw!r}")
    return conv(value)


def parse_glossary(raw: Any) -> tuple[dict[str, tuple[str, ...]], ...]:
    """``[[quartet.glossary]]`` tables, each with ``same`` (words naming the same thing)
    and ``related`` (words for closely related things), both lists of words."""

    def words(value: Any) -> tuple[str, ...]:
        ok = isinstance(value, list | tuple) and all(
            isinstance(w, str) and w.strip() for w in value
        )
        if not ok:
            raise ConfigError(
                'glossary: expected tables such as {same = ["build", "construct"], '
                'related = ["dig"]}'
            )
        return tuple(w.strip() for w in value)

    if not isinstance(raw, list | tuple) or not all(isinstance(t, dict) for t in raw):
        raise ConfigError('glossary: expected [[quartet.glossary]] tables with "same" lists')
    return tuple(
        {"same": words(t.get("same", [])), "related": words(t.get("related", []))} for t in raw
    )


def parse_skills(raw: Any) -> dict[str, tuple[Path, ...]]:
    """The ``[quartet.skills]`` table: each subagent's own skill folders.

    Args:
        raw: the table as TOML gives it, e.g. ``{"browser": ["~/my-skills/paywalls"]}``.
            ``~`` is expanded; a relative folder is taken from the current folder, like
            ``input``.

    Returns:
        The folders by subagent, resolved.

    Raises:
        ConfigError: the table names an unknown subagent, a value is not a list of
            folders, or a folder lacks a ``SKILL.md`` whose front matter gives a
            ``name`` and a ``description``.
    """
    if not isinstance(raw, dict):
        raise ConfigError('skills: expected a table such as {browser = ["~/my-skills/paywalls"]}')
    skills: dict[str, tuple[Path, ...]] = {}
    for subagent, folders in raw.items():
        if subagent not in PIPELINE_ORDER:
            raise ConfigError(
                f"skills: unknown subagent {subagent!r}; choose from {', '.join(PIPELINE_ORDER)}"
            )
        skills[subagent] = tuple(
            _skill_folder(subagent, f) for f in _folder_list(subagent, folders)
        )
    return skills


def _folder_list(subagent: str, folders: Any) -> list[str]:
    """``folders`` as a list of non-empty paths; a ConfigError naming the subagent if not."""
    ok = isinstance(folders, list) and all(isinstance(f, str) and f.strip() for f in folders)
    if not ok:
        raise ConfigError(
            f'skills.{subagent}: expected a list of skill folders, e.g. ["~/my-skills/paywalls"]'
        )
    return folders


def _skill_folder(subagent: str, folder: str) -> Path:
    """``folder`` resolved, once its ``SKILL.md`` loads; a ConfigError saying why not."""
    path = Path(folder.strip()).expanduser().resolve()
    if not (path / SKILL_FILE).is_file():
        raise ConfigError(f"skills.{subagent}: {folder} is not a folder holding {SKILL_FILE}")
    try:
        load_skill(path)
    except ValueError as exc:
        raise ConfigError(f"skills.{subagent}: {exc}") from None
    return path


def _approval(flags: dict[str, Any], toml: dict[str, Any]) -> tuple[tuple[str, ...], str]:
    """The tools that need a person's approval (``--approve`` or ``[quartet.approve]``)
    and the decision taken when nobody can be asked."""
    table = toml.get("approve", {})
    if not isinstance(table, dict):
        raise ConfigError('approve: expected a table such as {tools = ["http_download"]}')
    raw = flags.get("approve")
    if raw is not None:
        tools = [t.strip() for t in str(raw).split(",") if t.strip()]
    else:
        listed = table.get("tools", [])
        if not isinstance(listed, list) or not all(isinstance(t, str) for t in listed):
            raise ConfigError('approve.tools: expected a list of tool names, e.g. ["pptx_write"]')
        tools = listed
    default = str(table.get("default", "deny")).strip().lower()
    if default not in ("deny", "approve"):
        raise ConfigError(f"approve.default: expected deny or approve, got {default!r}")
    return tuple(dict.fromkeys(tools)), default
