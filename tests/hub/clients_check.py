"""Proves the Hub stand-in (tests/hub_standin.py) against the official Python client, PyPI
`huggingface_hub`: the calls the app's "publish to the Hub" and "community leaderboard" features
rest on, made the way a user of the client makes them.

Usage: HUB_PYTHON clients_check.py BASE_URL (the stand-in's `http://127.0.0.1:PORT`)

Prints one JSON line (`{"ok": true, ...}` or `{"ok": false, "failures": [...]}`) and exits
non-zero on any mismatch. Uses only the marker tokens the stand-in knows.
"""

import json
import os
import sys
import traceback
import urllib.request
import uuid

from client_env import use_stand_in

BASE = sys.argv[1].rstrip("/")
TMP = use_stand_in(BASE, "hub-check-")

import huggingface_hub  # noqa: E402
from huggingface_hub import CommitOperationAdd, DatasetCard, HfApi, hf_hub_download  # noqa: E402
from huggingface_hub.errors import HfHubHTTPError, RepositoryNotFoundError  # noqa: E402

ALICE = "hf_marker_ALICE_write_0000"
BOB = "hf_marker_BOB_write_0000"
CAROL = "hf_marker_CAROL_read_0000"

README = """---
license: cc-by-4.0
tags:
- react-arena
pretty_name: ReAct Arena votes
---
# ReAct Arena votes

Votes cast in ReAct Arena.
"""
VOTES_X = b'{"run":"r1","winner":"react"}\n{"run":"r2","winner":"think"}\n'
VOTES_Y = b'{"run":"r3","winner":"act"}\n'

failures: list[str] = []
summary: dict = {"client": "huggingface_hub", "version": huggingface_hub.__version__}


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def control(path, payload):
    req = urllib.request.Request(
        BASE + path, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read())


def status_of(call):
    """The HTTP status of the client's error from `call`, None if it did not raise one."""
    try:
        call()
    except HfHubHTTPError as err:
        return err.response.status_code if err.response is not None else -1
    return None


