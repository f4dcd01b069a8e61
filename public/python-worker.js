// Classic worker running Python with Pyodide, started by public/python-frame.html from a blob:
// URL, so it inherits that frame's Content-Security-Policy: no connection, script or worker
// from any network host. That policy is what keeps the network shut; the replacements below
// only turn the obvious attempts into a readable error at once.
//
// Messages in:  {kind: "load", files: {name: Blob}, indexURL, noNetwork}
//               {kind: "run", id, key, code, maxOutput}
//               {kind: "program", id, key, code, tools: [[function, [param, ...]], ...], maxOutput}
//               {kind: "result", key, call, ok, limit, json, text} (a program's tool call, answered
//               by the page; `limit`: refused at the step's call limit, raised as CallLimitError;
//               `json`: the text is a structured result's JSON, given to the program as a dict
//               or a list)
//               {kind: "ping", key} (the page asks whether the worker is idle)
// Messages out: {kind: "loaded"} | {kind: "unavailable", error} | {kind: "pong", key}
//               {kind: "interrupt-buffer", buffer} (once, before "loaded", where memory can be
//               shared: the frame keeps it, and interrupts a program past its time limit)
//               {id, key, kind: "started"} | {id, key, kind: "done", stdout, cut, value, valueChars, blocked}
//               | {id, key, kind: "raised", stdout, cut, error, blocked}
//               | {id, key, kind: "call", call, function, kwargs} (a program asks the page to run a tool)
//               | {id, key, kind: "final", stdout, cut, value, blocked} (a program called final_answer)
//               (a CodeAct program's end also carries `names`: its variables, for the page to
//               name if a restart loses them)
//               | {id, key, kind: "tampered", error} (an earlier program changed the runner: not run)
// Programs run one after another, each from a fresh output buffer, in shared globals.
// A CodeAct program's tools are functions that ask the page (which runs the tool through
// its own gate) and wait for the answer; the program never reaches a tool itself.
//
// A program reaches this worker's global scope (Python's `js` module) and Pyodide's objects,
// and may post messages of its own. So the page trusts a message only with the key it gave
// the program, which is kept where no program reaches it (this script's own bindings, captured
// below before Pyodide or any program ran), and only in the order a real program produces them.
// Each program gets a runner made afresh from source and from originals taken at load, and
// before each program the worker checks that what the runner relies on is as it was at load;
// if not, it says so instead of running the program, and the page starts a fresh sandbox.

