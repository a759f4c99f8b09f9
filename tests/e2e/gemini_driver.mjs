// Drives the real @google/gemini-cli-core the way the CLI does at start-up, with no model call:
// discovery through `tools.discoveryCommand`, then calls through each tool's own
// build(args).execute(). Reads a JSON job on stdin and writes one JSON report to the job's
// `report` file (the core logs to stdout itself).
//
// Job: {"core": DIR_WITH_NODE_MODULES, "report": FILE, "discoveryCommand": "...",
//       "callCommand": "...", "calls": [{"name": "discovered_tool_x", "args": {...}}]}
// Run with the project under test as the working directory (the CLI spawns both commands
// without a cwd of their own) and a temporary GEMINI_CLI_HOME.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const job = JSON.parse(Buffer.concat(chunks).toString('utf8'));

const require = createRequire(path.join(job.core, 'package.json'));
const entry = require.resolve('@google/gemini-cli-core');
const core = await import(pathToFileURL(entry).href);
const { Config, AuthType } = core;

const config = new Config({
  sessionId: 'cogtools-e2e',
  targetDir: process.cwd(),
  cwd: process.cwd(),
  debugMode: false,
  model: 'gemini-2.5-flash',
  toolDiscoveryCommand: job.discoveryCommand,
  toolCallCommand: job.callCommand,
  ...(job.config || {}),
});
await config.refreshAuth(AuthType.USE_GEMINI, 'any-dummy-key');
await config.initialize();
const registry = config.getToolRegistry();
const declarations = registry.getFunctionDeclarations();
const discovered = declarations.filter((d) => d.name.startsWith('discovered_tool_'));

const calls = [];
for (const request of job.calls || []) {
  const tool = registry.getTool(request.name);
  if (!tool) {
    calls.push({ name: request.name, found: false });
    continue;
  }
  try {
    const invocation = tool.build(request.args);
    const result = await invocation.execute({ abortSignal: new AbortController().signal });
    calls.push({
      name: request.name,
      found: true,
      llmContent: result.llmContent,
      returnDisplay: result.returnDisplay,
      error: result.error ?? null,
    });
  } catch (e) {
    calls.push({ name: request.name, found: true, buildError: String(e && e.message ? e.message : e) });
  }
}
fs.writeFileSync(job.report, JSON.stringify({ declarations: discovered, calls }));
process.exit(0);
