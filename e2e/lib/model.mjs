// A model server on 127.0.0.1 that speaks OpenAI's chat completions and
// Anthropic's Messages, streaming, with tool calls: what a real provider
// sends, from a script. Each request takes the next step of the script;
// every request is kept (headers and body) to check what Conch sent.

import { createServer } from "node:http";

/** A step: { text }, { call: { name, input } }, { status, message }, each
 *  with an optional { wait } in ms before the answer starts. With
 *  no step left it answers "The script ran out." as text. */
export async function modelServer(steps = []) {
  const seen = [];
  const queue = [...steps];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      let json = null;
      try {
        json = JSON.parse(body);
      } catch {
        /* not JSON: kept as null */
      }
      seen.push({ url: req.url, headers: req.headers, body: json });
      const step = queue.shift() ?? { text: "The script ran out." };
      const anthropic = req.url.endsWith("/v1/messages");
      // { wait: ms }: the model thinks that long before its first word.
      if (step.wait) {
        setTimeout(() => answer(step, anthropic, res), step.wait);
        return;
      }
      answer(step, anthropic, res);
    });
  });
  function answer(step, anthropic, res) {
    if (step.status) {
      res.writeHead(step.status, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: step.message ?? "no", type: "error" } }));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(anthropic ? anthropicStream(step) : openaiStream(step));
  }
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    base,
    /** The base URL a provider is given. */
    openai: `${base}/v1`,
    anthropic: base,
    seen,
    push: (...more) => queue.push(...more),
    close: () => {
      server.closeAllConnections?.();
      server.close();
    },
  };
}

function openaiStream(step) {
  const data = (o) => `data: ${JSON.stringify(o)}\n\n`;
  let out = "";
  if (step.call) {
    const args = JSON.stringify(step.call.input);
    out += data({ choices: [{ index: 0, delta: { role: "assistant", tool_calls: [{ index: 0, id: step.call.id ?? `call_${Math.random().toString(36).slice(2, 10)}`, type: "function", function: { name: step.call.name, arguments: "" } }] } }] });
    out += data({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: args } }] } }] });
    out += data({ choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] });
  } else {
    for (const word of (step.text ?? "").split(/(?<= )/)) out += data({ choices: [{ index: 0, delta: { content: word } }] });
    out += data({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] });
  }
  return out + "data: [DONE]\n\n";
}

function anthropicStream(step) {
  const ev = (kind, o) => `event: ${kind}\ndata: ${JSON.stringify({ type: kind, ...o })}\n\n`;
  let out = ev("message_start", { message: { id: "m", role: "assistant", content: [] } });
  if (step.call) {
    out += ev("content_block_start", { index: 0, content_block: { type: "tool_use", id: step.call.id ?? "toolu_1", name: step.call.name, input: {} } });
    out += ev("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(step.call.input) } });
    out += ev("content_block_stop", { index: 0 });
    out += ev("message_delta", { delta: { stop_reason: "tool_use" } });
  } else {
    out += ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
    for (const word of (step.text ?? "").split(/(?<= )/)) out += ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: word } });
    out += ev("content_block_stop", { index: 0 });
    out += ev("message_delta", { delta: { stop_reason: "end_turn" } });
  }
  return out + ev("message_stop", {});
}

/** Adds a provider through the API, from the signed-in page. */
export async function addProvider(page, provider) {
  const res = await page.evaluate(async (p) => {
    const r = await fetch("/api/providers", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(p) });
    return { status: r.status, body: await r.text() };
  }, provider);
  if (res.status >= 300) throw new Error(`adding the provider: ${res.status} ${res.body}`);
}
