"""The community leaderboard's reference computation, written apart from the Rust code from
the rules the view states: read every public repository's vote lines, keep the well-formed
ones, count a voter's identical votes (same repository, question, panels and winner) once,
turn each vote into pairwise results (the best beats each other panel; a tie or "all bad" is
half a win each way), rate the contestants with at least 5 results that won and lost among
themselves, in their largest group linked by comparisons, by the Bradley-Terry
maximum-likelihood fit over the results among them (Newton's method, to machine precision),
and put the ratings on the Elo scale (mean log-strength 0 -> 1000, 400 per factor of 10).

Usage: bt_reference.py community.json [excluded-repo ...]; prints JSON {contestant: rating}.
"""

import json
import math
import re
import sys

LABELS = {"think": "Think-only", "act": "Act-only", "react": "ReAct", "codeact": "CodeAct"}
MIN_RESULTS = 5


def votes_of(repos, excluded):
    seen, out, mine = set(), [], {}
    for repo_id, repo in repos.items():
        if repo["private"] or repo_id in excluded:
            continue
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
                key = (repo_id, qh.lower(), tuple(sorted(who)), who[w] if isinstance(w, int) else w)
                if key in seen:
                    continue
                # At most 16 contestants a repository, 64 in all.
                new_here = set(who) - mine.setdefault(repo_id, set())
                if len(mine[repo_id]) + len(new_here) > 16:
                    continue
                seen.add(key)
                mine[repo_id] |= set(who)
                out.append((who, w))
    pooled, capped = set(), []
    for who, w in out:
        if len(pooled | set(who)) > 64:
            continue
        pooled |= set(who)
        capped.append((who, w))
    return capped


def results_of(votes):
    results = []
    for who, w in votes:
        for i in range(len(who)):
            for j in range(i + 1, len(who)):
                if isinstance(w, int):
                    if w == i:
                        results.append((who[i], who[j], 1.0))
                    elif w == j:
                        results.append((who[i], who[j], 0.0))
                else:
                    results.append((who[i], who[j], 0.5))
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


def fit(results):
    count = {}
    for a, b, _ in results:
        count[a] = count.get(a, 0) + 1
        count[b] = count.get(b, 0) + 1
    rated = sorted(c for c, n in count.items() if n >= MIN_RESULTS)
    # Leave out, until none is left to leave, those that never won or never lost among the
    # rest (their maximum-likelihood strength is 0 or infinite)...
    while True:
        keep = set(rated)
        won, played = {}, {}
        for a, b, s in results:
            if a in keep and b in keep:
                won[a] = won.get(a, 0) + s
                won[b] = won.get(b, 0) + 1 - s
                played[a] = played.get(a, 0) + 1
                played[b] = played.get(b, 0) + 1
        left = [c for c in rated if 0 < won.get(c, 0) < played.get(c, 0)]
        if len(left) == len(rated):
            break
        rated = left
    # ...then keep the largest group linked by comparisons (the first in order on a tie).
    keep = set(rated)
    links = {c: set() for c in rated}
    for a, b, _ in results:
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
    pairs = [(idx[a], idx[b], s) for a, b, s in results if a in idx and b in idx]
    k = len(rated)
    theta = [0.0] * k
    for _ in range(200):
        g = [0.0] * k
        h = [[1.0 / k] * k for _ in range(k)]
        for a, b, s in pairs:
            p = 1.0 / (1.0 + math.exp(theta[b] - theta[a]))
            g[a] += s - p
            g[b] -= s - p
            w = p * (1 - p)
            h[a][a] += w
            h[b][b] += w
            h[a][b] -= w
            h[b][a] -= w
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
    votes = votes_of(repos, set(sys.argv[2:]))
    print(json.dumps({"votes": len(votes), "ratings": fit(results_of(votes))}))


main()
