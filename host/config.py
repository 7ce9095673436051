"""Settings: CLI flags, then environment variables, then an optional ``quartet.toml``."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from subagents.settings import SettingsError, ToolSettings

from .brains.ledger import ModelPrice
from .brains.resilience import DEFAULT_MODEL_ATTEMPTS, DEFAULT_MODEL_TIMEOUT

FORMATS = ("md", "html", "pdf", "pptx")


class ConfigError(ValueError):
    """A setting is missing or malformed; the message says which and how to fix it."""


@dataclass
class Settings:
    """Everything a run needs to know, resolved once."""

    model: str = "offline"
    formats: tuple[str, ...] = FORMATS
    runs_dir: Path = Path("runs")
    input_dir: Path | None = None
    tool_call_cap: int = 80
    depth_cap: int = 3
    stage_timeout: float = 600.0
    stage_timeouts: dict[str, float] = field(default_factory=dict)
    max_pages: int = 24
    max_rounds: int = 3
    concurrency: int = 3
    history_chars: int = 200_000
    model_timeout: float = DEFAULT_MODEL_TIMEOUT
    model_attempts: int = DEFAULT_MODEL_ATTEMPTS
    prices: dict[str, ModelPrice] = field(default_factory=dict)
    mcp_servers: list[Any] = field(default_factory=list)
    tools: ToolSettings = field(default_factory=ToolSettings)
    approve_tools: tuple[str, ...] = ()
    approve_default: str = "deny"
    quiet: bool = False
    json_output: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


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


def _from_toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8")).get("quartet", {})
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None


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
        if flags.get(flag) is not None:
            return flags[flag]
        if env.get(env_name):
            return env[env_name]
        return toml.get(flag, default)

    s = Settings()
    s.model = str(pick("model", "QUARTET_MODEL", "offline"))
    s.formats = parse_formats(str(pick("formats", "QUARTET_FORMATS", ",".join(FORMATS))))
    s.runs_dir = Path(pick("runs_dir", "QUARTET_RUNS_DIR", "runs"))
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
        raw = pick(name, env_name, getattr(s, name))
        try:
            value = conv(raw)
        except (TypeError, ValueError):
            raise ConfigError(f"{name}: expected a number, got {raw!r}") from None
        if value <= 0:
            raise ConfigError(f"{name}: must be positive, got {value}")
        setattr(s, name, value)
    raw_timeouts = toml.get("stage_timeouts", {})
    if not isinstance(raw_timeouts, dict):
        raise ConfigError("stage_timeouts: expected a table such as {browser = 300}")
    s.stage_timeouts = {str(k): float(v) for k, v in raw_timeouts.items()}
    s.prices = _prices(toml.get("prices", {}))
    from .mcp import McpServerConfig

    try:
        s.mcp_servers = [McpServerConfig.parse(raw) for raw in toml.get("mcp", [])]
    except (ValueError, AttributeError, TypeError) as exc:
        raise ConfigError(f"quartet.toml: {exc}") from None
    try:
        s.tools = ToolSettings.from_env(env)
    except SettingsError as exc:
        raise ConfigError(str(exc)) from None
    s.approve_tools, s.approve_default = _approval(flags, toml)
    s.quiet = bool(flags.get("quiet"))
    s.json_output = bool(flags.get("json"))
    return s


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
