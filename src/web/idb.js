// IndexedDB for kept runs. The app (Rust) decides what is stored and when; this only moves
// JSON text in and out, which costs the wasm far less than binding the IndexedDB API there.
// Every function returns a promise, never throws, and rejects with the browser's own error
// (a DOMException such as QuotaExceededError) so the app can say what happened.

const DB_NAME = "react-arena";
const DB_VERSION = 1;
// id -> the run as its file (JSON text): what Open reads.
const RUNS = "runs";
// id -> the history list's line for it (JSON text): small, so the list loads quickly.
const SUMMARIES = "summaries";

let db = null;
let opening = null;

function open() {
  if (!opening) {
    opening = new Promise((resolve, reject) => {
      if (typeof indexedDB === "undefined" || !indexedDB) {
        throw new DOMException("IndexedDB is not available.", "NotSupportedError");
      }
      const request = indexedDB.open(DB_NAME, DB_VERSION);
      request.onupgradeneeded = () => {
        const created = request.result;
        for (const name of [RUNS, SUMMARIES]) {
          if (!created.objectStoreNames.contains(name)) created.createObjectStore(name);
        }
      };
      request.onsuccess = () => {
        db = request.result;
        // A newer version of the page upgrades the database: let it, reopen on next use.
        db.onversionchange = () => {
          db.close();
          db = null;
          opening = null;
        };
        resolve(db);
      };
      request.onerror = () => reject(request.error);
    }).catch((e) => {
      opening = null;
      throw e;
    });
  }
  return opening;
}

// Runs `work(transaction, setResult)` in one transaction; resolves once it is committed.
// With the database open, the transaction starts at once (not a task later): a save made as
// the page goes away is then already on its way.
function transact(mode, work) {
  const start = (database) =>
    new Promise((resolve, reject) => {
      const tx = database.transaction([RUNS, SUMMARIES], mode);
      let result;
      tx.oncomplete = () => resolve(result);
      tx.onabort = () => reject(tx.error || new DOMException("The transaction was aborted.", "AbortError"));
      try {
        work(tx, (value) => {
          result = value;
        });
        if (mode === "readwrite" && tx.commit) tx.commit();
      } catch (e) {
        try {
          tx.abort();
        } catch (_) {
          // already finished
        }
        reject(e);
      }
    });
  try {
    return db ? start(db) : open().then(start);
  } catch (e) {
    return Promise.reject(e);
  }
}

export function putRun(id, fileJson, summaryJson) {
  return transact("readwrite", (tx) => {
    tx.objectStore(RUNS).put(fileJson, id);
    tx.objectStore(SUMMARIES).put(summaryJson, id);
  });
}

export function getRun(id) {
  return transact("readonly", (tx, done) => {
    const request = tx.objectStore(RUNS).get(id);
    request.onsuccess = () => done(request.result);
  });
}

export function deleteRun(id) {
  return transact("readwrite", (tx) => {
    tx.objectStore(RUNS).delete(id);
    tx.objectStore(SUMMARIES).delete(id);
  });
}

export function summaries() {
  return transact("readonly", (tx, done) => {
    const request = tx.objectStore(SUMMARIES).getAll();
    request.onsuccess = () => done(request.result);
  });
}
