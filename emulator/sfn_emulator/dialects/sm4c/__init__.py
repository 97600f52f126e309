"""State Machines for Cloud (SM4C) documents as a dialect of the emulator: `parser` (JSON or YAML
into the compiled `model`, every problem reported), `interpreter` (the document's execution
algorithm as a generator of the engine's effects), `host` (functions, subflows and events through
the engine), `expressions` (jq via the `jq` binding), `timespans`."""
