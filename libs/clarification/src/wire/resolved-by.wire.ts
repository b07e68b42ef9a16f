import { z } from 'zod';
import type { Caller } from '#authorization';
import { RESOLUTION_SURFACES } from '#common';

/**
 * The caller kinds a bundle's answerer can be, as every surface names them (parseResolvedBy hands a
 * Caller['kind'] to ResolvedBy, so a kind added to Caller and not here does not compile).
 */
export const CALLER_KINDS = ['user', 'admin', 'agent', 'synthetic'] as const satisfies readonly Caller['kind'][];

/** Who answered a resolved bundle, as every surface reports it. */
export const resolvedByWire = z
  .object({
    kind: z.enum(CALLER_KINDS).describe('user, admin, agent (a session agent token) or synthetic (authentication disabled)'),
    user_id: z.string().nullable(),
    name: z.string().nullable().describe("The user's name when the answer won; null for the other kinds"),
    surface: z.enum(RESOLUTION_SURFACES).describe(`The surface the answer came through: ${RESOLUTION_SURFACES.join(', ')} (web: the inbox page)`),
    at: z.string().meta({ format: 'date-time' }).describe('RFC 3339 UTC: when the winning claim was made'),
  })
  .describe('Who answered a bundle: the caller, the surface it came through, and when.');

export type ResolvedBy = z.infer<typeof resolvedByWire>;
