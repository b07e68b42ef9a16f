import { GraphQLError, type ValidationRule } from 'graphql';

/** A coarse cost limit: a document may select at most `maxFields` fields in total. */
export function maxFieldsRule(maxFields: number): ValidationRule {
  return (context) => {
    let fields = 0;
    return {
      Field() {
        fields += 1;
        if (fields === maxFields + 1) {
          context.reportError(new GraphQLError(`query is too expensive: it selects more than ${maxFields} fields`));
        }
      },
    };
  };
}
