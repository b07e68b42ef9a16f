import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The audit trail's surfaces gain `mcp_app`: an answer given in the question's MCP App (docs/api/mcp.md, "The question as an MCP App"). */
export class McpAppSurface1765920000000 implements MigrationInterface {
  name = 'McpAppSurface1765920000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE clarification_audit DROP CONSTRAINT clarification_audit_surface_check`);
    await queryRunner.query(`ALTER TABLE clarification_audit ADD CONSTRAINT clarification_audit_surface_check
      CHECK (surface IN ('rest', 'web', 'mcp', 'mcp_app', 'graphql', 'command', 'escalation'))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM clarification_audit WHERE surface = 'mcp_app'`);
    await queryRunner.query(`ALTER TABLE clarification_audit DROP CONSTRAINT clarification_audit_surface_check`);
    await queryRunner.query(`ALTER TABLE clarification_audit ADD CONSTRAINT clarification_audit_surface_check
      CHECK (surface IN ('rest', 'web', 'mcp', 'graphql', 'command', 'escalation'))`);
  }
}
