"""The community leaderboard's reference computation, written apart from the Rust code from
the rules the view states: read every public repository's vote lines, keep the well-formed
ones, count a voter's identical votes (same question, panels and winner) once, where a voter
is a repository's owner (across all of their repositories); keep of an owner's votes those
naming only their 16 most-voted contestants (then by name); weigh each of an owner's n votes
min(1, 20 / n), so an owner's votes together weigh at most as much as 20 votes; keep at most 64
contestants, those more owners voted on first, then by weighted votes, then by name, and leave
out the votes naming any other; turn each vote into pairwise results (the best beats each
other panel; a tie or "all bad" is half a win each way), each weighing as its vote; rate the
contestants that at least 2 owners voted on, with at least 5 results (weighted), that won and
lost among themselves, in their largest group linked by comparisons, by the weighted
Bradley-Terry maximum-likelihood fit over the results among them (Newton's method, to machine
precision), and put the ratings on the Elo scale (mean log-strength 0 -> 1000, 400 per factor
of 10).

Usage: bt_reference.py community.json [excluded-repo ...]; prints JSON
{"votes": counted, "ratings": {contestant: rating}, "weights": {owner: total weight}}.
"""

import json
import math
import re
import sys

LABELS = {"think": "Think-only", "act": "Act-only", "react": "ReAct", "codeact": "CodeAct"}
MIN_RESULTS = 5
MIN_VOTERS = 2
MAX_OWNER_WEIGHT = 20.0
MAX_CONTESTANTS = 64
EPS = 1e-9


def repo_votes(repo_id, repo):
    """One repository's distinct well-formed votes, at most 16 contestants and 20,000 votes."""
    seen, out, mine = set(), [], set()
    for path, text in sorted(repo["files"].items()):
        if not (path.startswith("votes/") and path.endswith(".jsonl")):
            continue
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                v = json.loads(line)
            except ValueError:
                continue
            if v.get("format") != "react-arena/vote" or v.get("version") != 1:
                continue
            panels = v.get("panels", [])
            qh = v.get("question_sha256", "")
            if not (2 <= len(panels) <= 8) or not re.fullmatch(r"[0-9a-fA-F]{64}", qh):
                continue
            if any(p.get("mode") not in LABELS or not p.get("model") for p in panels):
                continue
            who = tuple(
                (LABELS[p["mode"]] + (" (edited prompt)" if p.get("prompt_edited") else ""), p["model"])
                for p in panels
            )
            if len(set(who)) != len(who):
                continue
            w = v.get("winner")
            if isinstance(w, bool) or not (
                (isinstance(w, int) and 0 <= w < len(who)) or w in ("tie", "all_bad")
            ):
                continue
            # The same vote in another panel order is the same vote.
            key = (qh.lower(), tuple(sorted(who)), who[w] if isinstance(w, int) else w)
            if key in seen:
                continue
            if len(out) >= 20000 or len(mine | set(who)) > 16:
                continue
            seen.add(key)
            mine |= set(who)
            out.append((key, who, w))
    return out


def votes_of(repos, excluded):
    """The counted votes as (owner, contestants, winner, weight), and each owner's weight."""
    by_owner, order = {}, []
    for repo_id, repo in repos.items():
        if repo["private"] or repo_id in excluded:
            continue
        owner = repo_id.split("/")[0]
        if owner not in by_owner:
            by_owner[owner] = {}
            order.append(owner)
        for key, who, w in repo_votes(repo_id, repo):
            by_owner[owner].setdefault(key, (who, w))
    # An owner names at most 16 contestants: their most-voted, then by name.
    for owner, votes in by_owner.items():
        count = {}
        for who, _ in votes.values():
            for c in who:
                count[c] = count.get(c, 0) + 1
        if len(count) > 16:
            allowed = set(sorted(count, key=lambda c: (-count[c], c))[:16])
            by_owner[owner] = {k: v for k, v in votes.items() if set(v[0]) <= allowed}
    weight = {o: min(1.0, MAX_OWNER_WEIGHT / len(v)) if v else 1.0 for o, v in by_owner.items()}
    # The cap: owners per contestant, and weighted votes summed owner by owner, by name.
    voters, support = {}, {}
    for owner in sorted(by_owner):
        count = {}
        for who, _ in by_owner[owner].values():
            for c in who:
                count[c] = count.get(c, 0) + 1
        for c, n in sorted(count.items()):
            voters[c] = voters.get(c, 0) + 1
            support[c] = support.get(c, 0.0) + n * weight[owner]
    chosen = set(sorted(voters, key=lambda c: (-voters[c], -support[c], c))[:MAX_CONTESTANTS])
    out = []
    for owner in order:
        for who, w in by_owner[owner].values():
            if set(who) <= chosen:
                out.append((owner, who, w, weight[owner]))
    totals = {o: len(v) * weight[o] for o, v in by_owner.items()}
    return out, totals


