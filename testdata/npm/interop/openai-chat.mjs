// Calls Switchboard's /v1/chat/completions with the official OpenAI npm
// client, as an application would, and prints one JSON line with what it
// got: {"content": "..."} or {"status": 401, "error": "..."}.
// Usage: node openai-chat.mjs BASE_URL API_KEY stream|once MESSAGE [MODEL]
// (MODEL defaults to "default").
import OpenAI from "openai";

const [baseURL, apiKey, mode, message, model = "default"] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 20000 });
try {
  const params = { model, messages: [{ role: "user", content: message }] };
  let content = "";
  if (mode === "stream") {
    const stream = await client.chat.completions.create({ ...params, stream: true });
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta?.content ?? "";
    }
  } else {
    const done = await client.chat.completions.create(params);
    content = done.choices[0].message.content;
  }
  console.log(JSON.stringify({ content }));
} catch (err) {
  console.log(JSON.stringify({ status: err.status ?? 0, error: String(err.message ?? err) }));
}
