"""One block file audited offline by every block check, whole (``audit_block_file``): the
checks run on the file's target (``conformance._file_target``) as on any live target.
``instantcert audit-block`` does the same through the runner, with reports."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._execute import CheckOutcome, execute
from ._file_target import open_file_target
from ._registry import CheckContext
from ._settings import Settings
from ._suite import registered_checks
from .games import kit_names


@dataclass(frozen=True)
class BlockFileAudit:
    """What ``audit_block_file`` returns: the outcome of every block check, by check id; the
    verdict of every block requirement it reached, by requirement id (worst outcome of its
    checks); and one ``harness.BlockAudited``-shaped mapping per audited block."""

    target: str
    outcomes: dict[str, CheckOutcome]
    requirements: dict[str, str]
    blocks: list[Mapping[str, Any]]

    @property
    def passed(self) -> bool:
        """No requirement failed or errored (contract 6: exit 0); a single file cannot show
        two blocks, so ``*.randomness.unrelated_blocks`` is *reserved*, not a failure."""
        return not any(outcome in ("fail", "error") for outcome in self.requirements.values())


_SEVERITY = ("fail", "error", "reserved", "not_supported", "not_run", "pass")


def audit_block_file(
    path: str | Path, settings: Mapping[str, Any] | None = None, seed: int = 0
) -> BlockFileAudit:
    """Run every block check on one block file, whole (``instantcert audit-block`` does the
    same through the runner, with reports). ``settings`` override the whole-block defaults."""
    wanted = {"block_mode": "whole", "block_sample_units": None, "blocks_per_stake": None}
    run_settings = Settings.parse({**wanted, **(settings or {})}, "audit_block_file settings")
    target = open_file_target(path)
    implementation = target.describe()
    blocks: list[Mapping[str, Any]] = []
    outcomes: dict[str, CheckOutcome] = {}
    verdicts: dict[str, str] = {}
    for check_id, check in registered_checks(("blocks",)).items():
        if check.capability != "blocks":
            continue
        ctx = CheckContext(target, implementation, run_settings, seed, block_sink=blocks.append)
        outcome = execute(check, ctx)
        outcomes[check_id] = outcome
        for requirement in check.requirements:
            game = requirement.split(".")[0]
            if game in kit_names() and game != target.game:
                continue
            got = outcome.outcome if requirement in outcome.requirements else "pass"
            before = verdicts.get(requirement, "pass")
            verdicts[requirement] = min(got, before, key=_SEVERITY.index)
    return BlockFileAudit(target.name, outcomes, verdicts, blocks)


__all__ = ["BlockFileAudit", "audit_block_file"]
