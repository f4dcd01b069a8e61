// IndexedDB, the one helper for the app's databases (kept runs, evaluations). The app (Rust)
// names the database, its stores and what is stored when; this only moves JSON text in and
// out, which costs the wasm far less than binding the IndexedDB API there. Every function
// returns a promise, never throws, and rejects with the browser's own error (a DOMException
// such as QuotaExceededError) so the app can say what happened. Keys are text; a "prefix" key
// stands for every key that starts with it.

const VERSION = 1;
// Database name -> the open database, and the promise of opening it.
const open_ = {};
const opening = {};

function open(name, stores) {
  if (!opening[name]) {
    opening[name] = new Promise((resolve, reject) => {
      if (typeof indexedDB === "undefined" || !indexedDB) {
        throw new DOMException("IndexedDB is not available.", "NotSupportedError");
      }
      const request = indexedDB.open(name, VERSION);
      request.onupgradeneeded = () => {
        for (const store of stores) {
          if (!request.result.objectStoreNames.contains(store)) request.result.createObjectStore(store);
        }
      };
      request.onsuccess = () => {
        const db = request.result;
        // A newer version of the page upgrades the database: let it, reopen on next use.
        db.onversionchange = () => {
          db.close();
          delete open_[name];
          delete opening[name];
        };
        open_[name] = db;
        resolve(db);
      };
      request.onerror = () => reject(request.error);
    }).catch((e) => {
      delete opening[name];
      throw e;
    });
  }
  return opening[name];
}

// Runs `work(transaction, setResult)` in one transaction over every store; resolves once it
// is committed. With the database open, the transaction starts at once (not a task later): a
// save made as the page goes away is then already on its way.
function transact(name, storeList, mode, work) {
  const stores = storeList.split(",");
  const start = (db) =>
    new Promise((resolve, reject) => {
      const tx = db.transaction(stores, mode);
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
    return open_[name] ? start(open_[name]) : open(name, stores).then(start);
  } catch (e) {
    return Promise.reject(e);
  }
}

// Every key that starts with `prefix`: up to the highest code unit.
function startingWith(prefix) {
  return IDBKeyRange.bound(prefix, prefix + "\uffff");
}

// `writes`: [store, key, value, store, key, value, …], written together.
export function put(name, stores, writes) {
  return transact(name, stores, "readwrite", (tx) => {
    for (let i = 0; i + 2 < writes.length; i += 3) tx.objectStore(writes[i]).put(writes[i + 2], writes[i + 1]);
  });
}

export function get(name, stores, store, key) {
  return transact(name, stores, "readonly", (tx, done) => {
    const request = tx.objectStore(store).get(key);
    request.onsuccess = () => done(request.result);
  });
}

// Every value of `store`, or of the keys starting with `prefix` when it is not empty.
export function getAll(name, stores, store, prefix) {
  return transact(name, stores, "readonly", (tx, done) => {
    const request = tx.objectStore(store).getAll(prefix ? startingWith(prefix) : undefined);
    request.onsuccess = () => done(request.result);
  });
}

// `removals`: [store, key, whole, …]: the key, or with `whole` every key starting with it.
export function remove(name, stores, removals) {
  return transact(name, stores, "readwrite", (tx) => {
    for (let i = 0; i + 2 < removals.length; i += 3) {
      const key = removals[i + 1];
      tx.objectStore(removals[i]).delete(removals[i + 2] ? startingWith(key) : key);
    }
  });
}

// Whether the database `name` may hold something: false only when the browser lists its
// databases and this one is not among them (a first visit). Asked without opening it, since
// opening creates it.
export function mayExist(name) {
  try {
    if (typeof indexedDB === "undefined" || !indexedDB || typeof indexedDB.databases !== "function") {
      return Promise.resolve(true);
    }
    return indexedDB.databases().then((dbs) => dbs.some((db) => db.name === name), () => true);
  } catch (e) {
    return Promise.resolve(true);
  }
}
