"""A stand-in for the Hugging Face Hub's HTTP API on loopback, for the tests of the app's "publish
to the Hub" and "community leaderboard" features. Dataset repos only. Checked against the two
official clients (npm `@huggingface/hub`, PyPI `huggingface_hub`) by tests/hub/clients_check.*
and tests/hub_rig.rs.

Usage: hub_standin.py PORT (PORT 0: any free port). Prints `READY http://127.0.0.1:PORT` on stdout
once it listens; exits when its parent process goes away. Stdlib HTTP server and PyYAML (which
comes with huggingface_hub); all state in memory.

Every reply and error shape below is taken from the clients' own sources (named above each
handler: `js:` is node_modules/@huggingface/hub/src, `py:` is the venv's huggingface_hub package)
or from public Hub threads where the clients only pass a body through; guesses are marked GUESS.

Tokens (markers, never real credentials): ALICE and BOB write, CAROL read-only (see TOKENS).

Test controls, not authenticated and never logged or faulted:
- GET /_standin/log: every request so far, `{method, path, origin, has_authorization,
  authorization, content_type, body, client_hung_up}` (body: POSTs, text, first MiB);
  POST /_standin/log/clear.
- POST /_standin/seed {owner, name, private, files: {path: text}, likes?}: (re)creates the
  dataset repo with exactly those files in one commit, and that many likes (default 0).
- POST /_standin/reset: no repos at all (the tests of one binary share the stand-in).
- POST /_standin/fault, one of:
  {"many_datasets": N}: /api/datasets also returns N public entries tagged react-arena (filters
    apply, `limit` does not), all in one reply without Link.
  {"huge_file": {"repo", "path", "bytes", "declared_size"}}: the file is served by streaming
    generated JSON lines (never held in memory); tree listings report `declared_size`.
  {"slow": {"repo", "seconds"}}: every request about that repo waits first, in small sleeps,
    and stops (no reply) as soon as the client hangs up.
  {"status": {"path_prefix", "code": 401|403|429|..., "times": n (default 1)}}: the next n
    requests whose path starts with path_prefix get that status with the Hub's error body and
    headers for it.
  {"clear": true}: no faults.
"""

import os

# Read before anything slow is imported: if the parent dies first, we would watch the wrong one.
PARENT = os.getppid()

import base64  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import mimetypes  # noqa: E402
import select  # noqa: E402
import socket  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import urllib.parse  # noqa: E402
from datetime import datetime, timezone  # noqa: E402
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer  # noqa: E402

import yaml  # noqa: E402

TOKENS = {
    "hf_marker_ALICE_write_0000": ("alice", "write"),
    "hf_marker_BOB_write_0000": ("bob", "write"),
    "hf_marker_CAROL_read_0000": ("carol", "read"),
}
FULLNAMES = {"alice": "Alice Example", "bob": "Bob Example", "carol": "Carol Example"}

LOG_BODY_LIMIT = 1 << 20
TREE_PAGE = 1000  # py: hf_api.list_repo_tree follows `Link` pages (utils/_pagination.py)
LIST_PAGE_MAX = 1000
# What the Hub puts in a new repo's first commit (trimmed).
GITATTRIBUTES = (
    b"*.parquet filter=lfs diff=lfs merge=lfs -text\n"
    b"*.arrow filter=lfs diff=lfs merge=lfs -text\n"
    b"*.bin filter=lfs diff=lfs merge=lfs -text\n"
    b"*.safetensors filter=lfs diff=lfs merge=lfs -text\n"
    b"*.gguf filter=lfs diff=lfs merge=lfs -text\n"
)

LOCK = threading.RLock()
REPOS: dict = {}  # "ns/name" -> Repo
LOG: list = []
FAULTS: dict = {"many_datasets": 0, "huge": {}, "slow": {}, "status": []}
COUNTER = [0]


def now_iso() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (
        datetime.now(timezone.utc).microsecond // 1000
    )


def sha1_hex(*parts: bytes) -> str:
    h = hashlib.sha1()
    for p in parts:
        h.update(p)
    return h.hexdigest()


def git_blob_oid(data: bytes) -> str:
    return sha1_hex(b"blob %d\0" % len(data), data)


def object_id() -> str:
    with LOCK:
        COUNTER[0] += 1
        n = COUNTER[0]
    return hashlib.md5(b"id-%d-%f" % (n, time.time())).hexdigest()[:24]


class Commit:
    def __init__(self, oid, parent, files, title, description, author):
        self.oid = oid
        self.parent = parent
        self.files = files  # path -> bytes (shared between snapshots)
        self.title = title
        self.description = description
        self.author = author
        self.date = now_iso()


