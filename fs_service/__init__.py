"""The file domain: grants, handles, storage backends and FileDomainService.

Knows nothing of agents. Typical use::

    fs = DiskFileSystem(root, mounts={"/userinput/": input_dir})
    handle = fs.create_handle([{"prefix": "/workspace/", "ops": ALL_OPS},
                               {"prefix": "/userinput/", "ops": READ_OPS}])
    svc = FileDomainService(handle)
"""

from .backends import DiskFileSystem, Entry, MemoryFileSystem, StorageBackend
from .errors import (
    FileTooLargeError,
    FsError,
    InvalidPathError,
    IsADirectoryError_,
    NotADirectoryError_,
    NotFoundError,
    PermissionDeniedError,
    SpecialFileError,
    StorageError,
    SymlinkRefusedError,
)
from .grants import ALL_OPS, OPS, READ_OPS, FileSystemHandle, Grant
from .paths import escape_name, validate_path
from .service import FileDomainService, Match

__all__ = [
    "ALL_OPS",
    "OPS",
    "READ_OPS",
    "DiskFileSystem",
    "Entry",
    "FileDomainService",
    "FileSystemHandle",
    "FileTooLargeError",
    "FsError",
    "Grant",
    "InvalidPathError",
    "IsADirectoryError_",
    "Match",
    "MemoryFileSystem",
    "NotADirectoryError_",
    "NotFoundError",
    "PermissionDeniedError",
    "SpecialFileError",
    "StorageBackend",
    "StorageError",
    "SymlinkRefusedError",
    "escape_name",
    "validate_path",
]
