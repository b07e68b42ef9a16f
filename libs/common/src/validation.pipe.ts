import { BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';

function describeErrors(errors: ValidationError[], parentPath = ''): string[] {
  return errors.flatMap((error) => {
    const path = parentPath ? `${parentPath}.${error.property}` : error.property;
    const own = Object.entries(error.constraints ?? {}).map(([constraint, message]) => {
      if (constraint === 'whitelistValidation') return `${path} is not an allowed field`;
      return message.startsWith(`${error.property} `) ? `${path}${message.slice(error.property.length)}` : `${path}: ${message}`;
    });
    return [...own, ...describeErrors(error.children ?? [], path)];
  });
}

/** Strict DTO validation: unknown fields are refused and every message starts with the field's path. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    forbidUnknownValues: true,
    exceptionFactory: (errors) => new BadRequestException(describeErrors(errors).join('; ')),
  });
}
