"""The ASL parser's parts, one job each; `sfn_emulator.asl.parser` is its public face."""
