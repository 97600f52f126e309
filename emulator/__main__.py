"""`python -m emulator` is the same as the `sfn-emulator` command."""

from emulator.cli import main

raise SystemExit(main())
