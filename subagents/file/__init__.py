"""The File subagent: fifteen file tools over FileDomainService."""
