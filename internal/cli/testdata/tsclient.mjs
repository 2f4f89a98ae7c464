// A client on the MCP TypeScript SDK, the one Claude Desktop uses: it
// connects to Switchboard over Streamable HTTP (argv: http URL KEY) or
// stdio (argv: stdio COMMAND ARGS...), lists the tools, calls TOOL with
// ARGS (env TS_TOOL, TS_ARGS as JSON) and prints what it saw as JSON.
// SDK_DIR is the installed @modelcontextprotocol/sdk.
const sdk = process.env.SDK_DIR;
const { Client } = await import(`${sdk}/dist/esm/client/index.js`);
const [mode, ...rest] = process.argv.slice(2);
let transport;
if (mode === 'http') {
  const { StreamableHTTPClientTransport } = await import(`${sdk}/dist/esm/client/streamableHttp.js`);
  const headers = rest[1] ? { Authorization: `Bearer ${rest[1]}` } : {};
  transport = new StreamableHTTPClientTransport(new URL(rest[0]), { requestInit: { headers } });
} else {
  const { StdioClientTransport } = await import(`${sdk}/dist/esm/client/stdio.js`);
  transport = new StdioClientTransport({ command: rest[0], args: rest.slice(1), env: process.env, stderr: 'ignore' });
}
const client = new Client({ name: 'ts-sdk-interop', version: '1.0.0' });
await client.connect(transport);
const { tools } = await client.listTools();
const result = await client.callTool({ name: process.env.TS_TOOL, arguments: JSON.parse(process.env.TS_ARGS || '{}') });
console.log(JSON.stringify({
  protocolVersion: transport.protocolVersion ?? null,
  sessionId: transport.sessionId ?? null,
  server: client.getServerVersion(),
  tools: tools.map((t) => t.name),
  result,
}));
await client.close();
