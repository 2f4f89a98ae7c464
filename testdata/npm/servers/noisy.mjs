// An MCP server on the official TypeScript SDK that writes to stdout what
// careless servers do: a start-up banner, a JSON log line and console.log
// calls during tool calls. The TypeScript and Python SDK clients skip such
// lines; Switchboard's tests check that it does too. Tools:
//   echo {message}          answers "Echo: <message>", after a stray console.log
//   big {bytes, structured} answers a text of <bytes> bytes (lines with
//                           quotes, so JSON escapes are exercised), and the
//                           same text again as structuredContent when asked,
//                           as server-filesystem's read_text_file does.
// Resource big://text/<bytes>: a text of about <bytes> bytes, to read a long
// answer to the host's own (SDK) requests beside long tool results.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

console.log('noisy-server 1.0 starting on stdio...');
console.log(JSON.stringify({ level: 'info', msg: 'loading tools' }));

const server = new Server({ name: 'noisy', version: '1.0.0' }, { capabilities: { tools: {}, resources: {} } });

// bigText returns a text of exactly n bytes made of lines with quotes and
// a backslash, so that its JSON has escapes throughout.
function bigText(n) {
  const line = 'a line of "quoted" text \\ with a backslash and e\n';
  return line.repeat(Math.ceil(n / line.length)).slice(0, n);
}

server.setRequestHandler(ListResourcesRequestSchema, async () => ({
  resources: [{ uri: 'big://text/100000', name: 'big text' }],
}));

server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
  const n = Number(req.params.uri.replace('big://text/', ''));
  return { contents: [{ uri: req.params.uri, mimeType: 'text/plain', text: bigText(n) }] };
});

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'echo',
      description: 'Echoes the message.',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    },
    {
      name: 'big',
      description: 'Returns a text of about the given size.',
      inputSchema: {
        type: 'object',
        properties: { bytes: { type: 'integer' }, structured: { type: 'boolean' } },
        required: ['bytes'],
      },
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const args = req.params.arguments ?? {};
  console.log(`handling ${req.params.name}`);
  switch (req.params.name) {
    case 'echo':
      return { content: [{ type: 'text', text: `Echo: ${args.message}` }] };
    case 'big': {
      const text = bigText(args.bytes);
      const result = { content: [{ type: 'text', text }] };
      if (args.structured) {
        result.structuredContent = { content: text };
      }
      return result;
    }
    default:
      throw new Error(`unknown tool ${req.params.name}`);
  }
});

await server.connect(new StdioServerTransport());
console.log('noisy-server connected');
