import { App } from '@modelcontextprotocol/ext-apps';
import { render } from 'preact';
import { bundlesOfResult, QuestionApp } from './question-app.view.js';
import '../styles.css';

/**
 * The question's MCP App (ui://parley/question): ext-apps' App over its postMessage transport to the
 * host. Each tool result the host hands over (show_question's bundle, or the pending list's page) is
 * rendered with the inbox's bundle form; the handler is set before connecting, so none is missed.
 */
const root = document.getElementById('app') as HTMLElement;
const app = new App({ name: 'Parley question', version: '1.0.0' });
app.ontoolresult = (result) => render(<QuestionApp app={app} bundles={bundlesOfResult(result.structuredContent as Record<string, unknown> | undefined)} />, root);
render(<QuestionApp app={app} bundles={[]} />, root);
void app.connect();
