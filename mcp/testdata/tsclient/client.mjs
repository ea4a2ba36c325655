// client.mjs drives optimizer's MCP server with the official TypeScript
// SDK's client, for the Go tests (cmd/optimizer/mcp_test.go).
//
//   node client.mjs stdio COMMAND [ARG...]   spawn the server, speak stdio
//   node client.mjs http URL                 speak streamable HTTP to URL
//
// The calls to make are a JSON file named by $MCP_CALLS:
//   {"evaluate": {...arguments}, "bad": {"name": ..., "arguments": ...}}
// $MCP_TOKEN, when set, goes as a bearer token over HTTP. It prints one JSON
// object on stdout: the tools listed, each call's result, and the progress
// notifications evaluate sent.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target, ...rest] = process.argv.slice(2);
const calls = JSON.parse(readFileSync(process.env.MCP_CALLS, "utf8"));

let transport;
if (mode === "stdio") {
  transport = new StdioClientTransport({ command: target, args: rest, env: { ...process.env }, stderr: "inherit" });
} else if (mode === "http") {
  const headers = process.env.MCP_TOKEN ? { Authorization: `Bearer ${process.env.MCP_TOKEN}` } : {};
  transport = new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers } });
} else {
  console.error("usage: node client.mjs stdio COMMAND [ARG...] | http URL");
  process.exit(2);
}

const client = new Client({ name: "optimizer-tsclient-test", version: "0.0.0" });
await client.connect(transport);
const out = { server: client.getServerVersion(), progress: [] };

const { tools } = await client.listTools();
out.tools = tools.map((t) => ({ name: t.name, input: !!t.inputSchema, output: !!t.outputSchema }));

// callTool checks a result's structuredContent against the tool's output
// schema, so a result that breaks its own schema fails here.
const opts = { timeout: 10 * 60 * 1000, resetTimeoutOnProgress: true };
out.evaluate = await client.callTool({ name: "evaluate", arguments: calls.evaluate }, undefined, {
  ...opts,
  onprogress: (p) => out.progress.push(p.message ?? ""),
});
const job = out.evaluate.structuredContent?.job;
if (job) {
  out.report = await client.callTool({ name: "report", arguments: { job, format: "json" } }, undefined, opts);
  out.markdown = await client.callTool({ name: "report", arguments: { job, format: "markdown" } }, undefined, opts);
}
if (calls.bad) {
  out.bad = await client.callTool(calls.bad, undefined, opts);
}
await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
