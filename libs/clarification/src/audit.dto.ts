import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString } from 'class-validator';

/** The query of GET /api/v1/clarification/:id/audit (its bounds belong to AuditService). */
export class AuditQueryDto {
  @IsOptional()
  @IsString()
  cursor?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  limit?: number;
}
