"""Amazon SWF served beside Step Functions, on the same clock: see `service.SwfService`."""

from sfn_emulator.swf.service import SwfService

__all__ = ["SwfService"]
