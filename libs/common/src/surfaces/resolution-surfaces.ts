/**
 * The surfaces an answer can come through: the one list every surface's schema, the receipts, the
 * webhook messages and the stored `resolved_by` derive from (the audit trail's CHECK constraint is
 * compared with it by a test, as migrations are frozen). Here, below every lib that names a surface.
 */
export const RESOLUTION_SURFACES = ['rest', 'web', 'mcp', 'mcp_app', 'graphql', 'command', 'slack', 'telegram'] as const;

/** Where a resolution came from: recorded on the winner's rows, in the audit trail and in metrics. */
export type ResolutionSurface = (typeof RESOLUTION_SURFACES)[number];

/** The audit trail records the escalation timer's own REMINDED/ESCALATED steps too: not an answer, so not a resolution surface. */
export const AUDIT_SURFACES = [...RESOLUTION_SURFACES, 'escalation'] as const;

export type AuditSurface = (typeof AUDIT_SURFACES)[number];

/** Whether a stored value names a resolution surface. */
export function isResolutionSurface(value: unknown): value is ResolutionSurface {
  return (RESOLUTION_SURFACES as readonly unknown[]).includes(value);
}
