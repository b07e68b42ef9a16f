import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pagination (docs/api/rest.md, "Pagination"): the task and workspace lists are keyset pages in (created_at, id) order, so
 * a page is an index walk that stops at its LIMIT instead of a sort of every row. (A workspace
 * filter already walks tasks_workspace_id_idx.)
 */
export class ListKeysetIndexes1765500000000 implements MigrationInterface {
  name = 'ListKeysetIndexes1765500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX tasks_keyset_idx ON tasks (created_at, id)`);
    await queryRunner.query(`CREATE INDEX workspaces_keyset_idx ON workspaces (created_at, id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX workspaces_keyset_idx`);
    await queryRunner.query(`DROP INDEX tasks_keyset_idx`);
  }
}
