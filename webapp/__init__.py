"""``quartet serve``: the local web app (start runs, watch them live, approve their calls,
read their reports). See :mod:`webapp.command` for the command and :mod:`webapp.app` for
the app."""
