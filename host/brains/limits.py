"""The default limits of one model request, importable without agentscope."""

#: Seconds one model request may take (``QUARTET_MODEL_TIMEOUT``).
DEFAULT_MODEL_TIMEOUT = 120.0

#: Attempts per model request, the first included (``QUARTET_MODEL_ATTEMPTS``).
DEFAULT_MODEL_ATTEMPTS = 3
