/** What Parley reads of Slack's interactivity payloads (https://api.slack.com/reference/interaction-payloads). */
export interface SlackBlockActions {
  type: 'block_actions';
  trigger_id: string;
  user: { id: string };
  channel?: { id: string };
  container?: { channel_id?: string };
  actions: { action_id: string; value?: string; action_ts?: string }[];
  /** The message's inputs as this person left them (a multi-select card's ticks). */
  state?: { values: Record<string, Record<string, { selected_options?: { value?: unknown }[] | null }>> };
}

export interface SlackViewSubmission {
  type: 'view_submission';
  trigger_id?: string;
  user: { id: string };
  view: {
    id: string;
    callback_id?: string;
    private_metadata?: string;
    state: { values: Record<string, Record<string, { selected_option?: { value?: unknown } | null; selected_options?: { value?: unknown }[] | null; value?: unknown }>> };
  };
}

export type SlackInteraction = SlackBlockActions | SlackViewSubmission | { type: 'other' };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** The `payload=` of an interactivity post, as far as Parley acts on it (anything else is `other`). */
export function parseInteraction(json: string): SlackInteraction {
  const parsed: unknown = JSON.parse(json);
  if (!isObject(parsed) || !isObject(parsed.user) || typeof parsed.user.id !== 'string') return { type: 'other' };
  if (parsed.type === 'block_actions' && typeof parsed.trigger_id === 'string' && Array.isArray(parsed.actions)) return parsed as unknown as SlackBlockActions;
  if (parsed.type === 'view_submission' && isObject(parsed.view) && typeof parsed.view.id === 'string' && isObject(parsed.view.state)) {
    return parsed as unknown as SlackViewSubmission;
  }
  return { type: 'other' };
}