(function () {
  "use strict";

  // Taken before Pyodide or any program runs: later lookups of these on the global scope, the
  // prototypes or Reflect would find whatever a program put there.
  const post = self.postMessage.bind(self);
  const listen = self.addEventListener.bind(self);
  const apply = Reflect.apply;
  const ownKeys = Reflect.ownKeys;
  const describe = Object.getOwnPropertyDescriptor;
  const protoOf = Object.getPrototypeOf;
  const same = Object.is;
  const eventData = describe(MessageEvent.prototype, "data").get;
  const stopOthers = Event.prototype.stopImmediatePropagation;
  const PromiseOf = Promise;
  const StringOf = String;
  const setTimer = self.setTimeout.bind(self);
  const SharedMemory = typeof SharedArrayBuffer === "function" ? SharedArrayBuffer : null;
  const storeShared = Atomics.store;
  const clearTimer = self.clearTimeout.bind(self);

  // Made afresh for each program, in new globals holding the originals BOOT took at load:
  // what a program reaches through final_answer or a tool function (their __globals__, the
  // frames above it) is its own runner, gone when it ends. No import, no class at the top: the
  // builtins they would call are checked (CHECK) before this runs.
  const RUNNER = `
def _error_text(error, limit):
    # Only the program's own frames, and only the last few: the runner's are noise to the
    # model, and a deep recursion would fill the observation.
    frames = [f for f in extract_tb(error.__traceback__) if f.filename == "<exec>"]
    lines = ["Traceback (most recent call last):\\n"] if frames else []
    lines += format_list(frames[-10:])
    if isinstance(error, SyntaxError):
        lines += format_exception_only(error)
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


def _assigned(code):
    # The one name the program's last statement assigns, if it is an assignment.
    try:
        body = ast_parse(code).body
    except BaseException:
        return None
    if not body or not isinstance(body[-1], ast_assignments):
        return None
    last = body[-1]
    targets = last.targets if isinstance(last, ast_assignments[0]) else [last.target]
    if len(targets) == 1 and isinstance(targets[0], ast_name):
        return targets[0].id
    return None


async def run(code, limit):
    try:
        value = await eval_code_async(code, names)
    except BaseException as error:
        _flush()
        try:
            return ("raised", _error_text(error, limit), 0)
        except BaseException as failure:
            return ("raised", type(error).__name__ + f" (its message could not be read: {type(failure).__name__})", 0)
    _flush()
    if value is None:
        # A last line that assigns shows the value it gave (x = ..., x += ...), as smolagents does.
        assigned = _assigned(code)
        if assigned is not None and assigned in names:
            value = names[assigned]
    if value is None:
        return ("done", None, 0)
    try:
        text = str(value)
    except BaseException as failure:
        return ("done", f"<str() failed: {type(failure).__name__}>", 0)
    # Only the first characters cross to JavaScript, with the full length.
    return ("done", text[:limit], len(text))


# CodeAct: the tools as functions that ask the page, and final_answer.
def _classes():
    class ToolError(Exception):
        """A tool call that failed (or was refused): the message says why."""

    class CallLimitError(ToolError):
        """A call past the step's call limit: it and every later call of the program are refused."""

    class FinalAnswer(BaseException):
        pass

    # A traceback names them as the program does, not as "_classes.<locals>.ToolError".
    ToolError.__qualname__ = "ToolError"
    CallLimitError.__qualname__ = "CallLimitError"
    return ToolError, CallLimitError, FinalAnswer


ToolError, _CallLimitError, _FinalAnswer = _classes()
_final = []


def final_answer(answer=None):
    # None is no answer (final_answer(print(x)) passes what print returned): an error the
    # model reads, as any other.
    if answer is None:
        raise TypeError("final_answer() was given None, which is no answer (print() returns None): pass the answer itself, e.g. final_answer(result)")
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
        # "1" and the result, "3" and a structured result's JSON, "2" or "0" and why it
        # failed: a plain string, which no then() of a program's can stand in for.
        reply = run_sync(call(function, json_dumps(kwargs, default=str)))
        if reply[:1] == "2":
            raise _CallLimitError(reply[1:])
        if reply[:1] == "3":
            # A structured result (JSON from the page): a dict or a list.
            return json_loads(reply[1:])
        if reply[:1] != "1":
            raise ToolError(reply[1:])
        return reply[1:]

    tool.__name__ = function
    return tool


async def program(code, tools, call, limit):
    names["final_answer"] = final_answer
    names["ToolError"] = ToolError
    for function, params in tools:
        names[function] = _tool(function, list(params), call)
    kind, text, chars = await run(code, limit)
    if _final:
        answer = _final[-1]
        try:
            text = str(answer)
        except BaseException as failure:
            text = f"<str() failed: {type(failure).__name__}>"
        return ("final", text[:limit], len(text))
    return (kind, text, chars)


def variables(own):
    # The program's variables once it ended (its globals but the sandbox's own and the
    # underscored ones), for the page to name if a restart loses them. Exact strings only: a
    # key of a type of the program's runs none of its code here.
    found = []
    for name in list(names):
        if type(name) is str and name[:1] != "_" and name not in own:
            found.append(name[:60])
            if len(found) == 50:
                break
    return found
`;

  // Run once at load, before any program: the originals each runner is given, what the runner
  // relies on as it is now (for CHECK), and a guard against what no check could see afterwards.
  const BOOT = `
import builtins, sys, json, traceback, __main__
import json.encoder, json.decoder, json.scanner, ast, tokenize, linecache, textwrap, types
import pyodide.code, pyodide.ffi, pyodide.webloop, _pyodide._base

originals = {
    "eval_code_async": pyodide.code.eval_code_async,
    "run_sync": pyodide.ffi.run_sync,
    "json_dumps": json.dumps,
    "json_loads": json.loads,
    "extract_tb": traceback.extract_tb,
    "format_list": traceback.format_list,
    "format_exception_only": traceback.format_exception_only,
    "sys": sys,
    "names": __main__.__dict__,
    "ast_parse": ast.parse,
    "ast_assignments": (ast.Assign, ast.AugAssign, ast.AnnAssign),
    "ast_name": ast.Name,
}


def noted(label, holder, whole):
    return (holder, label, tuple(holder.items()), whole)


# The modules whose functions a program's run goes through (eval_code_async and its parser,
# the tool calls' JSON, the tracebacks), and the classes they define.
checked = [
    noted("builtins", builtins.__dict__, True),
    noted("the runner's originals", originals, True),
    (vars(sys), "sys", (("stdout", sys.stdout), ("stderr", sys.stderr)), False),
]
for name in ("_pyodide._base", "pyodide.code", "pyodide.ffi", "pyodide.webloop", "json",
             "json.encoder", "json.decoder", "json.scanner", "traceback", "linecache", "ast",
             "tokenize", "textwrap", "types"):
    module = sys.modules[name]
    checked.append(noted(name, vars(module), not hasattr(module, "__path__")))
    for value in list(vars(module).values()):
        if isinstance(value, type) and value.__module__ == name:
            checked.append(noted(name + "." + value.__qualname__, vars(value), True))


# A function's code, defaults and the interpreter's hooks are what a check of names cannot
# see: changing them is refused from now on, for every program. Its defaults are its only
# state, and they cannot be changed either.
def guard(event, args, refused=("sys.settrace", "sys.setprofile", "sys._settrace",
                                "sys._setprofile", "sys.addaudithook", "sys.monitoring",
                                "ctypes."),
          state=("__code__", "__defaults__", "__kwdefaults__"), error=RuntimeError):
    if event.startswith(refused) or (
        (event == "object.__setattr__" or event == "object.__delattr__") and args[1] in state
    ):
        raise error(f"the sandbox does not allow {event} {args[1:2]}")


sys.addaudithook(guard)
(originals, tuple(checked), builtins.exec, dict)
`;

  // Whether what the runner relies on is as BOOT noted it; the first name that is not.
  // Defined in globals with no builtins, it uses none: they are among what it checks.
  const CHECK = `
def changed(checked):
    for holder, label, items, whole in checked:
        for name, value in items:
            if holder.get(name, changed) is not value:
                return label + "." + name
        if whole and holder.__len__() != items.__len__():
            return label + " (a name was added)"
    return None
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
  listen("securitypolicyviolation", (event) => {
    if (blocked.length < 5) blocked.push(String(event.blockedURI || event.violatedDirective));
  });

  // Pyodide and what BOOT gave, once loaded.
  let python = null;
  // Pyodide's interrupt buffer, shared with the frame (null where memory cannot be shared):
  // the frame writes 2 (SIGINT) into it when the page says a program ran past its time, and
  // the program gets a KeyboardInterrupt at its next bytecode check, its interpreter kept.
  let interrupt = null;
  // The program running now: {id, key}; its tool call waiting for the page: {call, resolve}.
  let running = null;
  let waiting = null;
  let nextCall = 0;

  // First, before any listener a program adds (a capturing one included), and only the
  // browser's own messages: a program can dispatch a MessageEvent of its own on this scope,
  // and could read a key from the page's.
  listen("message", (event) => {
    apply(stopOthers, event, []);
    if (!event.isTrusted) return;
    const message = apply(eventData, event, []) || {};
    if (message.kind === "load" && !python) load(message);
    else if (message.kind === "run") run(message, false);
    else if (message.kind === "program") run(message, true);
    else if (message.kind === "result") answerCall(message);
    else if (message.kind === "ping") post({ kind: "pong", key: message.key });
  }, true);

  // One call at a time, only while its program runs; the reply is a plain string.
  function callTool(fn, kwargs) {
    return new PromiseOf((resolve) => {
      if (!running || waiting) {
        resolve("0a program makes one tool call at a time, while it runs");
        return;
      }
      nextCall += 1;
      waiting = { call: nextCall, resolve };
      post({
        id: running.id,
        key: running.key,
        kind: "call",
        call: nextCall,
        function: StringOf(fn),
        kwargs: StringOf(kwargs),
      });
    });
  }

  function answerCall(message) {
    if (!running || !waiting || message.key !== running.key || message.call !== waiting.call) return;
    const resolve = waiting.resolve;
    waiting = null;
    const text = typeof message.text === "string" ? message.text : "";
    const ok = message.json === true ? "3" : "1";
    resolve((message.ok === true ? ok : message.limit === true ? "2" : "0") + text);
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
      const boot = py.runPython(BOOT, { globals: py.toPy({}), filename: "<python-tool>" });
      Object.defineProperty(self, "fetch", { value: refuse(String(noNetwork)), writable: false, configurable: false });
      // Only a cross-origin isolated frame gives its worker shared memory.
      if (SharedMemory && self.crossOriginIsolated) {
        interrupt = new Int32Array(new SharedMemory(4));
        py.setInterruptBuffer(interrupt);
        post({ kind: "interrupt-buffer", buffer: interrupt });
      }
      python = {
        originals: boot.get(0),
        checked: boot.get(1),
        exec: boot.get(2),
        dict: boot.get(3),
        setStdout: py.setStdout,
        setStderr: py.setStderr,
        py,
      };
      boot.destroy();
      closeTheLoops();
      watched = watchList(py);
      post({ kind: "loaded" });
    } catch (e) {
      post({ kind: "unavailable", error: String((e && e.message) || e) });
    }
  }

  // What the worker's own code and Pyodide's glue look up as they run, as it was at load:
  // every property of the global scope, of what it holds (constructors, their prototypes,
  // namespaces) and of the intrinsics no global names; the functions of Pyodide's own objects.
  let watched = [];

  function noted(object, whole) {
    const keys = ownKeys(object);
    const held = [];
    for (let i = 0; i < keys.length; i++) {
      const d = describe(object, keys[i]);
      if (whole || typeof d.value === "function") held.push([keys[i], d.value, d.get, d.set]);
    }
    return [object, held, whole ? keys.length : -1];
  }

  function watchList(py) {
    const list = [];
    const seen = new Set();
    const add = (o, whole) => {
      if (o && (typeof o === "object" || typeof o === "function") && !seen.has(o)) {
        seen.add(o);
        list.push(noted(o, whole));
      }
    };
    for (let o = self; o; o = protoOf(o)) add(o, true);
    for (const name of ownKeys(self)) {
      const value = describe(self, name).value;
      add(value, true);
      if (typeof value === "function") add(value.prototype, true);
    }
    const hidden = [
      function* () {}, async function () {}, async function* () {}, [][Symbol.iterator](),
      new Map().entries(), new Set().values(), ""[Symbol.iterator](), "".matchAll(/x/g), Uint8Array,
    ];
    for (const thing of hidden) {
      for (let o = protoOf(thing); o; o = protoOf(o)) {
        add(o, true);
        add(o.prototype, true);
      }
    }
    add(py, false);
    add(py._api, false);
    add(py._module, false);
    return list;
  }

  // The first property that is not as it was at load, by index loops and the functions taken
  // above only: a changed iterator or call() must not steer the check itself.
  function changedIntrinsic() {
    for (let i = 0; i < watched.length; i++) {
      const [object, held, count] = watched[i];
      if (count >= 0 && ownKeys(object).length !== count) return "a JavaScript object gained or lost a property";
      for (let j = 0; j < held.length; j++) {
        const [key, value, get, set] = held[j];
        const d = describe(object, key);
        if (!d || !same(d.value, value) || d.get !== get || d.set !== set) {
          return "JavaScript: " + (typeof key === "symbol" ? "a symbol" : key);
        }
      }
    }
    return null;
  }

  // Whether a program changed what the runner relies on since load (null if not).
  function tamperedWith() {
    const js = changedIntrinsic();
    if (js) return js;
    const globals = python.dict();
    const none = python.dict();
    globals.set("__builtins__", none);
    python.exec(CHECK, globals);
    const changed = globals.get("changed");
    const found = changed(python.checked);
    changed.destroy();
    none.destroy();
    globals.destroy();
    return typeof found === "string" ? found : null;
  }

  function freshRunner() {
    const globals = python.dict();
    globals.update(python.originals);
    python.exec(RUNNER, globals);
    const runner = {
      run: globals.get("run"),
      program: globals.get("program"),
      variables: globals.get("variables"),
    };
    globals.destroy();
    return runner;
  }

  // The tools as [function, [param, ...]] pairs of plain strings, whatever was sent.
  function toolList(tools) {
    return (Array.isArray(tools) ? tools : []).slice(0, 200).map((t) => [
      String((t && t[0]) || ""),
      (Array.isArray(t && t[1]) ? t[1] : []).slice(0, 50).map(String),
    ]);
  }

  // The program's variables, as plain strings (none if they cannot be read).
  function variablesNow(runner, tools) {
    try {
      const found = runner.variables(toolList(tools).map((t) => t[0]).concat(["final_answer", "ToolError"]));
      const names = found.toJs();
      found.destroy();
      return Array.isArray(names) ? names.map(StringOf) : [];
    } catch (e) {
      return [];
    }
  }

  // Lets the browser deliver the policy reports of the program's last attempts.
  const reportsDelivered = () => new PromiseOf((resolve) => setTimer(resolve, 0));

  // Every timer set while a program ran ends with it, however it was set (the globals, the
  // originals on their prototypes, Pyodide's asyncio loop): a program's setInterval runs
  // neither under the next program nor after the run. A worker hands out timer ids in
  // increasing order, so all of them lie between the last clearing and a timer set now.
  let timersFrom = 1;
  function endProgramTimers() {
    const last = setTimer(() => {}, 0);
    for (let id = timersFrom; id <= last; id += 1) clearTimer(id);
    timersFrom = last + 1;
  }

  // The ways to keep running without a timer after a program's end (a message loop between
  // two ports or channels, a scheduled task, an animation frame), on the global scope and its
  // prototypes. No program needs them; Pyodide took its own message channel when it loaded.
  function closeTheLoops() {
    for (const name of ["MessageChannel", "BroadcastChannel", "scheduler", "requestAnimationFrame"]) {
      for (let o = self; o; o = protoOf(o)) {
        if (describe(o, name)) Object.defineProperty(o, name, { value: undefined, writable: false, configurable: false });
      }
    }
  }

  async function run(message, codeAct) {
    const id = Number(message.id) || 0;
    const key = typeof message.key === "string" ? message.key : "";
    if (!python || running) {
      post({ id, key, kind: "unavailable", error: python ? "a program is already running" : "Pyodide is not loaded" });
      return;
    }
    running = { id, key };
    // An interrupt meant for the last program, which ended before it came, is not this one's.
    if (interrupt) storeShared(interrupt, 0, 0);
    let reply;
    try {
      const changed = tamperedWith();
      if (changed) {
        running = null;
        post({ id, key, kind: "tampered", error: changed });
        return;
      }
      apply(python.setStdout, python.py, [{ write: writeOutput, isatty: false }]);
      apply(python.setStderr, python.py, [{ write: writeOutput, isatty: false }]);
      const runner = freshRunner();
      const limit = Number(message.maxOutput) || 0;
      resetOutput(limit);
      blocked = [];
      post({ id, key, kind: "started" });
      try {
        const result = codeAct
          ? await runner.program(String(message.code), toolList(message.tools), callTool, limit)
          : await runner.run(String(message.code), limit);
        const [kind, text, chars] = result.toJs();
        result.destroy();
        reply = kind === "done" || kind === "final"
          ? { kind, value: text ?? null, valueChars: chars }
          : { kind, error: String(text) };
      } catch (e) {
        reply = { kind: "raised", error: String((e && e.message) || e).slice(0, 4 * limit) };
      }
      if (codeAct) reply.names = variablesNow(runner, message.tools);
      endProgramTimers();
      runner.run.destroy();
      runner.program.destroy();
      runner.variables.destroy();
    } catch (e) {
      reply = { kind: "unavailable", error: String((e && e.message) || e).slice(0, 200) };
    }
    await reportsDelivered();
    running = null;
    waiting = null;
    post({
      id,
      key,
      kind: reply.kind,
      value: reply.value,
      valueChars: reply.valueChars,
      error: reply.error,
      names: reply.names,
      stdout: output.text + output.decoder.decode(),
      cut: output.cut,
      blocked,
    });
  }
})();
