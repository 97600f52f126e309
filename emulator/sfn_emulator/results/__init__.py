"""How an execution ended, as the Python API, the CLI and the pytest plugin hand it back."""
