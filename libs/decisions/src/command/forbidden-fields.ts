/**
 * Transport, terminal, credential and connector-routing names a command must never carry, anywhere
 * in the request: a connector sends semantic commands only — never pane ids, terminal ids, raw keys,
 * cursor movements or calibration steps (docs/api/commands.md). Matched case-insensitively, with `-`, `.` and `_` treated alike.
 */
const FORBIDDEN_FIELD_NAMES = [
  'pane_id', 'pane_ids', 'terminal', 'terminal_id', 'terminal_ids', 'tab_id', 'window_id', 'tty', 'pty',
  'pid', 'process_id', 'tmux_session', 'tmux_window', 'tmux_pane', 'screen_session',
  'keys', 'key', 'raw_keys', 'keystrokes', 'key_sequence', 'send_keys', 'cursor', 'cursor_movement', 'cursor_movements',
  'calibration', 'calibration_steps', 'escape_sequence', 'control_sequence', 'raw_input', 'raw_payload', 'stdin',
  'backend_target', 'turn_target_value', 'private_binding', 'agent_token', 'session_token',
  'token', 'auth_token', 'bearer_token', 'authorization', 'cookie', 'password', 'secret', 'api_key', 'credentials',
  'connector_id', 'chat_id', 'message_id', 'thread_id', 'topic_id', 'delivery_id', 'route_id',
];

const compact = (name: string) => name.toLowerCase().replace(/[-._]/g, '');
const FORBIDDEN = new Set(FORBIDDEN_FIELD_NAMES.map(compact));

/** JSON paths (`$.params.pane_id`) of every forbidden key in the value, depth first. */
export function forbiddenFieldPaths(value: unknown, path = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => forbiddenFieldPaths(item, `${path}[${index}]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => [
    ...(FORBIDDEN.has(compact(key)) ? [`${path}.${key}`] : []),
    ...forbiddenFieldPaths(item, `${path}.${key}`),
  ]);
}
