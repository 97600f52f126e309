"""Each state family's work, as the interpreter (`sfn_emulator.engine.interpreter`) runs it."""
