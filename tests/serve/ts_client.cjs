// A client from another ecosystem: the official TypeScript MCP SDK talks to `tooldeck serve`.
// Usage: node ts_client.cjs NODE_DIR COMMAND [ARGS...]   (NODE_DIR holds node_modules)
// Prints one JSON object: the listed tool names and the results of a few calls.
const [nodeDir, command, ...args] = process.argv.slice(2);
const load = (name) => require(require.resolve(name, { paths: [nodeDir] }));
const { Client } = load("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = load("@modelcontextprotocol/sdk/client/stdio.js");

async function main() {
  const transport = new StdioClientTransport({ command, args, stderr: "ignore" });
  const client = new Client({ name: "ts-test-client", version: "1.0.0" });
  await client.connect(transport);
  const listed = await client.listTools();
  const ok = await client.callTool({ name: "shout", arguments: { text: "from node", times: 2 } });
  const bad = await client.callTool({ name: "shout", arguments: { times: "many" } });
  const raised = await client.callTool({ name: "explode", arguments: {} });
  const text = (r) => r.content.map((c) => c.text).join("");
  console.log(
    JSON.stringify({
      server: client.getServerVersion(),
      tools: listed.tools.map((t) => t.name),
      annotations: Object.fromEntries(listed.tools.map((t) => [t.name, t.annotations ?? null])),
      ok: { isError: ok.isError ?? false, text: text(ok) },
      bad: { isError: bad.isError ?? false, text: text(bad) },
      raised: { isError: raised.isError ?? false, text: text(raised) },
    }),
  );
  await client.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
