import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString } from 'class-validator';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { LIST_PAGE } from './page-request.js';

/**
 * The query of a REST list under the one page rule (tasks, workspaces, audit trail, delivery log):
 * the DTO checks the types only; the bounds (LIST_PAGE) belong to the services, the same on every surface.
 */
export class PageQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: LIST_PAGE.maxLimit,
    default: LIST_PAGE.defaultLimit,
    description: `Page size; 0, negative, fractional or above ${LIST_PAGE.maxLimit} is a 400 naming \`limit\` (never clamped)`,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  limit?: number;

  @ApiPropertyOptional({ description: 'The next_cursor of the previous page (opaque; one the server did not make is a 400 naming `cursor`)' })
  @IsOptional()
  @IsString()
  cursor?: string;
}
