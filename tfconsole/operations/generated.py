"""plan -generate-config-out: the target file is checked before anything else, and written
once the plan has made configuration for import targets that had none."""
from __future__ import annotations

from typing import Any

from tfconsole.diags import Diagnostics


def check_generate_target(path: str) -> Diagnostics:
    """plan -generate-config-out writes only a new file (checked before anything else)."""
    import os

    d = Diagnostics()
    if os.path.lexists(path):
        d.error("Target generated file already exists",
                "Terraform can only write generated config into a new file. Either choose a different target "
                "location or move all existing configuration out of the target file, delete it and try again.")
    return d


def write_generated_config(plan: Any, path: str) -> tuple[bool, Diagnostics]:
    """Write the resource blocks generated during the plan to `path` (created, never replaced),
    in Terraform's layout; (whether a file was written, diagnostics)."""
    import os

    from tfconsole.config.genconfig import FILE_HEADER, file_entry

    d = Diagnostics()
    parts = [file_entry(ch.importing.id if ch.importing else "", ch.generated_config)
             for ch in plan.changes if ch.generated_config]
    if not parts:
        return False, d
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False, check_generate_target(path)
    except OSError as exc:
        d.error("Failed to create target generated file",
                f"Terraform could not create the generated file ({path}) in the target directory: {exc.strerror}. "
                "Depending on the error message, this may be a bug in Terraform itself. If so, please report it!")
        return False, d
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(FILE_HEADER + "".join(parts))
    # Terraform reports the file only when the last change it happens to list (in completion
    # order) has generated configuration; tfconsole always says it wrote one
    d.warning("Config generation is experimental",
              "Generating configuration during import is currently experimental, and the generated configuration "
              "format may change in future versions.")
    return True, d
