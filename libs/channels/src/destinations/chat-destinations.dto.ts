import { ApiProperty } from '@nestjs/swagger';
import { IsString, Length } from 'class-validator';

export class SetChatDestinationDto {
  @ApiProperty({ description: 'A Slack channel id (C…) or a Telegram chat id', maxLength: 64 })
  @IsString()
  @Length(1, 64)
  destination!: string;
}
