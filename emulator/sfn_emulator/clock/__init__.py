"""Time: the one virtual clock every timestamp, wait, timeout and schedule of the emulator reads."""
