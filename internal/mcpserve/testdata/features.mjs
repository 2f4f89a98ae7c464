// features.mjs: the MCP TypeScript SDK's client, against Switchboard's /mcp.
// Usage: node features.mjs <node_modules> <url> <caller> <plan JSON>
// The plan is {"prompts":[{"name":..,"arguments":{..}}],"reads":[uri,..],
// "completes":[completion/complete params,..]}.
// It prints one JSON object: the lists, then each get and read (a result or
// {"error": message}), so the Go test can check what the client saw.
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [nm, url, caller, planJSON] = process.argv.slice(2);
const sdk = (p) => import(pathToFileURL(join(nm, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");

const plan = JSON.parse(planJSON);
const client = new Client({ name: "features-test", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { "X-Test-Caller": caller } },
});
await client.connect(transport);

const attempt = async (f) => {
  try {
    return await f();
  } catch (e) {
    return { error: String(e.message ?? e) };
  }
};
const out = {
  capabilities: client.getServerCapabilities(),
  prompts: await attempt(() => client.listPrompts()),
  resources: await attempt(() => client.listResources()),
  templates: await attempt(() => client.listResourceTemplates()),
  gets: [],
  reads: [],
  completes: [],
};
for (const p of plan.prompts ?? []) {
  out.gets.push(await attempt(() => client.getPrompt(p)));
}
for (const uri of plan.reads ?? []) {
  out.reads.push(await attempt(() => client.readResource({ uri })));
}
for (const c of plan.completes ?? []) {
  out.completes.push(await attempt(() => client.complete(c)));
}
await client.close();
process.stdout.write(JSON.stringify(out));
