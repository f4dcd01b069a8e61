// Proves the Hub stand-in (tests/hub_standin.py) against the official JavaScript client, npm
// `@huggingface/hub` (node_modules, pinned in package.json): the calls a page makes to publish
// votes and read the community leaderboard, with `hubUrl` set to the stand-in.
//
// Usage: node clients_check.mjs BASE_URL (the stand-in's `http://127.0.0.1:PORT`)
//
// Prints one JSON line (`{"ok": true, ...}` or `{"ok": false, "failures": [...]}`) and exits
// non-zero on any mismatch. Uses only the marker tokens the stand-in knows.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import {
  HubApiError,
  commit,
  createRepo,
  datasetInfo,
  downloadFile,
  listDatasets,
  listFiles,
  uploadFiles,
  whoAmI,
} from "@huggingface/hub";

const hubUrl = process.argv[2].replace(/\/$/, "");
const ALICE = "hf_marker_ALICE_write_0000";
const BOB = "hf_marker_BOB_write_0000";
const CAROL = "hf_marker_CAROL_read_0000";

const README = `---
license: cc-by-4.0
tags:
- react-arena
---
# ReAct Arena votes (JavaScript client)
`;
const VOTES = '{"run":"js1","winner":"react"}\n';
const MORE = '{"run":"js2","winner":"act"}\n';

const failures = [];
const check = (cond, what) => {
  if (!cond) failures.push(what);
  return cond;
};

async function statusOf(call) {
  try {
    await call();
  } catch (err) {
    return err instanceof HubApiError ? err.statusCode : `not a HubApiError: ${err}`;
  }
  return null;
}

async function collect(iterable) {
  const out = [];
  for await (const item of iterable) out.push(item);
  return out;
}

const require = createRequire(import.meta.url);
// The package exports no ./package.json: read it next to its entry point (dist/index.js).
const version = JSON.parse(
  readFileSync(join(dirname(require.resolve("@huggingface/hub")), "..", "package.json"), "utf8"),
).version;
const summary = { client: "@huggingface/hub", version };

