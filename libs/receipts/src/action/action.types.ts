import { z } from 'zod';

/** At most this many characters (code points) in an action's name. */
export const ACTION_NAME_MAX = 200;
/** At most this many bytes in an action's arguments, as UTF-8 canonical JSON. */
export const ACTION_ARGUMENTS_MAX_BYTES = 64 * 1024;

/**
 * The action a bundle's answer authorizes: what the asking agent will do once it is answered. Declared
 * once for every surface that shows or takes one (the OpenAPI document publishes it as `ActionDoc`).
 */
export const actionWire = z
  .object({
    name: z.string().max(ACTION_NAME_MAX).meta({ example: 'deploy' }),
    arguments: z
      .record(z.string(), z.unknown())
      // `additionalProperties: true`: a free-form JSON object, said so (a bare `{}` schema says nothing).
      .meta({ additionalProperties: true, example: { env: 'prod' } })
      .describe(`Any JSON object of at most ${ACTION_ARGUMENTS_MAX_BYTES / 1024} KB`),
  })
  .describe('The action an answer authorizes: what the asking agent will do once answered.');

export type Action = z.infer<typeof actionWire>;

/** Where the OpenAPI document publishes actionWire, for the request bodies that take an action. */
export const ACTION_DOC_REF = { $ref: '#/components/schemas/ActionDoc' } as const;

/** A bundle's action as every listing and read reports it (both null when it was asked without one). */
export interface ActionView {
  action: Action | null;
  action_digest: string | null;
}
