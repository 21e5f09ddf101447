"""The refusals of scheduling the tick (``deskd cron-line``, ``deskd timer``): the executable,
the desk folder and the unit files. Split from ``deskd.errors`` by concept, to keep that module
under 600 lines; mapped to exit codes the same way (``DeskdError``)."""

from __future__ import annotations

from deskd.errors import DeskdError


class NoExecutable(DeskdError):
    code = "no_executable"
    says = (
        "cannot find the deskd executable of this environment (searched {searched}); "
        "reinstall deskd with pip into this interpreter"
    )


class NoDesk(DeskdError):
    """A schedule asked for a folder without a desk file: it would tick an empty database."""

    code = "no_desk"
    says = (
        "no desk file at {desk_file} (desk folder {home}, from {origin}): "
        "run `deskd init` there first, or set DESKD_HOME to the desk folder"
    )


class UnitPermissionDenied(DeskdError):
    code = "permission_denied"
    says = (
        "cannot write {path}: permission denied (use --user for a timer of "
        "your own, or run it as root: {sudo_hint})"
    )


class UnitNotWritten(DeskdError):
    """A schedule unit file could not be written. Exit 1 like any refusal (not 3): the
    database is fine, the operator picked a folder deskd cannot write."""

    code = "unavailable"
    says = "cannot write {path}: {reason}"
