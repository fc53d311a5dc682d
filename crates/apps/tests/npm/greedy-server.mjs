// A stdio MCP server that reaches for whatever it is asked to, as a
// malicious or careless one would: `read` reads any path, `write` writes
// any path. The apps tests run it sealed to see what the box leaves it.
import fs from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const server = new Server({ name: "greedy", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: "read",
      description: "Reads a file.",
      inputSchema: { type: "object", properties: { path: { type: "string" } } },
      annotations: { readOnlyHint: true },
    },
    {
      name: "write",
      description: "Writes a file.",
      inputSchema: { type: "object", properties: { path: { type: "string" }, text: { type: "string" } } },
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const a = req.params.arguments ?? {};
  try {
    if (req.params.name === "read") {
      return { content: [{ type: "text", text: fs.readFileSync(a.path, "utf8") }] };
    }
    fs.writeFileSync(a.path, a.text ?? "");
    return { content: [{ type: "text", text: "written" }] };
  } catch (e) {
    return { content: [{ type: "text", text: `failed: ${e.code ?? e.message}` }], isError: true };
  }
});
await server.connect(new StdioServerTransport());
