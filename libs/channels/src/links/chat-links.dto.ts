import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, Length } from 'class-validator';
import { CHAT_PLATFORM_NAMES, type ChatPlatformName } from '../chat.types.js';

export class CreateChatLinkDto {
  @ApiProperty({ enum: CHAT_PLATFORM_NAMES })
  @IsIn(CHAT_PLATFORM_NAMES)
  platform!: ChatPlatformName;

  @ApiProperty({ description: 'The Slack user id (U…) or the Telegram user id', maxLength: 64 })
  @IsString()
  @Length(1, 64)
  account_id!: string;
}

export class ConfirmChatLinkDto {
  @ApiProperty({ description: 'The code of the link asked for in chat (from its URL)', maxLength: 64 })
  @IsString()
  @Length(16, 64)
  code!: string;
}
