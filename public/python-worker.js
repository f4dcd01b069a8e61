// Classic worker running Python with Pyodide, started by public/python-frame.html from a blob:
// URL, so it inherits that frame's Content-Security-Policy: no connection, script or worker
// from any network host. That policy is what keeps the network shut; the replacements below
// only turn the obvious attempts into a readable error at once.
//
// Messages in:  {kind: "load", files: {name: Blob}, indexURL, noNetwork}
//               {kind: "run", id, code, maxOutput}
//               {kind: "program", id, code, tools: [[function, [param, ...]], ...], maxOutput}
//               {kind: "result", call, ok, text} (a program's tool call, answered by the page)
// Messages out: {kind: "loaded"} | {kind: "unavailable", error}
//               {id, kind: "started"} | {id, kind: "done", stdout, cut, value, valueChars, blocked}
//               | {id, kind: "raised", stdout, cut, error, blocked}
//               | {id, kind: "call", call, function, kwargs} (a program asks the page to run a tool)
//               | {id, kind: "final", stdout, cut, value, blocked} (a program called final_answer)
// Programs run one after another, each from a fresh output buffer, in shared globals.
// A CodeAct program's tools are functions that ask the page (which runs the tool through
// its own gate) and wait for the answer; the program never reaches a tool itself.

const RUNNER = `
import sys
import traceback
import __main__
from pyodide.code import eval_code_async


def _error_text(error, limit):
    # Only the program's own frames, and only the last few: the runner's are noise to the
    # model, and a deep recursion would fill the observation.
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == "<exec>"]
    lines = ["Traceback (most recent call last):\\n"] if frames else []
    lines += traceback.format_list(frames[-10:])
    if isinstance(error, SyntaxError):
        lines += traceback.format_exception_only(error)
    else:
        # str() of a huge message is not copied; only the slice is.
        message = str(error)
        name = type(error).__qualname__
        module = type(error).__module__
        if module not in ("builtins", "__main__"):
            name = module + "." + name
        head = message[:limit]
        if len(message) > limit:
            head += f" [...{len(message) - limit} more characters cut]"
        lines.append(f"{name}: {head}" if message else name)
    return "".join(lines)


def _flush():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass


async def run(code, limit):
    try:
        value = await eval_code_async(code, __main__.__dict__)
    except BaseException as error:
        _flush()
        try:
            return ("raised", _error_text(error, limit), 0)
        except BaseException as failure:
            return ("raised", type(error).__name__ + f" (its message could not be read: {type(failure).__name__})", 0)
    _flush()
    if value is None:
        return ("done", None, 0)
    try:
        text = str(value)
    except BaseException as failure:
        return ("done", f"<str() failed: {type(failure).__name__}>", 0)
    # Only the first characters cross to JavaScript, with the full length.
    return ("done", text[:limit], len(text))


# CodeAct: the tools as functions that ask the page, and final_answer.
import json
from pyodide.ffi import run_sync


class ToolError(Exception):
    """A tool call that failed (or was refused): the message says why."""


class _FinalAnswer(BaseException):
    pass


_final = []


def _final_answer(answer=None):
    # Kept before raising: a program that catches everything still ends with its answer.
    _final.append(answer)
    raise _FinalAnswer()


def _tool(function, params, call):
    def tool(*args, **kwargs):
        if len(args) > len(params):
            raise TypeError(f"{function}() takes at most {len(params)} positional arguments")
        for name, value in zip(params, args):
            if name in kwargs:
                raise TypeError(f"{function}() got two values for {name}")
            kwargs[name] = value
        ok, text = run_sync(call(function, json.dumps(kwargs, default=str))).to_py()
        if not ok:
            raise ToolError(text)
        return text

    tool.__name__ = function
    return tool


async def program(code, tools, call, limit):
    names = __main__.__dict__
    names["final_answer"] = _final_answer
    names["ToolError"] = ToolError
    for function, params in tools:
        names[function] = _tool(function, list(params), call)
    _final.clear()
    kind, text, chars = await run(code, limit)
    if _final:
        answer = _final[-1]
        try:
            text = str(answer)
        except BaseException as failure:
            text = f"<str() failed: {type(failure).__name__}>"
        return ("final", text[:limit], len(text))
    return (kind, text, chars)


(run, program)
`;

// Output of the running program: the first `max` characters (code points) decoded, the rest
// only counted, so a gigabyte of printing never becomes a JavaScript string.
const output = { text: "", room: 0, cut: 0, decoder: new TextDecoder() };

function resetOutput(max) {
  output.text = "";
  output.room = max;
  output.cut = 0;
  output.decoder = new TextDecoder();
}

const isLeadByte = (byte) => (byte & 0xc0) !== 0x80;

function writeOutput(bytes) {
  let end = 0;
  if (output.room > 0) {
    // Take whole characters while there is room: stop before the lead byte of the first
    // character that does not fit.
    while (end < bytes.length) {
      if (isLeadByte(bytes[end])) {
        if (output.room === 0) break;
        output.room -= 1;
      }
      end += 1;
    }
    output.text += output.decoder.decode(bytes.subarray(0, end), { stream: true });
  }
  for (let i = end; i < bytes.length; i++) {
    if (isLeadByte(bytes[i])) output.cut += 1;
  }
  return bytes.length;
}

// URLs the policy refused during the current program (the browser reports each refusal).
let blocked = [];
self.addEventListener("securitypolicyviolation", (event) => {
  if (blocked.length < 5) blocked.push(String(event.blockedURI || event.violatedDirective));
});

