"""Reads a repository the page published back with the official Python client (PyPI
`huggingface_hub`), as anyone would: its files, its dataset card's metadata, the tags the Hub
lists it under, and whether a search by the arena's tag finds it.

Usage: HUB_PYTHON read_back.py BASE_URL OWNER/NAME

Prints one JSON object: {"files": {path: text}, "card": {...}, "tags": [...], "listed": bool}.
No token: what it reads is what the public reads.
"""

import json
import os
import sys
import tempfile

BASE = sys.argv[1].rstrip("/")
REPO = sys.argv[2]
TMP = tempfile.mkdtemp(prefix="hub-read-back-")
os.environ["HF_ENDPOINT"] = BASE
os.environ["HF_HOME"] = os.path.join(TMP, "home")
os.environ["HF_HUB_CACHE"] = os.path.join(TMP, "cache")
os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"
os.environ["HF_HUB_DISABLE_PROGRESS_BARS"] = "1"
os.environ["HF_HUB_DISABLE_IMPLICIT_TOKEN"] = "1"
for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_HUB_OFFLINE"):
    os.environ.pop(name, None)

from huggingface_hub import DatasetCard, HfApi, hf_hub_download  # noqa: E402

api = HfApi(endpoint=BASE, token=False)
files = {}
for path in api.list_repo_files(REPO, repo_type="dataset"):
    if path == ".gitattributes":
        continue
    local = hf_hub_download(REPO, path, repo_type="dataset", endpoint=BASE, token=False)
    with open(local, encoding="utf-8", newline="") as f:
        files[path] = f.read()
card = DatasetCard.load(REPO, repo_type="dataset", token=False)
info = api.dataset_info(REPO)
listed = any(d.id == REPO for d in api.list_datasets(filter="react-arena"))

print(
    json.dumps(
        {
            "files": files,
            "card": card.data.to_dict(),
            "tags": list(info.tags or []),
            "listed": listed,

        }
    )
)
