"""``python -m otrio COMMAND``: the same as the ``otrio`` command."""

from otrio.cli import main

raise SystemExit(main())
