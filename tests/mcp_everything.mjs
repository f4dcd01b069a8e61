// Starts the MCP reference server `@modelcontextprotocol/server-everything` (npm, pinned in
// package.json) over Streamable HTTP for the tests, without changing node_modules:
//
//   PORT=0 node tests/mcp_everything.mjs
//
// - Runs the package's own launcher (dist/index.js) with its `streamableHttp` transport: an
//   Express app serving POST/GET/DELETE /mcp, with the `cors` package's permissive set-up.
// - Express' app.listen(PORT) binds every interface; here it binds 127.0.0.1 only. PORT 0
//   (or unset) takes any free port.
// - Prints `READY http://127.0.0.1:<port>/mcp` on stdout once it listens; the server's own
//   chatter on stdout goes to stderr instead.
// - Exits when its parent process (the test binary) goes away.
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const entry = path.join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

function parentPid() {
  try {
    // /proc/self/stat: "pid (comm) state ppid ..."; comm may hold spaces and parentheses.
    const stat = fs.readFileSync("/proc/self/stat", "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    try {
      process.kill(process.ppid, 0);
      return process.ppid;
    } catch {
      return -1;
    }
  }
}
const parentAtStart = parentPid();
setInterval(() => {
  if (parentPid() !== parentAtStart) process.exit(0);
}, 500).unref();

console.log = console.error;

const listen = net.Server.prototype.listen;
let announced = false;
net.Server.prototype.listen = function (...args) {
  // listen(port[, host][, backlog][, callback]): put 127.0.0.1 in when no host is given.
  if ((typeof args[0] === "number" || typeof args[0] === "string") && typeof args[1] !== "string") {
    args.splice(1, 0, "127.0.0.1");
  }
  if (!announced) {
    announced = true;
    this.once("listening", () => {
      process.stdout.write(`READY http://127.0.0.1:${this.address().port}/mcp\n`);
    });
  }
  return listen.apply(this, args);
};

process.env.PORT = process.env.PORT || "0";
process.argv[2] = "streamableHttp";
await import(pathToFileURL(entry).href);