def main():
    suffix = uuid.uuid4().hex[:8]
    repo_id = f"alice/arena-votes-{suffix}"
    api = HfApi(endpoint=BASE, token=ALICE)

    me = api.whoami()
    check(me.get("name") == "alice", f"whoami name: {me.get('name')}")
    check(me.get("auth", {}).get("accessToken", {}).get("role") == "write", f"whoami role: {me.get('auth')}")

    url1 = api.create_repo(repo_id, repo_type="dataset", private=False, exist_ok=True)
    url2 = api.create_repo(repo_id, repo_type="dataset", private=False, exist_ok=True)
    check(url1.repo_id == repo_id and url1.repo_type == "dataset", f"create_repo url: {url1!r}")
    check(url2.repo_id == repo_id, f"create_repo again (exist_ok): {url2!r}")

    first = api.create_commit(
        repo_id,
        repo_type="dataset",
        operations=[
            CommitOperationAdd("README.md", README.encode()),
            CommitOperationAdd("votes/x.jsonl", VOTES_X),
        ],
        commit_message="Add votes",
    )
    check(len(first.oid) == 40, f"commit oid: {first.oid}")
    check(first.commit_url.endswith(f"/datasets/{repo_id}/commit/{first.oid}"), f"commit url: {first.commit_url}")
    second = api.upload_file(
        path_or_fileobj=VOTES_Y, path_in_repo="votes/y.jsonl", repo_id=repo_id, repo_type="dataset"
    )
    check(second.oid != first.oid, "upload_file made a new commit")

    files = api.list_repo_files(repo_id, repo_type="dataset")
    check({"README.md", "votes/x.jsonl", "votes/y.jsonl"} <= set(files), f"list_repo_files: {files}")
    tree = list(api.list_repo_tree(repo_id, repo_type="dataset", path_in_repo="votes"))
    check(sorted(f.path for f in tree) == ["votes/x.jsonl", "votes/y.jsonl"], f"list_repo_tree(votes): {tree}")

    # More files than one page of the tree API: the client follows its `Link` header.
    many = f"many-files-{suffix}"
    control("/_standin/seed", {"owner": "alice", "name": many, "private": False,
                               "files": {f"votes/{i:04d}.jsonl": "{}\n" for i in range(1500)}})
    many_files = api.list_repo_files(f"alice/{many}", repo_type="dataset")
    check(len(many_files) == 1500, f"list_repo_files over two pages: {len(many_files)}")

    path = hf_hub_download(
        repo_id, "votes/x.jsonl", repo_type="dataset", token=ALICE, cache_dir=os.path.join(TMP, "dl")
    )
    with open(path, "rb") as f:
        check(f.read() == VOTES_X, "hf_hub_download bytes")
    at_first = hf_hub_download(
        repo_id, "votes/x.jsonl", repo_type="dataset", revision=first.oid, cache_dir=os.path.join(TMP, "dl2")
    )
    with open(at_first, "rb") as f:
        check(f.read() == VOTES_X, "hf_hub_download at the first commit, anonymously")
    check(
        status_of(lambda: hf_hub_download(repo_id, "votes/y.jsonl", repo_type="dataset", revision=first.oid,
                                          cache_dir=os.path.join(TMP, "dl3")))
        == 404,
        "a file added later is missing at the first commit",
    )

    card = DatasetCard.load(repo_id, repo_type="dataset", token=ALICE)
    check(card.data.license == "cc-by-4.0", f"card license: {card.data.license}")
    check("react-arena" in (card.data.tags or []), f"card tags: {card.data.tags}")

    info = api.dataset_info(repo_id)
    check("react-arena" in (info.tags or []), f"dataset_info tags: {info.tags}")
    check("license:cc-by-4.0" in (info.tags or []), f"dataset_info license tag: {info.tags}")
    check(info.sha == second.oid, f"dataset_info sha {info.sha} != head {second.oid}")
    check(info.private is False, "dataset_info private")
    old = api.dataset_info(repo_id, revision=first.oid)
    check(sorted(s.rfilename for s in old.siblings) == [".gitattributes", "README.md", "votes/x.jsonl"],
          f"dataset_info at the first commit: {old.siblings}")

    listed = [d.id for d in api.list_datasets(filter="react-arena")]
    check(repo_id in listed, f"list_datasets(filter=react-arena) lacks {repo_id}")
    searched = [d.id for d in api.list_datasets(search=f"arena-votes-{suffix}", full=True)]
    check(searched == [repo_id], f"list_datasets(search): {searched}")
    check(repo_id in [d.id for d in HfApi(endpoint=BASE, token=False).list_datasets(author="alice")],
          "anonymous list_datasets(author=alice)")

    # Bob's private repo: listed for bob only.
    secret = f"bob/private-votes-{suffix}"
    bob = HfApi(endpoint=BASE, token=BOB)
    bob.create_repo(secret, repo_type="dataset", private=True)
    bob.upload_file(path_or_fileobj=README.encode(), path_in_repo="README.md", repo_id=secret, repo_type="dataset")
    check(secret in [d.id for d in bob.list_datasets(filter="react-arena")], "bob sees his private repo")
    check(secret not in [d.id for d in api.list_datasets(filter="react-arena")], "alice must not see bob's private repo")
    anonymous = HfApi(endpoint=BASE, token=False)
    check(secret not in [d.id for d in anonymous.list_datasets(filter="react-arena")],
          "anonymous must not see bob's private repo")
    try:
        api.dataset_info(secret)
        check(False, "alice read bob's private repo")
    except RepositoryNotFoundError:
        pass

    # Carol's token is read-only: no commit, not even in her own namespace.
    control("/_standin/seed", {"owner": "carol", "name": f"notes-{suffix}", "private": False,
                               "files": {"README.md": "# notes\n"}})
    carol = HfApi(endpoint=BASE, token=CAROL)
    check(carol.whoami()["auth"]["accessToken"]["role"] == "read", "carol's role")
    for target in (f"carol/notes-{suffix}", repo_id):
        status = status_of(lambda: carol.upload_file(path_or_fileobj=b"x", path_in_repo="x.txt",
                                                     repo_id=target, repo_type="dataset"))
        check(status == 403, f"carol's commit to {target}: status {status}")
    status = status_of(lambda: carol.create_repo(f"carol/new-{suffix}", repo_type="dataset"))
    check(status == 403, f"carol's create_repo: status {status}")
    status = status_of(lambda: HfApi(endpoint=BASE, token="hf_marker_UNKNOWN_0000").whoami())
    check(status == 401, f"unknown token's whoami: status {status}")

    # A 429 from the Hub surfaces as the client's error with that status.
    control("/_standin/fault", {"status": {"path_prefix": "/api/whoami-v2", "code": 429, "times": 1}})
    try:
        api.whoami()
        check(False, "whoami under a 429 fault did not raise")
    except HfHubHTTPError as err:
        check(err.response.status_code == 429, f"429 fault: status {err.response.status_code}")
        check(err.response.headers.get("Retry-After") is not None, "429 without Retry-After")
    check(api.whoami()["name"] == "alice", "whoami after the 429 fault")

    summary.update(repo=repo_id, commits=[first.oid, second.oid], files=sorted(files), listed=len(listed))


try:
    main()
except Exception:  # noqa: BLE001 - any error is a failed check, reported in the summary
    failures.append("exception: " + traceback.format_exc(limit=6))
summary["ok"] = not failures
if failures:
    summary["failures"] = failures
print(json.dumps(summary))
sys.exit(0 if summary["ok"] else 1)
