"""First-party extensions of sfn-emulator, installed as the `sfn_emulator_plugins` package."""
