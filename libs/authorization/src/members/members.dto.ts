import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import { INPUT_LIMITS } from '#common';

export class AddMemberDto {
  @ApiProperty({ maxLength: INPUT_LIMITS.id, description: 'An existing user (users:create)' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(INPUT_LIMITS.id)
  user_id!: string;
}

export class MemberDoc {
  @ApiProperty() workspace_id!: string;
  @ApiProperty() user_id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ format: 'date-time' }) added_at!: string;
}

export class AddedMemberDoc extends MemberDoc {
  @ApiProperty({ description: 'false when the user already was a member' }) added!: boolean;
}

export class MemberListDoc {
  @ApiProperty() workspace_id!: string;
  @ApiProperty({ type: [MemberDoc] }) members!: MemberDoc[];
}

export class RemovedMemberDoc {
  @ApiProperty() workspace_id!: string;
  @ApiProperty() user_id!: string;
  @ApiProperty({ description: 'false when the user was no member' }) removed!: boolean;
}
