// Drives the real @google/gemini-cli-core the way the CLI does at start-up, with no model call:
// discovery through `tools.discoveryCommand`, then calls through each tool's own
// build(args).execute(). Reads a JSON job on stdin and writes one JSON report to the job's
// `report` file (the core logs to stdout itself).
//
// Job: {"core": DIR_WITH_NODE_MODULES, "report": FILE, "discoveryCommand": "...",
//       "callCommand": "...", "calls": [{"name": "discovered_tool_x", "args": {...}}],
//       "settingsFile": ".gemini/settings.json" (optional), "interactive": false (optional),
//       "validateOnly": true (optional: build(args) only, reporting {valid, buildError})}
// With a settings file, its policy settings (tools.allowed, tools.exclude, ...) become the policy
// engine's rules through the core's own createPolicyEngineConfig, as the CLI's start-up does;
// with "interactive": false, as `gemini -p` does, whatever would ask the user is denied and
// left out of what the model sees.
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
const { Config, AuthType, ApprovalMode, createPolicyEngineConfig } = core;

const interactive = job.interactive ?? true;
let policy = {};
if (job.settingsFile) {
  const settings = JSON.parse(fs.readFileSync(job.settingsFile, 'utf8'));
  policy = {
    interactive,
    approvalMode: ApprovalMode.DEFAULT,
    allowedTools: settings.tools?.allowed,
    policyEngineConfig: await createPolicyEngineConfig(settings, ApprovalMode.DEFAULT, undefined, interactive),
  };
}

const config = new Config({
  sessionId: 'cogtools-e2e',
  targetDir: process.cwd(),
  cwd: process.cwd(),
  debugMode: false,
  model: 'gemini-2.5-flash',
  toolDiscoveryCommand: job.discoveryCommand,
  toolCallCommand: job.callCommand,
  ...policy,
  ...(job.config || {}),
});
await config.refreshAuth(AuthType.USE_GEMINI, 'any-dummy-key');
await config.initialize();
const registry = config.getToolRegistry();
const declarations = registry.getFunctionDeclarations();
const discovered = declarations.filter((d) => d.name.startsWith('discovered_tool_'));
// Every tool discovery registered, offered to the model or not.
const known = [...registry.allKnownTools.keys()].filter((name) => name.startsWith('discovered_tool_')).sort();

const calls = [];
for (const request of job.calls || []) {
  const tool = registry.getTool(request.name);
  if (!tool) {
    calls.push({ name: request.name, found: false });
    continue;
  }
  if (job.validateOnly) {
    // Only the CLI's own check of the arguments (ajv, against the discovered schema): build()
    // throws what the model would be told, and nothing runs.
    try {
      tool.build(request.args);
      calls.push({ name: request.name, found: true, valid: true });
    } catch (e) {
      calls.push({ name: request.name, found: true, valid: false, buildError: String(e && e.message ? e.message : e) });
    }
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
fs.writeFileSync(job.report, JSON.stringify({ declarations: discovered, known, calls }));
process.exit(0);
