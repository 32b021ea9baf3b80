"""The test settings make a media and a static folder under the system's temporary directory for each process, and
remove them when it ends: a run of the suite leaves nothing behind in /tmp (it left two folders per process)."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHOW = "from django.conf import settings; print(settings.MEDIA_ROOT); print(settings.STATIC_ROOT)"


def run(tmp_path, **env) -> list[Path]:
    inherited = {name: value for name, value in os.environ.items() if name != "TEST_MEDIA_ROOT"}
    environment = {**inherited, "DJANGO_SETTINGS_MODULE": "config.settings.test", "TMPDIR": str(tmp_path), **env}
    out = subprocess.run([sys.executable, "-c", f"import django; django.setup(); {SHOW}"], cwd=ROOT, env=environment,
                         capture_output=True, text=True, check=True).stdout
    return [Path(line) for line in out.split()]


def test_a_process_removes_the_folders_it_made(tmp_path):
    media, static = run(tmp_path)
    assert media.parent == tmp_path and static.parent == tmp_path
    assert not media.exists() and not static.exists()
    assert list(tmp_path.iterdir()) == []


def test_a_media_folder_given_by_the_parent_process_is_kept(tmp_path):
    given = tmp_path / "media"
    given.mkdir()
    media, _ = run(tmp_path, TEST_MEDIA_ROOT=str(given))
    assert media == given and given.exists()
