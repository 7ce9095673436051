"""The default limits of one model request, importable without agentscope."""

#: Seconds one model request may take (``QUARTET_MODEL_TIMEOUT``).
DEFAULT_MODEL_TIMEOUT = 120.0

#: Attempts per model request, the first included (``QUARTET_MODEL_ATTEMPTS``).
DEFAULT_MODEL_ATTEMPTS = 3

#: Output tokens one reply may use, by role (``QUARTET_OUTPUT_TOKENS``, e.g.
#: ``writer=16384,host=4096``): the Host, each subagent, the tools' own model calls
#: (page answers, extraction) and the writer's prose, which must hold a whole report.
DEFAULT_OUTPUT_LIMITS: dict[str, int] = {
    "host": 4096,
    "file": 4096,
    "search": 4096,
    "browser": 4096,
    "generate": 4096,
    "tools": 4096,
    "writer": 8192,
}

#: A reply cut at its output limit is asked again with twice the limit, up to this.
MAX_OUTPUT_LIMIT = 32768
