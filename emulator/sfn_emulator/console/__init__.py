"""The web console at `/_emulator/console/`: an extension of the core, mounted on the HTTP app by the
composition root (`sfn_emulator.runtime`) through `mount_console` (`console.api`); the core never
imports it. `console.address` (where it is served) is importable without Flask, for the start-up
banner."""
