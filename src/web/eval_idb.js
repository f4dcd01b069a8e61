// IndexedDB for evaluations, a database of its own so the arena's kept runs never wait on
// (or get evicted with) a 500-question batch. The app (Rust) decides what is stored; this
// only moves JSON text. Every function returns a promise that rejects with the browser's own
// error (a DOMException such as QuotaExceededError).

const DB_NAME = "react-arena-evaluations";
const DB_VERSION = 1;
// evaluation id -> its spec (JSON text), questions included.
const SPECS = "specs";
// "<evaluation id>/<job key>" -> the run's result (JSON text): small, read all at once.
const RESULTS = "results";
// "<evaluation id>/<job key>" -> the run's record (JSON text): read one at a time.
const RECORDS = "records";
const STORES = [SPECS, RESULTS, RECORDS];

let opening = null;

function open() {
  if (!opening) {
    opening = new Promise((resolve, reject) => {
      if (typeof indexedDB === "undefined" || !indexedDB) {
        throw new DOMException("IndexedDB is not available.", "NotSupportedError");
      }
      const request = indexedDB.open(DB_NAME, DB_VERSION);
      request.onupgradeneeded = () => {
        for (const name of STORES) {
          if (!request.result.objectStoreNames.contains(name)) request.result.createObjectStore(name);
        }
      };
      request.onsuccess = () => {
        const db = request.result;
        db.onversionchange = () => {
          db.close();
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

function transact(mode, work) {
  return open().then(
    (db) =>
      new Promise((resolve, reject) => {
        const tx = db.transaction(STORES, mode);
        let result;
        tx.oncomplete = () => resolve(result);
        tx.onabort = () => reject(tx.error || new DOMException("The transaction was aborted.", "AbortError"));
        try {
          work(tx, (value) => {
            result = value;
          });
        } catch (e) {
          try {
            tx.abort();
          } catch (_) {
            // already finished
          }
          reject(e);
        }
      }),
  );
}

// Every key of one evaluation: "<id>/" up to the highest code unit.
function within(id) {
  return IDBKeyRange.bound(id + "/", id + "/\uffff");
}

export function putSpec(id, specJson) {
  return transact("readwrite", (tx) => tx.objectStore(SPECS).put(specJson, id));
}

export function specs() {
  return transact("readonly", (tx, done) => {
    const request = tx.objectStore(SPECS).getAll();
    request.onsuccess = () => done(request.result);
  });
}

export function putResult(id, job, resultJson, recordJson) {
  return transact("readwrite", (tx) => {
    tx.objectStore(RESULTS).put(resultJson, id + "/" + job);
    tx.objectStore(RECORDS).put(recordJson, id + "/" + job);
  });
}

export function results(id) {
  return transact("readonly", (tx, done) => {
    const request = tx.objectStore(RESULTS).getAll(within(id));
    request.onsuccess = () => done(request.result);
  });
}

export function record(id, job) {
  return transact("readonly", (tx, done) => {
    const request = tx.objectStore(RECORDS).get(id + "/" + job);
    request.onsuccess = () => done(request.result);
  });
}

export function deleteEvaluation(id) {
  return transact("readwrite", (tx) => {
    tx.objectStore(SPECS).delete(id);
    tx.objectStore(RESULTS).delete(within(id));
    tx.objectStore(RECORDS).delete(within(id));
  });
}
