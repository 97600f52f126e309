"""What belongs to the emulator's process rather than to one execution: its seedable randomness and the
memory it keeps for its whole life."""
