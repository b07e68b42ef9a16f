import { BadRequestException, ValidationPipe } from '@nestjs/common';
import { getMetadataStorage, IS_OPTIONAL, ValidationError, ValidationTypes, type ValidatorOptions } from 'class-validator';

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

/** Each DTO class's `@IsOptional()` fields, read from class-validator's metadata once (it is fixed once the classes are loaded). */
const optionalFields = new WeakMap<object, string[]>();

function optionalFieldsOf(dto: object): string[] {
  let fields = optionalFields.get(dto);
  if (fields === undefined) {
    const rules = getMetadataStorage().getTargetValidationMetadatas(dto as new () => object, '', true, false);
    fields = [...new Set(rules.filter((rule) => rule.type === ValidationTypes.CONDITIONAL_VALIDATION && rule.name === IS_OPTIONAL).map((rule) => rule.propertyName))];
    optionalFields.set(dto, fields);
  }
  return fields;
}

/**
 * The fields of `object` that are `@IsOptional()` and sent as `null`. class-validator skips every
 * rule of an optional field that is null as if it were absent, so the service would get a null its
 * types (and the document) do not allow: optional here means "may be left out", never "may be null".
 */
function nullOptionals(object: object): ValidationError[] {
  return optionalFieldsOf(object.constructor)
    .filter((property) => (object as Record<string, unknown>)[property] === null)
    .map((property) => Object.assign(new ValidationError(), { property, value: null, constraints: { isNotNull: `${property} must not be null (leave it out instead)` }, children: [] }));
}

/** Nest's ValidationPipe, refusing null for optional fields too (see nullOptionals). */
class StrictValidationPipe extends ValidationPipe {
  protected override async validate(object: object, validatorOptions?: ValidatorOptions): Promise<ValidationError[]> {
    return [...(await super.validate(object, validatorOptions)), ...nullOptionals(object)];
  }
}

/** Strict DTO validation: unknown fields are refused, null is not "left out", and every message starts with the field's path. */
export function createValidationPipe(): ValidationPipe {
  return new StrictValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    forbidUnknownValues: true,
    exceptionFactory: (errors) => new BadRequestException(describeErrors(errors).join('; ')),
  });
}
