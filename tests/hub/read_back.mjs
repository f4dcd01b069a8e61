// Reads a repository the page published back with the official JavaScript client, npm
// `@huggingface/hub`, as anyone would (no token): its files and their text, the tags and card
// metadata the Hub lists for it, and whether a search by the arena's tag finds it. The Python
// twin is read_back.py.
//
// Usage: node read_back.mjs BASE_URL OWNER/NAME
//
// Prints one JSON object: {"files": {path: text}, "card": {...}, "tags": [...], "listed": bool}.

import { datasetInfo, downloadFile, listDatasets, listFiles } from "@huggingface/hub";

const hubUrl = process.argv[2].replace(/\/$/, "");
const name = process.argv[3];
const repo = { type: "dataset", name };

const files = {};
for await (const entry of listFiles({ hubUrl, repo, recursive: true })) {
  if (entry.type !== "file" || entry.path === ".gitattributes") continue;
  const blob = await downloadFile({ hubUrl, repo, path: entry.path });
  files[entry.path] = await blob.text();
}
const info = await datasetInfo({ hubUrl, name, additionalFields: ["tags", "cardData"] });
let listed = false;
for await (const d of listDatasets({ hubUrl, search: { tags: ["react-arena"] } })) {
  if (d.name === name) listed = true;
}
console.log(JSON.stringify({ files, card: info.cardData ?? null, tags: info.tags ?? [], listed }));
