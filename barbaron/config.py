"""Defaults and limits the library and the command line share (no heavy imports: the command
line reads them at start-up)."""

DEFAULT_BATCH_SIZE = 16384  # games per unit of work: small enough for memory, big for speed
MAX_INDEX = 2**63  # seeds and game indices are whole numbers in [0, MAX_INDEX)
