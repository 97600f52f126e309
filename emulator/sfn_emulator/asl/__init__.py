"""The Amazon States Language: parse, validate and evaluate definitions. Pure: no I/O, no clock."""
