"""A second vendor written from the contract and the rules alone (see server.py)."""
