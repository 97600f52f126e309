"""Forget moto's resources, of every account or of one: what `POST /_emulator/reset` does to the AWS
services behind integrations (moto's own `/moto-api/reset` knows no accounts)."""

from __future__ import annotations


def reset_moto_backends(account: str | None = None) -> None:
    """Every moto backend's resources in this process, or only those of `account`."""
    from moto.core.base_backend import BackendDict, backend_lock
    from moto.moto_api._internal.models import moto_api_backend

    from sfn_emulator.resources.aws import moto_state

    if account is None:
        moto_api_backend.reset()
    else:
        with backend_lock:
            for backends in list(BackendDict._instances):
                if account in backends.keys():
                    backends[account].reset()
    moto_state.changed("DELETE")  # a state directory forgets them too
