import { BadRequestException } from '@nestjs/common';
import { IsOptional, IsString, IsUrl, MaxLength } from 'class-validator';
import { createValidationPipe } from './validation.pipe.js';

class SessionBody {
  @IsOptional()
  @IsUrl({ require_protocol: true })
  resume_url?: string;

  @IsOptional()
  @IsString()
  @MaxLength(10)
  note?: string;
}

async function refusal(body: unknown): Promise<string | undefined> {
  try {
    await createValidationPipe().transform(body, { type: 'body', metatype: SessionBody });
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestException);
    return ((error as BadRequestException).getResponse() as { message: string }).message;
  }
}

describe('createValidationPipe', () => {
  it('accepts an optional field left out, or given a value of its type', async () => {
    expect(await refusal({})).toBeUndefined();
    expect(await refusal({ resume_url: 'https://example.com/resume', note: 'hi' })).toBeUndefined();
  });

  it('refuses an optional field sent as null, naming it (class-validator alone would let null through to the service)', async () => {
    expect(await refusal({ resume_url: null })).toBe('resume_url must not be null (leave it out instead)');
    expect(await refusal({ resume_url: null, note: null })).toBe('resume_url must not be null (leave it out instead); note must not be null (leave it out instead)');
  });

  it('still names every other refusal by its field', async () => {
    expect(await refusal({ note: 'far too long a note', extra: 1 })).toBe('extra is not an allowed field; note must be shorter than or equal to 10 characters');
  });
});
