"""Guarded HTTP shared by every subagent that reaches the network.

:mod:`.netguard` says which addresses may be reached under a
:class:`~subagents.settings.NetworkPolicy`, :mod:`.netpin` applies it again when a
connection opens, and :mod:`.decode` undoes content encodings under a bound. The Browser
and the search sources both use them, so neither imports the other.
"""
