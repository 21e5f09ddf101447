"""Who is calling (docs/contract.md): an agent acts only as its own role; the operator as any."""

from __future__ import annotations

from deskd.errors import DisabledRole, MissingRole, NoRoles, NotYourRole
from deskd.service.desk.context import DeskContext


def acting_role(ctx: DeskContext, flag: str, given: str | None) -> str:
    """The role a command acts as: ``DESKD_ROLE`` when set (naming another is refused),
    else the role the operator named with ``flag``."""
    if not ctx.desk.roles:
        # Say how to add a role rather than asking for a flag no value could satisfy.
        raise NoRoles()
    own = ctx.settings.role
    if own:
        if given and given != own:
            raise NotYourRole(flag, given, own)
        name = own
    elif given:
        name = given
    else:
        raise MissingRole(flag)
    ctx.desk.role(name)
    return name


def known_role(ctx: DeskContext, name: str, *, enabled: bool = True) -> str:
    """A role named as a recipient or subject: it must exist (and be enabled when asked)."""
    role = ctx.desk.role(name)
    if enabled and not role.enabled:
        raise DisabledRole(name)
    return name
