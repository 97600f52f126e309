"""Task resources: what a Task state runs (Python callables, mocks, callbacks, integrations)."""
