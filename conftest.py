"""The repository's root, for pytest: loading this file puts the root on ``sys.path``, so
the tests import every top-level package of the checkout (``webapp`` too) as they are
here, whichever of them the installed package lists."""
