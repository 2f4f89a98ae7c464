// An MCP client on the TypeScript SDK's OAuth support (client/auth.js,
// the OAuthClientProvider interface), connecting to Switchboard's /mcp as
// a new OAuth client would: the 401 names the resource metadata, the SDK
// discovers the authorization server, registers (RFC 7591) and sends the
// person to the authorization URL. Here the "person" is the signed-in
// user whose API key is CONSENT_KEY: the script opens the consent API as
// the consent page does and approves. Then the SDK redeems the code and
// connects with the token: tools/list and a call of TS_TOOL.
// argv: MCP_URL. Prints a JSON report (with the tokens, for the test).
const sdk = process.env.SDK_DIR;
const { Client } = await import(`${sdk}/dist/esm/client/index.js`);
const { StreamableHTTPClientTransport } = await import(`${sdk}/dist/esm/client/streamableHttp.js`);
const { UnauthorizedError } = await import(`${sdk}/dist/esm/client/auth.js`);
const mcpURL = new URL(process.argv[2]);
const base = mcpURL.origin;

const state = { authURL: null };
const provider = {
  get redirectUrl() { return 'http://127.0.0.1:1/callback'; },
  get clientMetadata() {
    return { client_name: 'TS SDK OAuth interop', redirect_uris: ['http://127.0.0.1:1/callback'],
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  },
  state() { return 'ts-state-1'; },
  clientInformation() { return state.client; },
  saveClientInformation(c) { state.client = c; },
  tokens() { return state.tokens; },
  saveTokens(t) { state.tokens = t; },
  redirectToAuthorization(u) { state.authURL = u; },
  saveCodeVerifier(v) { state.verifier = v; },
  codeVerifier() { return state.verifier; },
};

// 1. Connecting without a token: the SDK runs discovery and registration
// and asks for the browser step.
let transport = new StreamableHTTPClientTransport(mcpURL, { authProvider: provider });
let client = new Client({ name: 'ts-oauth-interop', version: '1.0.0' });
try {
  await client.connect(transport);
  throw new Error('connected without authorization');
} catch (e) {
  if (!(e instanceof UnauthorizedError)) throw e;
}
if (!state.authURL) throw new Error('the SDK did not ask for the authorization step');

// 2. The browser step: the consent page's API calls, as the signed-in user.
const query = state.authURL.search.slice(1);
const hdr = { Authorization: `Bearer ${process.env.CONSENT_KEY}` };
const page = await fetch(state.authURL, { redirect: 'manual' });
if (page.status !== 200) throw new Error(`authorize page: ${page.status} ${await page.text()}`);
const info = await (await fetch(`${base}/api/v1/oauth/consent?${query}`, { headers: hdr })).json();
const res = await fetch(`${base}/api/v1/oauth/consent`, {
  method: 'POST', headers: { ...hdr, 'Content-Type': 'application/json' }, body: JSON.stringify({ query, approve: true }),
});
if (res.status !== 200) throw new Error(`consent: ${res.status} ${await res.text()}`);
const back = new URL((await res.json()).redirect);
if (back.searchParams.get('state') !== 'ts-state-1') throw new Error(`state not passed back: ${back}`);

// 3. The SDK redeems the code, then connects with the token.
await transport.finishAuth(back.searchParams.get('code'));
transport = new StreamableHTTPClientTransport(mcpURL, { authProvider: provider });
client = new Client({ name: 'ts-oauth-interop', version: '1.0.0' });
await client.connect(transport);
const { tools } = await client.listTools();
const result = await client.callTool({ name: process.env.TS_TOOL, arguments: JSON.parse(process.env.TS_ARGS || '{}') });
await client.close();
console.log(JSON.stringify({
  authURL: state.authURL.href, clientId: state.client.client_id, consent: info,
  tokens: state.tokens, tools: tools.map((t) => t.name), result,
}));