class Repo:
    def __init__(self, owner, name, private):
        self.owner = owner
        self.name = name
        self.id = f"{owner}/{name}"
        self.private = private
        self.mongo_id = object_id()
        self.created_at = now_iso()
        self.likes = 0
        self.commits: dict = {}
        self.branches = {"main": None}

    def commit(self, files, title, description, author, branch="main"):
        parent = self.branches.get(branch)
        with LOCK:
            COUNTER[0] += 1
            n = COUNTER[0]
        oid = sha1_hex(self.id.encode(), (parent or "").encode(), b"%d" % n, repr(time.time()).encode())
        self.commits[oid] = Commit(oid, parent, files, title, description, author)
        self.branches[branch] = oid
        return oid

    def resolve(self, rev):
        """Commit of a branch name, `HEAD` (the default branch: js lib/dataset-info.ts asks for
        revision/HEAD) or a full commit id; None if none of these."""
        if rev == "HEAD":
            rev = "main"
        if rev in self.branches:
            oid = self.branches[rev]
            return self.commits.get(oid) if oid else Commit(None, None, {}, "", "", self.owner)
        return self.commits.get(rev)

    def head(self):
        return self.resolve("main")


def card_data(files) -> dict | None:
    """The YAML front matter of README.md, as the Hub's `cardData`."""
    readme = files.get("README.md")
    if readme is None:
        return None
    text = readme.decode("utf-8", "replace").replace("\r\n", "\n")
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---", 4)
    if end < 0:
        return None
    try:
        data = yaml.safe_load(text[4:end])
    except yaml.YAMLError:
        return None
    return data if isinstance(data, dict) else None


def repo_tags(files) -> list:
    data = card_data(files) or {}
    tags = [str(t) for t in (data.get("tags") or []) if isinstance(t, (str, int, float))]
    lic = data.get("license")
    for value in lic if isinstance(lic, list) else [lic] if lic else []:
        tags.append(f"license:{value}")
    return list(dict.fromkeys(tags))


def huge_for(repo_id):
    with LOCK:
        return {path: spec for (rid, path), spec in FAULTS["huge"].items() if rid == repo_id}


# ---------------------------------------------------------------------------------------------
# The huge file: fixed-width JSON lines, generated for any byte range.
# ---------------------------------------------------------------------------------------------

HUGE_LINE = 128


def huge_line(index: int, length: int) -> bytes:
    head = '{"run":"r%08d","model_a":"model-a","model_b":"model-b","winner":"%s","pad":"' % (
        index,
        "ab"[index % 2],
    )
    tail = '"}\n'
    pad = length - len(head) - len(tail)
    if pad < 0:
        return b" " * (length - 1) + b"\n" if length > 0 else b""
    return (head + "x" * pad + tail).encode()


def huge_bytes(total: int, start: int, end: int):
    """Yields bytes [start, end) of a `total`-byte file of JSON lines, in chunks of ~64 KiB."""
    full = total // HUGE_LINE
    last_len = HUGE_LINE + total % HUGE_LINE if full else total
    if full:
        full -= 1  # the last line takes the remainder
    pos = start
    while pos < end:
        index = pos // HUGE_LINE if pos < full * HUGE_LINE else full
        line_start = index * HUGE_LINE
        chunk = []
        size = 0
        while pos < end and size < 65536:
            length = HUGE_LINE if index < full else last_len
            line = huge_line(index, length)
            piece = line[pos - line_start : min(len(line), end - line_start)]
            chunk.append(piece)
            size += len(piece)
            pos += len(piece)
            index += 1
            line_start += length
        yield b"".join(chunk)


# ---------------------------------------------------------------------------------------------
# Errors, as the Hub sends them
# ---------------------------------------------------------------------------------------------


