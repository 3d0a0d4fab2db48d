// End-to-end check of `canopy mcp` with a client nobody on this project
// wrote: the official TypeScript SDK (@modelcontextprotocol/sdk).
//
// Run by mcp/e2e_test.go:
//   node client.mjs stdio CANOPY_BIN SITE_URL
//   node client.mjs http  MCP_URL    SITE_URL   (token in $CANOPY_TOKEN)
// $CANOPY_NODE_MODULES is the node_modules folder holding the SDK.
// Prints one line per check ("ok …" or "FAIL …") and exits 1 on a failure.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const mods = process.env.CANOPY_NODE_MODULES;
const sdk = (p) => import(path.join(mods, '@modelcontextprotocol/sdk/dist/esm', p));
const { Client } = await sdk('client/index.js');
const { StdioClientTransport } = await sdk('client/stdio.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');

const [mode, where, site] = process.argv.slice(2);
let failed = false;
function check(name, ok, detail = '') {
  console.log((ok ? 'ok ' : 'FAIL ') + name + (ok || !detail ? '' : ': ' + detail));
  if (!ok) failed = true;
}
const text = (res) => (res.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('');

async function connect(transport) {
  const client = new Client({ name: 'canopy-e2e', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

// The common session: tools/list, navigate, snapshot, click → diff, bad arguments.
async function session(client) {
  const info = client.getServerVersion();
  check('initialize names the server', info && info.name === 'canopy', JSON.stringify(info));
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  check('tools/list has the 22 tools of the act tier', names.length === 22 && names.includes('navigate') && names.includes('batch') && names.includes('shell') && !names.includes('evaluate'), names.join(','));
  check('tools have annotations', tools.every((t) => t.annotations && typeof t.annotations.readOnlyHint === 'boolean'));

  const nav = await client.callTool({ name: 'navigate', arguments: { url: site + '/app-login.html' } });
  check('navigate returns the page tree', !nav.isError && text(nav).includes('textbox "Email"'), text(nav));
  check('replies carry no structuredContent', nav.structuredContent === undefined);

  const snap = await client.callTool({ name: 'snapshot', arguments: {} });
  const ref = /checkbox "Remember me" (e\d+)/.exec(text(snap));
  check('snapshot lists refs', !snap.isError && ref !== null, text(snap));

  const click = await client.callTool({ name: 'click', arguments: { target: ref ? ref[1] : 'e0' } });
  check('click returns a diff', !click.isError && /^~ checkbox "Remember me" e\d+: not checked → checked$/m.test(text(click)), text(click));

  const noop = await client.callTool({ name: 'check', arguments: { target: 'role:checkbox name:"Remember me"' } });
  check('a no-op says no change', text(noop) === 'no change\n', text(noop));

  const bad = await client.callTool({ name: 'click', arguments: { target: 'e1', count: 'twice' } });
  check('bad arguments are an isError result', bad.isError === true && text(bad).includes('"count" must be an integer'), text(bad));

  const badSel = await client.callTool({ name: 'click', arguments: { target: 'role:button name:"Sign in' } });
  check('a bad selector names the column', badSel.isError === true && text(badSel).includes('column'), text(badSel));

  let unknown = null;
  try {
    await client.callTool({ name: 'no_such_tool', arguments: {} });
  } catch (e) {
    unknown = e;
  }
  check('an unknown tool is a JSON-RPC error', unknown !== null);
  const after = await client.callTool({ name: 'snapshot', arguments: {} });
  check('the server goes on after bad calls', !after.isError && text(after).includes('Sign in'), text(after));

  // The shell, in the same session: its folder is kept between calls.
  const cd = await client.callTool({ name: 'shell', arguments: { command: 'cd form:Login; pwd; ls' } });
  check('shell: cd and ls', !cd.isError && /^\/tab1\/form:Login\n/.test(text(cd)) && text(cd).includes('textbox:Email\n'), text(cd));
  const typed = await client.callTool({ name: 'shell', arguments: { command: 'type textbox:Email "ada@example.com"; grep -r Email | wc -l' } });
  check('shell: an action answers with its diff', !typed.isError && text(typed).includes('~ textbox "Email"') && /\n1\n$/.test(text(typed)), text(typed));
  const stop = await client.callTool({ name: 'shell', arguments: { command: 'pwd\nls no-such-thing\npwd' } });
  check('shell: the first error stops the run and names its line', stop.isError === true && text(stop).startsWith('line 2: ls no-such-thing') && text(stop).split('\n').filter((l) => l === '/tab1/form:Login').length === 1, text(stop));
}

// chromiumChildren finds the Chromium processes canopy started.
function chromiumChildren(parent) {
  const out = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const m = /^\d+ \((.*)\) \S+ (\d+)/.exec(stat);
    if (m && Number(m[2]) === parent && /chrom/.test(m[1])) out.push(Number(pid));
  }
  return out;
}

async function stdio() {
  const transport = new StdioClientTransport({ command: where, args: ['mcp'], stderr: 'pipe' });
  const client = await connect(transport);
  await session(client);

  // Kill Chromium mid-session: the next call starts a new one and says so.
  const victims = chromiumChildren(transport.pid);
  check('canopy launched Chromium', victims.length > 0, 'no chromium child of ' + transport.pid);
  for (const pid of victims) process.kill(pid, 'SIGKILL');
  const res = await client.callTool({ name: 'navigate', arguments: { url: site + '/app-login.html' } });
  check('the call after a crash recovers', !res.isError && text(res).startsWith('note: ') && text(res).includes('page state was lost') && text(res).includes('textbox "Email"'), text(res));
  await client.close();
}

async function http() {
  const token = process.env.CANOPY_TOKEN;
  const url = new URL(where);
  const client = await connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: 'Bearer ' + token } } }));
  await session(client);
  await client.close();

  let err = null;
  try {
    await connect(new StreamableHTTPClientTransport(url));
  } catch (e) {
    err = e;
  }
  check('no token: the SDK client is refused', err !== null && /401/.test(String(err.code ?? '') + String(err.message)), String(err));

  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '0' } } };
  const post = (headers) => fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(init) });
  let r = await post({});
  check('unauthorized call: 401 with a one-line reason', r.status === 401 && (await r.text()).trim().split('\n').length === 1);
  r = await post({ Authorization: 'Bearer wrong' });
  check('wrong token: 401', r.status === 401);
  r = await post({ Authorization: 'Bearer ' + token, Origin: 'https://evil.example' });
  const body = await r.text();
  check('foreign Origin: 403', r.status === 403 && body.includes('evil.example'), r.status + ' ' + body);
}

try {
  if (mode === 'stdio') await stdio();
  else await http();
} catch (e) {
  check('no exception', false, e && e.stack ? e.stack : String(e));
}
process.exit(failed ? 1 : 0);
