"""The error tree. Every failure the author can meet is one of these, with a Chinese message.

MuseError                       base; ``message`` is what the author reads
├── NotFound                    a work, chapter, card, candidate … does not exist
├── InvalidInput                bad user input (a malformed file, an invalid card)
│   └── ImportFailed            a book file that cannot be imported (with byte offset/line)
├── ContractViolation           an object that breaks its schema or a hash/reference rule
├── StaleTransition             a compare-and-set that changed no row
│   └── RevisionConflict        canonical text changed since the caller read it
├── AuthorizationError          the source's status or purpose forbids the use
├── ProviderError               anything that went wrong talking to a model
└── ConfigError                 missing key, unknown provider, bad configuration
"""

from __future__ import annotations


class MuseError(Exception):
    """Base of all Muse errors. ``message`` is Chinese text for the author."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\n提示：{self.hint}"


class NotFound(MuseError):
    pass


class InvalidInput(MuseError):
    pass


class ImportFailed(InvalidInput):
    pass


class ContractViolation(MuseError):
    pass


class StaleTransition(MuseError):
    pass


class RevisionConflict(StaleTransition):
    pass


class AuthorizationError(MuseError):
    pass


class ProviderError(MuseError):
    pass


class ConfigError(MuseError):
    pass
