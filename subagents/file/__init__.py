"""The File subagent: fifteen file tools over FileDomainService."""

from .spec import SPEC

__all__ = ["SPEC"]
