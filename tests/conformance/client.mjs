// The MCP conformance harness's client adapter: `node client.mjs <server-url>` with
// MCP_CONFORMANCE_SCENARIO (+ MCP_CONFORMANCE_CONTEXT, MCP_CONFORMANCE_PROTOCOL_VERSION)
// in the environment. It writes an ordinary config — the URL and, for servers that
// want OAuth, the pre-registered client from the context and the Client ID Metadata
// Document URL the harness expects — sets $BROWSER to browser.mjs (which follows the
// authorization page to switchboard's loopback listener, as a browser would), and
// only drives ordinary switchboard commands — list everything,
// call each offered tool with `--elicit accept-defaults`, read each resource, get each
// prompt — and picks arguments for tools that need specific ones (the context's
// `toolCalls`, `add_numbers`, `json_schema_echo`), as the SDKs' own conformance
// clients do. Every protocol behaviour comes from switchboard itself.
//
// SWITCHBOARD_BIN names the binary (default: target/debug/switchboard).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const bin = process.env.SWITCHBOARD_BIN ?? resolve(here, "../../target/debug/switchboard");
const url = process.argv.at(-1);
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}");
const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;

const home = mkdtempSync(join(tmpdir(), "switchboard-conformance-"));
// The scenario's config, tokens and logs go with it.
process.on("exit", () => rmSync(home, { recursive: true, force: true }));
const config = join(home, "switchboard.toml");
const oauth = [
  `client_metadata_url = ${JSON.stringify("https://conformance-test.local/client-metadata.json")}`,
];
if (context.client_id) oauth.push(`client_id = ${JSON.stringify(context.client_id)}`);
if (context.client_secret) oauth.push('client_secret_env = "CONFORMANCE_CLIENT_SECRET"');
writeFileSync(
  config,
  `[servers.c]\nurl = ${JSON.stringify(url)}\n\n[servers.c.oauth]\n${oauth.join("\n")}\n`,
);
const env = {
  ...process.env,
  HOME: home,
  XDG_CONFIG_HOME: join(home, "config"),
  XDG_STATE_HOME: join(home, "state"),
  XDG_DATA_HOME: join(home, "data"),
  BROWSER: `${process.execPath} ${join(here, "browser.mjs")}`,
  CONFORMANCE_CLIENT_SECRET: context.client_secret ?? "",
};


// The harness names the revision a scenario runs in; pin it like a user would
// (SWITCHBOARD_CONFORMANCE_AUTO=1 leaves switchboard's default, `auto`, to find it).
// switchboard names generations: 2026-07-28, or the initialize one (2025-11-25 and
// older, negotiated in the handshake).
const generation = version >= "2026-07-28" ? "2026-07-28" : "2025-11-25";
const pinned =
  version && !process.env.SWITCHBOARD_CONFORMANCE_AUTO ? ["--protocol", generation] : [];

function run(args) {
  const full = ["--config", config, ...pinned, ...args];
  try {
    const out = execFileSync(bin, full, {
      env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      timeout: 60_000,
    });
    return { ok: true, out };
  } catch (e) {
    console.error(`switchboard ${args.join(" ")}: exit ${e.status}`);
    return { ok: false, out: e.stdout ?? "" };
  }
}

/** A value of the declared type, for a required argument nobody named. */
function sample(schema) {
  switch (schema?.type) {
    case "number":
    case "integer":
      return 1;
    case "boolean":
      return true;
    case "array":
      return [];
    case "object":
      return {};
    default:
      return schema?.enum?.[0] ?? "test";
  }
}

function argumentsFor(tool, tools) {
  if (tool.name === "add_numbers") return { a: 1, b: 2 };
  if (tool.name === "json_schema_echo") {
    const source = tools.find((t) => t.name === "json_schema_2020_12_tool");
    return { schema: source?.input_schema ?? {} };
  }
  const schema = tool.input_schema ?? {};
  const args = {};
  for (const name of schema.required ?? []) {
    args[name] = sample(schema.properties?.[name]);
  }
  return args;
}

const listed = run(["catalog", "--server", "c", "--json"]);
const server = listed.ok ? JSON.parse(listed.out).servers?.[0] ?? {} : {};
const tools = server.tools ?? [];

const call = (name, args) =>
  run(["call", "c", name, "--args", JSON.stringify(args), "--elicit", "accept-defaults",
    "--approve", "full-auto"]);

const given = context.toolCalls ?? [];
for (const { name, arguments: args } of given) call(name, args ?? {});
for (const tool of tools) {
  if (given.some((c) => c.name === tool.name)) continue;
  call(tool.name, argumentsFor(tool, tools));
}
for (const resource of server.resources ?? []) run(["read", "c", resource.uri]);
for (const prompt of server.prompts ?? []) {
  const args = (prompt.arguments ?? [])
    .filter((a) => a.required)
    .flatMap((a) => ["-a", `${a.name}=test`]);
  run(["prompt", "c", prompt.name, ...args]);
}
