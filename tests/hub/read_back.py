"""Reads a repository the page published back with the official Python client (PyPI
`huggingface_hub`), as anyone would: its files, its dataset card's metadata, the tags the Hub
lists it under, and whether a search by the arena's tag finds it.

Usage: HUB_PYTHON read_back.py BASE_URL OWNER/NAME

Prints one JSON object: {"files": {path: text}, "card": {...}, "tags": [...], "listed": bool}.
No token: what it reads is what the public reads.
"""

import json
import sys

from client_env import use_stand_in

BASE = sys.argv[1].rstrip("/")
REPO = sys.argv[2]
use_stand_in(BASE, "hub-read-back-")

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
