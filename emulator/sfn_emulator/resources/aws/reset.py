"""Forget moto's resources, of every account or of one: what `POST /_emulator/reset` does to the AWS
services behind integrations (moto's own `/moto-api/reset` knows no accounts)."""

from __future__ import annotations


def reset_moto_backends(account: str | None = None) -> None:
    """Every moto backend's resources in this process, or only those of `account` (a state directory forgets them too)."""
    from sfn_emulator.resources.aws import moto_state

    moto_state.reset(account)