async function main() {
  const suffix = randomBytes(4).toString("hex");
  const name = `alice/js-votes-${suffix}`;
  const repo = { type: "dataset", name };
  const alice = { accessToken: ALICE, hubUrl };

  const me = await whoAmI(alice);
  check(me.name === "alice", `whoAmI name: ${me.name}`);
  check(me.auth.accessToken?.role === "write", `whoAmI role: ${JSON.stringify(me.auth)}`);
  check(me.auth.accessToken?.createdAt instanceof Date, "whoAmI createdAt parsed as a Date");

  const created = await createRepo({ ...alice, repo, private: false });
  check(created.repoUrl === `${hubUrl}/datasets/${name}`, `createRepo url: ${created.repoUrl}`);
  // No exist_ok in this client: the second call must fail with the Hub's 409.
  const again = await statusOf(() => createRepo({ ...alice, repo }));
  check(again === 409, `createRepo again: ${again}`);

  const first = await commit({
    ...alice,
    repo,
    title: "Add votes",
    operations: [
      { operation: "addOrUpdate", path: "README.md", content: new Blob([README]) },
      { operation: "addOrUpdate", path: "votes/js.jsonl", content: new Blob([VOTES]) },
    ],
  });
  check(/^[0-9a-f]{40}$/.test(first?.commit.oid ?? ""), `commit oid: ${first?.commit.oid}`);
  check(first?.commit.url === `${hubUrl}/datasets/${name}/commit/${first?.commit.oid}`, "commit url");
  const second = await uploadFiles({
    ...alice,
    repo,
    files: [{ path: "votes/more.jsonl", content: new Blob([MORE]) }],
  });
  check(second?.commit.oid && second.commit.oid !== first?.commit.oid, "uploadFiles made a new commit");

  const files = (await collect(listFiles({ ...alice, repo, recursive: true })))
    .filter((f) => f.type === "file")
    .map((f) => f.path)
    .sort();
  check(
    ["README.md", "votes/js.jsonl", "votes/more.jsonl"].every((p) => files.includes(p)),
    `listFiles: ${files}`,
  );

  // More files than one page of the tree API: the client follows its `Link` header.
  const many = `many-files-${suffix}`;
  await fetch(`${hubUrl}/_standin/seed`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      owner: "alice",
      name: many,
      private: false,
      files: Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`votes/${String(i).padStart(4, "0")}.jsonl`, "{}\n"])),
    }),
  });
  const manyFiles = (
    await collect(listFiles({ hubUrl, repo: { type: "dataset", name: `alice/${many}` }, recursive: true }))
  ).filter((f) => f.type === "file");
  check(manyFiles.length === 1500, `listFiles over two pages: ${manyFiles.length}`);

  const blob = await downloadFile({ ...alice, repo, path: "votes/js.jsonl" });
  check((await blob?.text()) === VOTES, "downloadFile bytes");
  const missing = await downloadFile({ ...alice, repo, path: "votes/none.jsonl" });
  check(missing === null, "downloadFile of a missing file gives null (404 EntryNotFound)");

  const info = await datasetInfo({ ...alice, name, additionalFields: ["tags", "cardData", "sha"] });
  check(info.tags?.includes("react-arena"), `datasetInfo tags: ${info.tags}`);
  check(info.cardData?.license === "cc-by-4.0", `datasetInfo cardData: ${JSON.stringify(info.cardData)}`);
  check(info.sha === second?.commit.oid, `datasetInfo sha: ${info.sha}`);

  const listed = await collect(
    listDatasets({ hubUrl, search: { tags: ["react-arena"] }, additionalFields: ["tags"] }),
  );
  check(
    listed.some((d) => d.name === name && d.tags.includes("react-arena")),
    `listDatasets(tags) lacks ${name}`,
  );
  const byQuery = await collect(listDatasets({ hubUrl, search: { query: `js-votes-${suffix}`, owner: "alice" } }));
  check(byQuery.length === 1 && byQuery[0].name === name, `listDatasets(query): ${JSON.stringify(byQuery)}`);

  // Bob's private repo is listed for bob only.
  const secret = { type: "dataset", name: `bob/js-private-${suffix}` };
  await createRepo({ accessToken: BOB, hubUrl, repo: secret, private: true });
  await uploadFiles({
    accessToken: BOB,
    hubUrl,
    repo: secret,
    files: [{ path: "README.md", content: new Blob([README]) }],
  });
  const names = async (params) =>
    (await collect(listDatasets({ hubUrl, search: { tags: ["react-arena"] }, ...params }))).map((d) => d.name);
  check((await names({ accessToken: BOB })).includes(secret.name), "bob sees his private repo");
  check(!(await names({ accessToken: ALICE })).includes(secret.name), "alice must not see bob's private repo");
  check(!(await names({})).includes(secret.name), "anonymous must not see bob's private repo");

  // Carol's token is read-only; an unknown token is refused.
  const carol = await statusOf(() =>
    uploadFiles({ accessToken: CAROL, hubUrl, repo, files: [{ path: "x.txt", content: new Blob(["x"]) }] }),
  );
  check(carol === 403, `carol's commit: ${carol}`);
  const unknown = await statusOf(() => whoAmI({ accessToken: "hf_marker_UNKNOWN_0000", hubUrl }));
  check(unknown === 401, `unknown token's whoAmI: ${unknown}`);

  summary.repo = name;
  summary.commits = [first?.commit.oid, second?.commit.oid];
  summary.files = files;
  summary.listed = listed.length;
}

try {
  await main();
} catch (err) {
  failures.push(`exception: ${err?.stack ?? err}`);
}
summary.ok = failures.length === 0;
if (failures.length) summary.failures = failures;
console.log(JSON.stringify(summary));
process.exit(summary.ok ? 0 : 1);