def results_of(votes):
    results = []
    for _, who, w, weight in votes:
        for i in range(len(who)):
            for j in range(i + 1, len(who)):
                if isinstance(w, int):
                    if w == i:
                        results.append((who[i], who[j], 1.0, weight))
                    elif w == j:
                        results.append((who[i], who[j], 0.0, weight))
                else:
                    results.append((who[i], who[j], 0.5, weight))
    return results


def solve(a, b):
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                for k in range(c, n + 1):
                    m[r][k] -= f * m[c][k]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(results, votes):
    owners = {}
    for owner, who, _, _ in votes:
        for c in who:
            owners.setdefault(c, set()).add(owner)
    count = {}
    for a, b, _, w in results:
        count[a] = count.get(a, 0) + w
        count[b] = count.get(b, 0) + w
    rated = sorted(
        c for c, n in count.items() if n >= MIN_RESULTS - EPS and len(owners[c]) >= MIN_VOTERS
    )
    # Leave out, until none is left to leave, those that never won or never lost among the
    # rest (their maximum-likelihood strength is 0 or infinite)...
    while True:
        keep = set(rated)
        won, played = {}, {}
        for a, b, s, w in results:
            if a in keep and b in keep:
                won[a] = won.get(a, 0) + w * s
                won[b] = won.get(b, 0) + w * (1 - s)
                played[a] = played.get(a, 0) + w
                played[b] = played.get(b, 0) + w
        left = [
            c for c in rated if EPS * played.get(c, 0) < won.get(c, 0) < played.get(c, 0) * (1 - EPS)
        ]
        if len(left) == len(rated):
            break
        rated = left
    # ...then keep the largest group linked by comparisons (the first in order on a tie).
    keep = set(rated)
    links = {c: set() for c in rated}
    for a, b, _, _ in results:
        if a in keep and b in keep:
            links[a].add(b)
            links[b].add(a)
    best, seen = [], set()
    for c in rated:
        if c in seen:
            continue
        group, todo = {c}, [c]
        while todo:
            for d in links[todo.pop()]:
                if d not in group:
                    group.add(d)
                    todo.append(d)
        seen |= group
        if len(group) > len(best):
            best = sorted(group)
    rated = best if len(best) >= 2 else []
    if not rated:
        return {}
    idx = {c: i for i, c in enumerate(rated)}
    pairs = [(idx[a], idx[b], s, w) for a, b, s, w in results if a in idx and b in idx]
    k = len(rated)
    theta = [0.0] * k
    for _ in range(200):
        g = [0.0] * k
        h = [[1.0 / k] * k for _ in range(k)]
        for a, b, s, w in pairs:
            p = 1.0 / (1.0 + math.exp(theta[b] - theta[a]))
            g[a] += w * (s - p)
            g[b] -= w * (s - p)
            c = w * p * (1 - p)
            h[a][a] += c
            h[b][b] += c
            h[a][b] -= c
            h[b][a] -= c
        step = solve(h, g)
        theta = [t + d for t, d in zip(theta, step)]
        mean = sum(theta) / k
        theta = [t - mean for t in theta]
        if max(abs(d) for d in step) < 1e-15:
            break
    return {
        f"{mode} | {model}": 1000.0 + 400.0 * theta[idx[(mode, model)]] / math.log(10)
        for mode, model in rated
    }


def main():
    repos = json.load(open(sys.argv[1], encoding="utf-8"))
    votes, weights = votes_of(repos, set(sys.argv[2:]))
    ratings = fit(results_of(votes), votes)
    print(json.dumps({"votes": len(votes), "ratings": ratings, "weights": weights}))


main()
