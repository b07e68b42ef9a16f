/** The action a bundle's answer authorizes: what the asking agent will do once it is answered. */
export interface Action {
  name: string;
  arguments: Record<string, unknown>;
}

/** A bundle's action as every listing and read reports it (both null when it was asked without one). */
export interface ActionView {
  action: Action | null;
  action_digest: string | null;
}
