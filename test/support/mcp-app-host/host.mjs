// The test's MCP Apps host, in the browser: ext-apps' own AppBridge per app instance, each in a
// sandboxed frame (scripts only, no same-origin: an opaque origin, as AI clients frame apps), its
// tool calls handed to the test (window.parleyCallTool, a Playwright binding onto a real MCP client).
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

/** Shows the app page `html` as instance `id`, handing it `toolResult` once it has initialized. */
async function showApp(id, html, toolResult) {
  const frame = document.createElement('iframe');
  frame.id = `app-${id}`;
  frame.title = `question app ${id}`;
  frame.setAttribute('sandbox', 'allow-scripts allow-forms');
  frame.style.width = '900px';
  frame.style.height = '700px';
  document.body.append(frame);
  const bridge = new AppBridge(null, { name: 'parley-test-host', version: '1.0.0' }, { serverTools: {} });
  bridge.oncalltool = (params) => window.parleyCallTool(id, params.name, params.arguments ?? {});
  bridge.oninitialized = () => void bridge.sendToolResult(toolResult);
  // Listening before the page loads: the app's initialize is its first message.
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  frame.srcdoc = html;
}

window.showApp = showApp;
