// Module worker running Python with Pyodide. It is created at the first python call, gets
// only {id, code, indexURL, maxOutput} messages (never the token), and is terminated by the
// page when a program runs past its time limit.
let pyodide = null;

async function load(indexURL) {
  const { loadPyodide } = await import(indexURL + "pyodide.mjs");
  return loadPyodide({ indexURL });
}

self.onmessage = async (event) => {
  const { id, code, indexURL, maxOutput } = event.data;
  let py;
  try {
    pyodide ??= load(indexURL);
    py = await pyodide;
  } catch (e) {
    pyodide = null;
    self.postMessage({ id, kind: "unavailable", error: String((e && e.message) || e) });
    return;
  }
  let output = "";
  let cut = 0;
  const write = (text) => {
    const line = text + "\n";
    const room = maxOutput - output.length;
    if (room >= line.length) output += line;
    else {
      output += line.slice(0, Math.max(room, 0));
      cut += line.length - Math.max(room, 0);
    }
  };
  py.setStdout({ batched: write });
  py.setStderr({ batched: write });
  self.postMessage({ id, kind: "started" });
  try {
    const result = await py.runPythonAsync(code);
    let value = null;
    if (result !== undefined && result !== null) {
      value = String(result); // a PyProxy's toString is Python's str()
      if (result && typeof result.destroy === "function") result.destroy();
    }
    self.postMessage({ id, kind: "done", stdout: output, cut, value });
  } catch (e) {
    self.postMessage({ id, kind: "raised", stdout: output, error: String((e && e.message) || e) });
  }
};
