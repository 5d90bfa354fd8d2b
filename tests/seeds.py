"""The tests' fixed master and block seeds.

Not the README's example seed (``000102…1f``) nor any other of ``conformance/public_seeds.yaml``:
a block drawn from one of those fails ``<game>.randomness.winner_positions`` on purpose.
"""

import hashlib

TEST_SEED = hashlib.sha256(b"instantcert tests: a seed of no document").digest()