class HubError(Exception):
    def __init__(self, status, message, code=None, headers=None, extra=None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.headers = headers or {}
        self.extra = extra or {}


# py: utils/_http.py hf_raise_for_status reads `X-Error-Code` (RepoNotFound, RevisionNotFound,
# EntryNotFound) and `X-Error-Message` from the headers and `{"error": ...}` from the body
# (_format); js: error.ts createApiError reads `json.error`.
def repo_not_found():
    return HubError(404, "Repository not found", "RepoNotFound")


def revision_not_found(rev):
    return HubError(404, f"Invalid rev id: {rev}", "RevisionNotFound")


def entry_not_found(commit_oid=None):
    headers = {"X-Repo-Commit": commit_oid} if commit_oid else {}
    return HubError(404, "Entry not found", "EntryNotFound", headers)


def unauthorized(has_token: bool):
    # Bodies from public threads: huggingface/huggingface_hub#3368 (a token the Hub does not know),
    # #2002 (no valid credentials). py: hf_raise_for_status special-cases this X-Error-Message.
    if has_token:
        return HubError(401, "Invalid credentials in Authorization header")
    return HubError(401, "Invalid username or password.")


def forbidden_write():
    # huggingface/huggingface_hub#1182: preupload/commit without write access.
    return HubError(403, "Forbidden: pass `create_pr=1` as a query parameter to create a Pull Request")


def forbidden_namespace():
    # nlp-with-transformers/notebooks#60, OpenCodeInterpreter/OpenCodeInterpreter#13: create_repo
    # in a namespace the token may not write to.
    return HubError(403, "You don't have the rights to create a dataset under this namespace")


def rate_limited():
    # py: utils/_http.py parse_ratelimit_headers (its docstring's example values) and
    # _parse_retry_after; the body text is a GUESS (the clients only pass it through).
    return HubError(
        429,
        "You have exceeded our hourly quotas for action 'api'. Retry later.",
        headers={
            "Retry-After": "55",
            "RateLimit": '"api";r=0;t=55',
            "RateLimit-Policy": '"fixed window";"api";q=500;w=300',
        },
    )


def fault_error(code):
    if code == 401:
        return unauthorized(True)
    if code == 403:
        return forbidden_write()
    if code == 429:
        return rate_limited()
    if code == 404:
        return repo_not_found()
    return HubError(code, "Internal Error - We're working hard to fix this as soon as possible!")


# ---------------------------------------------------------------------------------------------
# The handler
# ---------------------------------------------------------------------------------------------

EXPOSED = (
    "X-Repo-Commit, ETag, X-Error-Code, X-Error-Message, Link, Content-Length, Content-Range, "
    "Accept-Ranges, Retry-After, RateLimit, RateLimit-Policy, X-Linked-Size, X-Linked-ETag, X-Request-Id"
)


class ClientGone(Exception):
    pass


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "hub-standin"

    def version_string(self):
        return self.server_version

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        if os.environ.get("HUB_STANDIN_LOG"):
            sys.stderr.write("hub-standin: " + (format % args) + "\n")

    # -- plumbing ---------------------------------------------------------------------------

    def base(self) -> str:
        return "http://" + (self.headers.get("Host") or "127.0.0.1:%d" % self.server.server_port)

    def read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(out)
                out += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def cors(self):
        origin = self.headers.get("Origin")
        self.send_header("Access-Control-Allow-Origin", origin or "*")
        if origin:
            self.send_header("Vary", "Origin")
        self.send_header("Access-Control-Expose-Headers", EXPOSED)

    def reply(self, status, body=b"", content_type="application/json; charset=utf-8", headers=None, head=False):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        elif isinstance(body, str):
            body = body.encode()
        self.send_response(status)
        self.cors()
        if status != 204:
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if not head and status != 204:
            self.wfile.write(body)

    def reply_error(self, err: HubError, head=False):
        headers = {"X-Error-Message": err.message, **err.headers}
        if err.code:
            headers["X-Error-Code"] = err.code
        self.reply(err.status, {"error": err.message, **err.extra}, headers=headers, head=head)

    def client_hung_up(self) -> bool:
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            if readable:
                return self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True
        return False

    def user(self):
        """(name, role) of the bearer token, None without one; raises 401 for an unknown one."""
        auth = self.headers.get("Authorization")
        if not auth:
            return None
        token = auth[7:].strip() if auth.lower().startswith("bearer ") else auth.strip()
        if token not in TOKENS:
            raise unauthorized(True)
        return TOKENS[token]

    def need_user(self):
        user = self.user()
        if user is None:
            raise unauthorized(False)
        return user

    # -- entry points -----------------------------------------------------------------------

    def do_OPTIONS(self):
        self.record(b"")
        self.send_response(204)
        self.send_header("Access-Control-Allow-Origin", self.headers.get("Origin") or "*")
        if self.headers.get("Origin"):
            self.send_header("Vary", "Origin")
        self.send_header("Access-Control-Allow-Methods", "GET, HEAD, POST, OPTIONS")
        self.send_header("Access-Control-Allow-Headers", "authorization, content-type, range")
        self.send_header("Access-Control-Expose-Headers", EXPOSED)
        self.send_header("Access-Control-Max-Age", "600")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        self.dispatch("GET")

    def do_HEAD(self):
        self.dispatch("HEAD")

    def do_POST(self):
        self.dispatch("POST")

    def record(self, body: bytes):
        entry = {
            "method": self.command,
            "path": self.path,
            "origin": self.headers.get("Origin"),
            "has_authorization": self.headers.get("Authorization") is not None,
            "authorization": self.headers.get("Authorization"),
            "content_type": self.headers.get("Content-Type"),
            "body": body[:LOG_BODY_LIMIT].decode("utf-8", "replace") if self.command == "POST" else None,
            "client_hung_up": False,
        }
        with LOCK:
            LOG.append(entry)
        return entry

    def dispatch(self, method):
        body = self.read_body() if method == "POST" else b""
        url = urllib.parse.urlsplit(self.path)
        raw_path = url.path
        query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        if raw_path.startswith("/_standin/"):
            try:
                return self.control(method, raw_path, body)
            except HubError as err:
                return self.reply_error(err)
            except (ValueError, KeyError, TypeError) as err:
                return self.reply(400, {"error": f"bad control request: {err}"})
        entry = self.record(body)
        try:
            self.wait_if_slow(raw_path, entry)
            fault = self.status_fault(raw_path)
            if fault:
                raise fault_error(fault)
            self.route(method, raw_path, query, body)
        except ClientGone:
            entry["client_hung_up"] = True
            self.close_connection = True
        except HubError as err:
            self.reply_error(err, head=method == "HEAD")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except (ValueError, KeyError, TypeError) as err:
            self.reply_error(HubError(400, f"Bad request: {err}"), head=method == "HEAD")

    def wait_if_slow(self, raw_path, entry):
        with LOCK:
            slow = dict(FAULTS["slow"])
        for repo_id, seconds in slow.items():
            if f"/{repo_id}/" in raw_path + "/":
                deadline = time.monotonic() + seconds
                while time.monotonic() < deadline:
                    if self.client_hung_up():
                        raise ClientGone()
                    time.sleep(0.05)

    def status_fault(self, raw_path):
        with LOCK:
            for fault in FAULTS["status"]:
                if raw_path.startswith(fault["path_prefix"]) and fault["times"] > 0:
                    fault["times"] -= 1
                    code = fault["code"]
                    FAULTS["status"] = [f for f in FAULTS["status"] if f["times"] > 0]
                    return code
        return None

    def route(self, method, raw_path, query, body):
        parts = [urllib.parse.unquote(p) for p in raw_path.split("/")[1:]]
        if method == "GET" and raw_path == "/api/whoami-v2":
            return self.whoami()
        if method == "POST" and raw_path == "/api/repos/create":
            return self.create_repo(body)
        if method == "POST" and raw_path == "/api/validate-yaml":
            return self.validate_yaml(body)
        if method == "GET" and raw_path.rstrip("/") == "/api/datasets":
            return self.list_datasets(query)
        if len(parts) >= 4 and parts[0] == "api" and parts[1] == "datasets":
            repo_id = f"{parts[2]}/{parts[3]}"
            rest = parts[4:]
            if method == "GET" and not rest:
                return self.dataset_info(repo_id, "main", query)
            if method == "GET" and len(rest) == 2 and rest[0] == "revision":
                return self.dataset_info(repo_id, rest[1], query)
            if method == "POST" and len(rest) == 2 and rest[0] == "preupload":
                return self.preupload(repo_id, rest[1], body, query)
            if method == "POST" and len(rest) == 2 and rest[0] == "commit":
                return self.commit(repo_id, rest[1], body, query)
            if method == "GET" and len(rest) >= 2 and rest[0] == "tree":
                return self.tree(repo_id, rest[1], "/".join(rest[2:]), query)
            if method == "POST" and len(rest) == 2 and rest[0] == "paths-info":
                return self.paths_info(repo_id, rest[1], body)
        if method in ("GET", "HEAD") and len(parts) >= 6 and parts[0] == "datasets" and parts[3] == "resolve":
            return self.resolve(f"{parts[1]}/{parts[2]}", parts[4], "/".join(parts[5:]), method == "HEAD")
        raise HubError(404, "Sorry, we can't find the page you are looking for.")

    # -- test controls ----------------------------------------------------------------------

    def control(self, method, path, body):
        if method == "GET" and path == "/_standin/log":
            with LOCK:
                return self.reply(200, list(LOG))
        if method == "POST" and path == "/_standin/log/clear":
            with LOCK:
                LOG.clear()
            return self.reply(200, {"ok": True})
        if method == "POST" and path == "/_standin/seed":
            spec = json.loads(body or b"{}")
            repo = Repo(spec["owner"], spec["name"], bool(spec.get("private", False)))
            repo.likes = int(spec.get("likes", 0))
            files = {p: (t if isinstance(t, str) else json.dumps(t)).encode() for p, t in spec.get("files", {}).items()}
            oid = repo.commit(files, "Seed", "", spec["owner"])
            with LOCK:
                REPOS[repo.id] = repo
            return self.reply(200, {"id": repo.id, "commitOid": oid})
        if method == "POST" and path == "/_standin/reset":
            with LOCK:
                REPOS.clear()
            return self.reply(200, {"repos": 0})
        if method == "POST" and path == "/_standin/fault":
            spec = json.loads(body or b"{}")
            with LOCK:
                if spec.get("clear"):
                    FAULTS.update(many_datasets=0, huge={}, slow={}, status=[])
                if "many_datasets" in spec:
                    FAULTS["many_datasets"] = int(spec["many_datasets"])
                if "huge_file" in spec:
                    h = spec["huge_file"]
                    owner, name = h["repo"].split("/")
                    if h["repo"] not in REPOS:
                        repo = Repo(owner, name, False)
                        repo.commit({}, "initial commit", "", owner)
                        REPOS[repo.id] = repo
                    FAULTS["huge"][(h["repo"], h["path"])] = {
                        "bytes": int(h["bytes"]),
                        "declared_size": int(h.get("declared_size", h["bytes"])),
                    }
                if "slow" in spec:
                    FAULTS["slow"][spec["slow"]["repo"]] = float(spec["slow"]["seconds"])
                if "status" in spec:
                    s = spec["status"]
                    FAULTS["status"].append(
                        {"path_prefix": s["path_prefix"], "code": int(s["code"]), "times": int(s.get("times", 1))}
                    )
                state = {
                    "many_datasets": FAULTS["many_datasets"],
                    "huge_file": [f"{r}:{p}" for r, p in FAULTS["huge"]],
                    "slow": FAULTS["slow"],
                    "status": FAULTS["status"],
                }
            return self.reply(200, state)
        raise HubError(404, "no such test control")

    # -- the Hub API ------------------------------------------------------------------------

    # js: lib/who-am-i.ts (WhoAmIUser, AuthInfo; it parses auth.accessToken.createdAt) and
    # types/api/api-who-am-i.ts; py: hf_api.py HfApi.whoami (returns the JSON as is).
    def whoami(self):
        name, role = self.need_user()
        self.reply(
            200,
            {
                "type": "user",
                "id": hashlib.md5(name.encode()).hexdigest()[:24],
                "name": name,
                "fullname": FULLNAMES[name],
                "email": f"{name}@example.invalid",
                "emailVerified": True,
                "isPro": False,
                "canPay": False,
                "billingMode": "prepaid",
                "periodEnd": None,
                "avatarUrl": f"/avatars/{name}.svg",
                "orgs": [],
                "auth": {
                    "type": "access_token",
                    "accessToken": {
                        "displayName": f"{name}-{role}",
                        "role": role,
                        "createdAt": "2026-01-01T00:00:00.000Z",
                    },
                },
            },
        )

    # js: lib/create-repo.ts (sends name, organization, type, visibility, files?; reads
    # `url`); py: hf_api.py HfApi.create_repo (sends name, organization, type, visibility; reads
    # `url`; with exist_ok a 409 is fine). The 409 body's text is a GUESS.
    def create_repo(self, body):
        name, role = self.need_user()
        spec = json.loads(body or b"{}")
        repo_type = spec.get("type") or "model"
        if repo_type != "dataset":
            raise HubError(400, "This stand-in only hosts dataset repos")
        owner = spec.get("organization") or name
        if owner != name or role != "write":
            raise forbidden_namespace()
        repo_name = spec.get("name") or ""
        if not repo_name or "/" in repo_name:
            raise HubError(400, "Invalid repo name")
        repo_id = f"{owner}/{repo_name}"
        url = f"{self.base()}/datasets/{repo_id}"
        private = spec.get("visibility") == "private" or spec.get("private") is True
        with LOCK:
            if repo_id in REPOS:
                raise HubError(409, "You already created this dataset repo", extra={"url": url})
            repo = Repo(owner, repo_name, private)
            files = {".gitattributes": GITATTRIBUTES}
            for f in spec.get("files") or []:
                files[f["path"]] = base64.b64decode(f["content"]) if f.get("encoding") == "base64" else f["content"].encode()
            repo.commit(files, "initial commit", "", name)
            REPOS[repo_id] = repo
        self.reply(200, {"url": url, "name": repo_id, "id": repo.mongo_id})

    # py: hf_api.py HfApi._validate_yaml, called by create_commit before a README.md goes up:
    # `{"errors": [{"message"}], "warnings": [{"message"}]}`, 400 when the metadata is invalid.
    def validate_yaml(self, body):
        spec = json.loads(body or b"{}")
        text = (spec.get("content") or "").replace("\r\n", "\n")
        if text.startswith("---\n"):
            end = text.find("\n---", 4)
            try:
                data = yaml.safe_load(text[4:end] if end >= 0 else text[4:])
                if data is not None and not isinstance(data, dict):
                    raise yaml.YAMLError("metadata must be a mapping")
            except yaml.YAMLError as err:
                return self.reply(400, {"errors": [{"message": f"Invalid YAML: {err}"}], "warnings": []})
        self.reply(200, {"errors": [], "warnings": []})

    def readable_repo(self, repo_id):
        user = self.user()
        with LOCK:
            repo = REPOS.get(repo_id)
        if repo is None or (repo.private and (user is None or user[0] != repo.owner)):
            raise repo_not_found()
        return repo

    def writable_repo(self, repo_id, query):
        name, role = self.need_user()
        repo = self.readable_repo(repo_id)
        if repo.owner != name or role != "write":
            raise forbidden_write()
        if query.get("create_pr", ["0"])[0] not in ("", "0", "false"):
            raise HubError(400, "create_pr is not supported by the stand-in")
        return repo

    # py: _commit_api.py _fetch_upload_modes / _validate_preupload_info (`files[]` of {path,
    # uploadMode: "regular"|"lfs", shouldIgnore, oid?}; an `oid` equal to the local one makes the
    # client skip the file); js: lib/commit.ts (reads files[].uploadMode).
    def preupload(self, repo_id, rev, body, query):
        repo = self.writable_repo(repo_id, query)
        commit = repo.resolve(rev)
        if commit is None:
            raise revision_not_found(rev)
        spec = json.loads(body or b"{}")
        files = []
        for f in spec.get("files", []):
            entry = {"path": f["path"], "uploadMode": "regular", "shouldIgnore": False}
            if f["path"] in commit.files:
                entry["oid"] = git_blob_oid(commit.files[f["path"]])
            files.append(entry)
        self.reply(200, {"files": files, "commitOid": commit.oid})

    # py: _commit_api.py _prepare_commit_payload / _send_commit (ndjson: header {summary,
    # description, parentCommit?}, file {content, path, encoding: base64}, deletedFile,
    # deletedFolder; reads commitUrl, commitOid); js: lib/commit.ts (same lines; reads
    # commitOid, commitUrl, hookOutput, pullRequestUrl). The older JSON form ({summary,
    # description, files, deletedFiles, deletedFolders}) is accepted too.
    def commit(self, repo_id, rev, body, query):
        repo = self.writable_repo(repo_id, query)
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        header, ops = {}, []
        text = body.decode("utf-8")
        if content_type == "application/x-ndjson" or (content_type != "application/json" and "\n" in text.strip()):
            for line in text.splitlines():
                if line.strip():
                    item = json.loads(line)
                    if item.get("key") == "header":
                        header = item.get("value") or {}
                    else:
                        ops.append((item.get("key"), item.get("value") or {}))
        else:
            doc = json.loads(text or "{}")
            header = {k: doc.get(k) for k in ("summary", "description", "parentCommit") if k in doc}
            ops += [("file", f) for f in doc.get("files", [])]
            ops += [("lfsFile", f) for f in doc.get("lfsFiles", [])]
            ops += [("deletedFile", f) for f in doc.get("deletedFiles", [])]
            ops += [("deletedFolder", f) for f in doc.get("deletedFolders", [])]
        with LOCK:
            if rev not in repo.branches:
                raise revision_not_found(rev)
            head = repo.resolve(rev)
            parent = header.get("parentCommit")
            if parent and head.oid and parent != head.oid:
                # GUESS: the Hub refuses a stale parent; the text is ours.
                raise HubError(412, "A commit has happened since. Please refresh and try again.")
            files = dict(head.files)
            for key, value in ops:
                path = value.get("path", "")
                if key == "file":
                    data = value.get("content", "")
                    files[path] = base64.b64decode(data) if value.get("encoding") == "base64" else data.encode()
                elif key == "deletedFile":
                    if path not in files:
                        raise HubError(404, f"A file with this name doesn't exist: {path}", "EntryNotFound")
                    del files[path]
                elif key == "deletedFolder":
                    prefix = path.rstrip("/") + "/"
                    files = {p: d for p, d in files.items() if not p.startswith(prefix)}
                elif key == "lfsFile":
                    raise HubError(422, "LFS files are not supported by the stand-in (preupload says regular)")
                else:
                    raise HubError(400, f"Unknown commit operation: {key}")
            oid = repo.commit(files, header.get("summary") or "", header.get("description") or "", repo.owner, rev)
        self.reply(
            200,
            {
                "success": True,
                "commitOid": oid,
                "commitUrl": f"{self.base()}/datasets/{repo_id}/commit/{oid}",
                "hookOutput": "",
            },
        )

    def info(self, repo, commit, full=False, blobs=False):
        visible = commit.files
        huge = huge_for(repo.id)
        data = card_data(visible)
        out = {
            "_id": repo.mongo_id,
            "id": repo.id,
            "author": repo.owner,
            "sha": commit.oid,
            "lastModified": commit.date,
            "createdAt": repo.created_at,
            "private": repo.private,
            "gated": False,
            "disabled": False,
            "downloads": 0,
            "likes": repo.likes,
            "tags": repo_tags(visible),
        }
        if data is not None:
            out["cardData"] = data
        if full:
            siblings = []
            for path in sorted(set(visible) | set(huge)):
                s = {"rfilename": path}
                if blobs:
                    if path in huge:
                        s.update(size=huge[path]["declared_size"], blobId=sha1_hex(path.encode()))
                    else:
                        s.update(size=len(visible[path]), blobId=git_blob_oid(visible[path]))
                siblings.append(s)
            out["siblings"] = siblings
        return out

    @staticmethod
    def expanded(info, expand):
        if not expand:
            return info
        keys = set(expand)
        return {k: v for k, v in info.items() if k in ("_id", "id") or k in keys}

    # py: hf_api.py HfApi.dataset_info -> DatasetInfo(**json) (id, author, sha, lastModified,
    # private, tags, cardData, siblings[{rfilename, size?, blobId?}]; `blobs`, `expand`
    # params); js: types/api/api-dataset.ts ApiDatasetInfo.
    def dataset_info(self, repo_id, rev, query):
        repo = self.readable_repo(repo_id)
        commit = repo.resolve(rev)
        if commit is None:
            raise revision_not_found(rev)
        blobs = query.get("blobs", ["false"])[0].lower() in ("1", "true")
        info = self.info(repo, commit, full=True, blobs=blobs)
        self.reply(200, self.expanded(info, query.get("expand")))

    # py: hf_api.py HfApi.list_datasets (search may repeat, author, filter may repeat, sort,
    # limit, full, expand) and utils/_pagination.py (follows `Link: <url>; rel="next"`); js:
    # lib/list-datasets.ts (limit <= 500, author, search, filter, expand; reads _id, id,
    # private, downloads, likes, gated, lastModified; follows Link).
    def list_datasets(self, query):
        user = self.user()
        viewer = user[0] if user else None
        searches = [s.lower() for s in query.get("search", []) if s]
        author = (query.get("author") or [None])[0]
        tags = [t for t in query.get("filter", []) if t]
        full = (query.get("full") or ["false"])[0].lower() in ("1", "true")
        expand = query.get("expand")
        limit = query.get("limit")
        limit = max(1, min(int(limit[0]), LIST_PAGE_MAX)) if limit and limit[0].isdigit() else LIST_PAGE_MAX
        offset = 0
        if query.get("cursor"):
            offset = int(base64.urlsafe_b64decode(query["cursor"][0].encode()).decode())

        def keep(repo_id, owner, repo_tag_list):
            if author and owner != author:
                return False
            if any(s not in repo_id.lower() for s in searches):
                return False
            return all(t in repo_tag_list for t in tags)

        with LOCK:
            repos = [r for r in REPOS.values() if not r.private or r.owner == viewer]
            many = FAULTS["many_datasets"]
        entries = []
        for repo in repos:
            head = repo.head()
            info = self.info(repo, head, full=full)
            if not full and "cardData" in info and not (expand and "cardData" in expand):
                del info["cardData"]
            if keep(repo.id, repo.owner, info["tags"]):
                entries.append(info)
        sort = (query.get("sort") or ["lastModified"])[0]
        direction = (query.get("direction") or ["-1"])[0]
        key = {"createdAt": "createdAt", "id": "id", "likes": "likes", "downloads": "downloads"}.get(sort, "lastModified")
        entries.sort(key=lambda e: e[key], reverse=direction != "1")
        entries = [self.expanded(e, expand) for e in entries]
        if many:
            # The fault: every entry at once, `limit` ignored, no Link.
            extra = []
            for i in range(many):
                owner = f"crowd{i:05d}"
                repo_id = f"{owner}/arena-votes-{i:05d}"
                tag_list = ["react-arena", "license:cc-by-4.0"]
                if keep(repo_id, owner, tag_list):
                    extra.append(
                        self.expanded(
                            {
                                "_id": "%024x" % (0xC0FFEE000000 + i),
                                "id": repo_id,
                                "author": owner,
                                "sha": "%040x" % (0xABC0000 + i),
                                "lastModified": "2026-01-01T00:00:00.000Z",
                                "createdAt": "2026-01-01T00:00:00.000Z",
                                "private": False,
                                "gated": False,
                                "disabled": False,
                                "downloads": i,
                                "likes": i % 7,
                                "tags": tag_list,
                            },
                            expand,
                        )
                    )
            return self.reply(200, entries + extra)
        page = entries[offset : offset + limit]
        headers = {}
        if offset + limit < len(entries):
            headers["Link"] = f'<{self.next_url(offset + limit)}>; rel="next"'
        self.reply(200, page, headers=headers)

    def next_url(self, offset):
        url = urllib.parse.urlsplit(self.path)
        q = [(k, v) for k, v in urllib.parse.parse_qsl(url.query, keep_blank_values=True) if k != "cursor"]
        q.append(("cursor", base64.urlsafe_b64encode(str(offset).encode()).decode()))
        return f"{self.base()}{url.path}?{urllib.parse.urlencode(q)}"

    def tree_entries(self, repo, commit):
        """Every file and directory of a commit, as the tree API lists them."""
        huge = huge_for(repo.id)
        files = {p: (len(d), git_blob_oid(d)) for p, d in commit.files.items()}
        for path, spec in huge.items():
            files[path] = (spec["declared_size"], sha1_hex(b"huge", path.encode()))
        dirs = set()
        for path in files:
            parts = path.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                dirs.add("/".join(parts[:i]))
        out = {p: {"type": "file", "oid": oid, "size": size, "path": p} for p, (size, oid) in files.items()}
        for d in dirs:
            out[d] = {"type": "directory", "oid": sha1_hex(b"tree", d.encode(), (commit.oid or "").encode()), "size": 0, "path": d}
        return out

    # py: hf_api.py HfApi.list_repo_tree / list_repo_files (GET .../tree/{rev}/{path} with
    # recursive, expand; entries {type, oid, size, path, lfs?}; pages by Link via
    # _paginate_pages); js: lib/list-files.ts and types/api/api-index-tree.ts.
    def tree(self, repo_id, rev, path, query):
        repo = self.readable_repo(repo_id)
        commit = repo.resolve(rev)
        if commit is None:
            raise revision_not_found(rev)
        recursive = (query.get("recursive") or ["false"])[0].lower() in ("1", "true")
        entries = self.tree_entries(repo, commit)
        path = path.strip("/")
        if path and (path not in entries or entries[path]["type"] != "directory"):
            raise entry_not_found(commit.oid)
        prefix = path + "/" if path else ""
        chosen = [
            e
            for p, e in entries.items()
            if p.startswith(prefix) and (recursive or "/" not in p[len(prefix) :])
        ]
        chosen.sort(key=lambda e: (e["type"] != "directory", e["path"]))
        offset = 0
        if query.get("cursor"):
            offset = int(base64.urlsafe_b64decode(query["cursor"][0].encode()).decode())
        page = chosen[offset : offset + TREE_PAGE]
        headers = {}
        if offset + TREE_PAGE < len(chosen):
            headers["Link"] = f'<{self.next_url(offset + TREE_PAGE)}>; rel="next"'
        self.reply(200, page, headers=headers)

    # py: hf_api.py HfApi.get_paths_info (form fields `paths` (repeated), `expand`; the same
    # entries as the tree API, missing paths left out).
    def paths_info(self, repo_id, rev, body):
        repo = self.readable_repo(repo_id)
        commit = repo.resolve(rev)
        if commit is None:
            raise revision_not_found(rev)
        content_type = (self.headers.get("Content-Type") or "").lower()
        if "json" in content_type:
            paths = json.loads(body or b"{}").get("paths", [])
        else:
            paths = urllib.parse.parse_qs(body.decode()).get("paths", [])
        entries = self.tree_entries(repo, commit)
        self.reply(200, [entries[p.strip("/")] for p in paths if p.strip("/") in entries])

    # py: file_download.py get_hf_file_metadata (HEAD; X-Repo-Commit, ETag, Content-Length,
    # X-Error-Code on 404) and http_get (GET, may send Range); js: lib/file-download-info.ts
    # (GET with Range: bytes=0-0; size from Content-Range, ETag; null on 404 EntryNotFound) and
    # utils/WebBlob.ts (Range reads).
    def resolve(self, repo_id, rev, path, head):
        repo = self.readable_repo(repo_id)
        commit = repo.resolve(rev)
        if commit is None:
            raise revision_not_found(rev)
        huge = huge_for(repo.id).get(path)
        if huge is not None:
            size = huge["bytes"]
            etag = '"%s"' % sha1_hex(b"huge", path.encode())
        elif path in commit.files:
            data = commit.files[path]
            size = len(data)
            etag = '"%s"' % git_blob_oid(data)
        else:
            raise entry_not_found(commit.oid)
        start, end, status = 0, size, 200
        headers = {
            "X-Repo-Commit": commit.oid or "",
            "ETag": etag,
            "Accept-Ranges": "bytes",
            "Content-Disposition": "inline; filename*=UTF-8''%s; filename=\"%s\";"
            % (urllib.parse.quote(path.rsplit("/", 1)[-1]), path.rsplit("/", 1)[-1].replace('"', "")),
        }
        rng = self.headers.get("Range")
        if rng and rng.startswith("bytes=") and "," not in rng:
            a, _, b = rng[6:].strip().partition("-")
            try:
                if a == "":
                    start, end = max(0, size - int(b)), size
                else:
                    start, end = int(a), (min(int(b) + 1, size) if b else size)
            except ValueError:
                start, end = 0, size
            else:
                if start >= size or start >= end:
                    self.send_response(416)
                    self.cors()
                    self.send_header("Content-Range", f"bytes */{size}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                status = 206
                headers["Content-Range"] = f"bytes {start}-{end - 1}/{size}"
        content_type = text_type(path)
        self.send_response(status)
        self.cors()
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(end - start))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        if head:
            return
        if huge is not None:
            for chunk in huge_bytes(size, start, end):
                self.wfile.write(chunk)
        else:
            self.wfile.write(data[start:end])


def text_type(path: str) -> str:
    # GUESS: the Hub's content types for text files; the clients ignore them.
    lower = path.lower()
    if lower.endswith((".md", ".txt", ".jsonl", ".csv", ".yaml", ".yml", ".gitattributes")) or "." not in lower:
        return "text/plain; charset=utf-8"
    if lower.endswith(".json"):
        return "application/json; charset=utf-8"
    return mimetypes.guess_type(path)[0] or "application/octet-stream"


def exit_with_parent() -> None:
    while True:
        if os.getppid() != PARENT:
            os._exit(0)
        time.sleep(0.5)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128


def main() -> None:
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    threading.Thread(target=exit_with_parent, daemon=True).start()
    server = Server(("127.0.0.1", port), Handler)
    print(f"READY http://127.0.0.1:{server.server_port}", flush=True)
    server.serve_forever(poll_interval=0.2)


if __name__ == "__main__":
    main()
