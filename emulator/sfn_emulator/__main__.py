"""`python -m sfn_emulator` is the same as the `sfn-emulator` command."""

from sfn_emulator.cli import main

raise SystemExit(main())
