"""JDK folders the tests build: the course JDK under another name whose release file declares another feature
version, as a learner's JDK 26 or 27 would. tools/jbang, `make doctor` and the helpers (Jdks.courseFeature) all read
the feature version from that file, so a test points UNPINNED_JAVA_HOME (or a kernel) at such a folder instead of
the product carrying a hook to pretend."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

from conftest import HOME


def course_jdk() -> Path:
    return Path((HOME / ".course" / "java-home").read_text().strip())


def jdk_declaring(feature: int | str, where: Path) -> Path:
    """A JDK at `where` that runs as the course JDK but declares `feature` (26, or a text like "025") in its release
    file. bin/java and
    lib/server/libjvm.so are copies (the JVM takes java.home from the real location of libjvm.so); everything else
    links to the course JDK."""
    real = course_jdk()
    if (where / "release").is_file():
        return where
    where.mkdir(parents=True)
    for entry in real.iterdir():
        if entry.name not in ("bin", "lib", "release"):
            (where / entry.name).symlink_to(entry)
    for folder in ("bin", "lib", "lib/server"):
        (where / folder).mkdir(exist_ok=True)
        for entry in (real / folder).iterdir():
            target = where / folder / entry.name
            if (folder, entry.name) in (("bin", "java"), ("lib/server", "libjvm.so")):
                shutil.copy2(entry, target)
            elif not (folder == "lib" and entry.name == "server"):
                target.symlink_to(entry)
    text = (real / "release").read_text()
    (where / "release").write_text(re.sub(r'^JAVA_VERSION="[^"]*"', f'JAVA_VERSION="{feature}"', text, flags=re.M))
    return where
