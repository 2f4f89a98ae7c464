// A hostile MCP server for Switchboard's sandbox tests, on the TypeScript
// SDK in ../node_modules. Each tool tries one way out of a sandbox and
// reports what happened as text: "ok: ..." when the attempt worked,
// "denied: CODE message" when the system refused it. Tools never throw,
// so a test sees each outcome.
//
// Options: --read-at-start PATH reads PATH before serving and exits with
// the error when that fails, as a server that needs a file would.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const at = process.argv.indexOf("--read-at-start");
if (at > 0) {
  // Throws EACCES or ENOENT with the path, on stderr, and exits 1.
  fs.readFileSync(process.argv[at + 1]);
}

const text = (s) => ({ content: [{ type: "text", text: s }] });
const attempt = (f) => {
  try {
    return text("ok: " + f());
  } catch (e) {
    return text(`denied: ${e.code ?? ""} ${e.message}`);
  }
};

const server = new McpServer({ name: "hostile", version: "1.0.0" });

server.registerTool("read_file", { description: "Read a file.", inputSchema: { path: z.string() } },
  ({ path }) => attempt(() => fs.readFileSync(path, "utf8")));

server.registerTool("list_dir", { description: "List a directory.", inputSchema: { path: z.string() } },
  ({ path }) => attempt(() => fs.readdirSync(path).join(",")));

server.registerTool("write_file", { description: "Write a file.", inputSchema: { path: z.string(), content: z.string() } },
  ({ path, content }) => attempt(() => { fs.writeFileSync(path, content); return "written"; }));

server.registerTool("read_environ", { description: "Read another process's environment; pid 0 means the parent.", inputSchema: { pid: z.number() } },
  ({ pid }) => attempt(() => fs.readFileSync(`/proc/${pid || process.ppid}/environ`, "utf8").split("\0").join("\n")));

server.registerTool("processes", { description: "List the pids this process can see." },
  () => attempt(() => fs.readdirSync("/proc").filter((e) => /^\d+$/.test(e)).join(",")));

server.registerTool("env", { description: "List this process's environment variable names." },
  () => attempt(() => Object.keys(process.env).sort().join(",")));

server.registerTool("connect", { description: "Open a TCP connection.", inputSchema: { host: z.string(), port: z.number() } },
  ({ host, port }) => new Promise((resolve) => {
    const s = net.connect({ host, port });
    s.setTimeout(5000);
    s.on("connect", () => { s.end("hello from the sandbox\n"); resolve(text("ok: connected")); });
    s.on("timeout", () => { s.destroy(); resolve(text("denied: ETIMEDOUT no answer")); });
    s.on("error", (e) => resolve(text(`denied: ${e.code} ${e.message}`)));
  }));

server.registerTool("connect_unix", { description: "Connect to a unix socket by path.", inputSchema: { path: z.string() } },
  ({ path }) => new Promise((resolve) => {
    const s = net.connect({ path });
    s.setTimeout(5000);
    s.on("connect", () => { s.end("hello from the sandbox\n"); resolve(text("ok: connected")); });
    s.on("timeout", () => { s.destroy(); resolve(text("denied: ETIMEDOUT no answer")); });
    s.on("error", (e) => resolve(text(`denied: ${e.code} ${e.message}`)));
  }));

// start spawns one child and resolves to it, or to the error.
const start = (args, opts) => new Promise((resolve) => {
  const c = spawn("sleep", args, { stdio: "ignore", ...opts });
  c.on("spawn", () => resolve({ child: c }));
  c.on("error", (error) => resolve({ error }));
});

// Spawns sleepers until the system refuses, up to count, all alive at
// once; then ends them so the server can go on working.
server.registerTool("fork_bomb", { description: "Start up to count sleeping children at once.", inputSchema: { count: z.number(), marker: z.string() } },
  async ({ count, marker }) => {
    const kept = [];
    let error;
    while (kept.length < count) {
      const r = await start([marker]);
      if (r.error) { error = r.error; break; }
      kept.push(r.child);
    }
    await Promise.all(kept.map((c) => new Promise((resolve) => { c.on("exit", resolve); c.kill("SIGKILL"); })));
    return text(error ? `denied: started ${kept.length}, then ${error.code}` : `ok: started ${kept.length}`);
  });

server.registerTool("spawn_detached", { description: "Start a sleeper in a session of its own, to outlive this server.", inputSchema: { marker: z.string() } },
  async ({ marker }) => {
    const r = await start([marker], { detached: true });
    if (r.error) return text(`denied: ${r.error.code} ${r.error.message}`);
    r.child.unref();
    return text(`ok: started ${r.child.pid}`);
  });

server.registerTool("run", { description: "Run a shell command line.", inputSchema: { command: z.string() } },
  ({ command }) => attempt(() => execFileSync("/bin/sh", ["-c", command], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })));

await server.connect(new StdioServerTransport());
