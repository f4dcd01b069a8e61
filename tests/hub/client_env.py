"""The environment the Python client is run in by the Hub tests (clients_check.py,
read_back.py). huggingface_hub reads it once, at import, so this module is imported first.

`use_stand_in(base, prefix)` points the client at the stand-in (DatasetCard.load has no
endpoint argument), gives it a home and a cache of its own in a new temporary folder (returned),
and keeps every token of the machine's user from it.
"""

import os
import tempfile


def use_stand_in(base, prefix):
    tmp = tempfile.mkdtemp(prefix=prefix)
    os.environ["HF_ENDPOINT"] = base
    os.environ["HF_HOME"] = os.path.join(tmp, "home")
    os.environ["HF_HUB_CACHE"] = os.path.join(tmp, "cache")
    os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"
    os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
    os.environ["HF_HUB_DISABLE_IMPLICIT_TOKEN"] = "1"
    for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_HUB_OFFLINE"):
        os.environ.pop(name, None)
    return tmp
