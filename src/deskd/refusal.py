"""What a refusal is: ``DeskdError``, which builds its own message from a template and its
arguments, and carries its JSON code and exit code. The refusals themselves are in
``deskd.errors`` (which re-exports this class); stdlib only.
"""

from __future__ import annotations

from collections.abc import Iterable


class DeskdError(Exception):
    """A refusal: the command changed nothing. Exit 1 unless a subclass says otherwise.

    A refusal that only words its arguments declares ``says``: a ``str.format`` template
    whose fields are its arguments, positional in the order they first appear, or by name;
    ``{field!c}`` shows a collection as the sorted choices. Each argument is kept as an
    attribute of its name, and a class attribute of that name is its default. Without
    ``says`` the refusal is given its message whole.
    """

    code = "refused"
    exit_code = 1
    says = ""
    message: str

    def __init__(self, *args: object, code: str | None = None, **fields: object) -> None:
        if not self.says and (len(args) != 1 or fields):
            raise TypeError(f"{type(self).__name__} takes one message")
        message = self._words(args, fields) if self.says else str(args[0])
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code

    def _words(self, args: tuple[object, ...], fields: dict[str, object]) -> str:
        import re  # only on a refusal

        found = re.findall(r"\{(\w+)(!\w)?\}", self.says)
        names = list(dict.fromkeys(name for name, _ in found))
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__} takes {len(names)} arguments")
        values = dict(zip(names, args, strict=False)) | fields
        for name in names:
            if name not in values:
                values[name] = getattr(type(self), name)  # its default, else AttributeError
            setattr(self, name, values[name])
        shown = {
            n: choices(v) if (n, "!c") in found and isinstance(v, Iterable) else v
            for n, v in values.items()
        }
        return self.says.replace("!c}", "}").format(**shown)


def choices(known: Iterable[str]) -> str:
    """Names as a refusal lists the valid choices: sorted, comma-separated, or ``none``."""
    names = sorted(known)
    return ", ".join(names) if names else "none"
