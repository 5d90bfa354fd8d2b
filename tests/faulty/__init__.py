"""The one kit of deliberately broken implementations, and of the targets around them.

Every broken implementation the tests run lives here, each a class whose docstring names its
fault: ``_faults.py`` (evaluators, blocks and game services of the strength table),
``_play_faults.py``, ``_protocol_faults.py``, ``_block_faults.py``, ``_stake_faults.py``
(issue 10's), ``_wrapped.py`` (the reference adapter wrapped or subclassed: the play-check and
runner tests' faults). ``variants.py`` registers the strength table's variants;
``tests/conformance/faults.py`` and ``tests/harness/_support.py`` name the faults their tests
run and import them from here.
"""