let runProgram = null;
let runCodeAct = null;
let queue = Promise.resolve();

self.onmessage = (event) => {
  const message = event.data || {};
  if (message.kind === "load") queue = queue.then(() => load(message));
  else if (message.kind === "run") queue = queue.then(() => run(message));
  else if (message.kind === "program") queue = queue.then(() => run(message, true));
  // Not queued: it answers the program running now.
  else if (message.kind === "result") answerCall(message);
};

// The running program's tool calls waiting for the page: call number → resolve.
const waiting = new Map();
let nextCall = 0;
let runningId = 0;

function callTool(fn, kwargs) {
  nextCall += 1;
  const call = nextCall;
  self.postMessage({ id: runningId, kind: "call", call, function: String(fn), kwargs: String(kwargs) });
  return new Promise((resolve) => waiting.set(call, resolve));
}

function answerCall({ call, ok, text }) {
  const resolve = waiting.get(Number(call));
  if (!resolve) return;
  waiting.delete(Number(call));
  resolve([Boolean(ok), String(text)]);
}

// Pyodide asks `fetch` for its wasm file and standard library; while it loads, those come
// from the blobs the page sent, and nothing else is answered.
function memoryFetch(files, indexURL, noNetwork) {
  return (input) => {
    const url = String(input instanceof Request ? input.url : input);
    const name = url.startsWith(indexURL) ? url.slice(indexURL.length) : null;
    const file = name && Object.hasOwn(files, name) ? files[name] : null;
    if (!file) return Promise.reject(new TypeError(noNetwork));
    const type = name.endsWith(".wasm") ? "application/wasm" : "application/octet-stream";
    return Promise.resolve(new Response(file, { headers: { "Content-Type": type } }));
  };
}

function refuse(noNetwork) {
  return function () {
    throw new TypeError(noNetwork);
  };
}

// Readable errors for the usual ways out. They are no boundary: Python can still reach some
// originals (fetch and importScripts live on the global scope's prototype), and the frame's
// policy stops those. They are closed
// before Pyodide loads: its check for a classic worker calls importScripts, which must fail
// (this is a classic worker, as Chromium starts no module worker from an opaque origin's
// blob: URL; Pyodide's modules load by dynamic import, which works here).
function closeTheDoors(noNetwork) {
  const refused = refuse(noNetwork);
  for (const name of ["XMLHttpRequest", "WebSocket", "EventSource", "Worker", "SharedWorker", "importScripts", "WebTransport"]) {
    Object.defineProperty(self, name, { value: refused, writable: false, configurable: false });
  }
  Object.defineProperty(self, "caches", { get: refused, configurable: false });
}

const moduleURL = (blob) => URL.createObjectURL(new Blob([blob], { type: "text/javascript" }));

async function load({ files, indexURL, noNetwork }) {
  try {
    closeTheDoors(String(noNetwork));
    self.fetch = memoryFetch(files, String(indexURL), String(noNetwork));
    const { loadPyodide } = await import(moduleURL(files["pyodide.mjs"]));
    const asm = await import(moduleURL(files["pyodide.asm.mjs"]));
    const py = await loadPyodide({
      indexURL: String(indexURL),
      createPyodideModule: asm.default,
      lockFileContents: await files["pyodide-lock.json"].text(),
      stdout: () => {},
      stderr: () => {},
    });
    py.setStdout({ write: writeOutput, isatty: false });
    py.setStderr({ write: writeOutput, isatty: false });
    const runners = py.runPython(RUNNER, { globals: py.toPy({}), filename: "<python-tool>" });
    runProgram = runners.get(0);
    runCodeAct = runners.get(1);
    runners.destroy();
    Object.defineProperty(self, "fetch", { value: refuse(String(noNetwork)), writable: false, configurable: false });
    self.postMessage({ kind: "loaded" });
  } catch (e) {
    self.postMessage({ kind: "unavailable", error: String((e && e.message) || e) });
  }
}

// The tools as [function, [param, ...]] pairs of plain strings, whatever was sent.
function toolList(tools) {
  return (Array.isArray(tools) ? tools : []).slice(0, 200).map((t) => [
    String((t && t[0]) || ""),
    (Array.isArray(t && t[1]) ? t[1] : []).slice(0, 50).map(String),
  ]);
}

// Lets the browser deliver the policy reports of the program's last attempts.
const reportsDelivered = () => new Promise((resolve) => setTimeout(resolve, 0));

async function run({ id, code, maxOutput, tools }, codeAct) {
  if (!runProgram) {
    self.postMessage({ id, kind: "unavailable", error: "Pyodide is not loaded" });
    return;
  }
  const limit = Number(maxOutput) || 0;
  resetOutput(limit);
  blocked = [];
  self.postMessage({ id, kind: "started" });
  let reply;
  try {
    runningId = id;
    const result = codeAct
      ? await runCodeAct(String(code), toolList(tools), callTool, limit)
      : await runProgram(String(code), limit);
    const [kind, text, chars] = result.toJs();
    result.destroy();
    reply = kind === "done" || kind === "final"
      ? { id, kind, value: text ?? null, valueChars: chars }
      : { id, kind, error: String(text) };
  } catch (e) {
    reply = { id, kind: "raised", error: String((e && e.message) || e).slice(0, 4 * limit) };
  }
  await reportsDelivered();
  reply.stdout = output.text + output.decoder.decode();
  reply.cut = output.cut;
  reply.blocked = blocked;
  self.postMessage(reply);
}
