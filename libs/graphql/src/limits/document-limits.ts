import { GraphQLError, Lexer, Source, TokenKind } from 'graphql';
import mercurius from 'mercurius';
import { ErrorCode } from '#common';

export interface SourceLimits {
  maxTokens: number;
  /** The query depth limit (selection sets); documents are refused lexically well beyond it. */
  maxDepth: number;
}

const OPENERS = new Set<TokenKind>([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const CLOSERS = new Set<TokenKind>([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

/** A refusal of the document itself: 400, `extensions.code` VALIDATION_ERROR, before anything runs. */
export function documentRefusal(message: string): Error {
  return new mercurius.ErrorWithProps(message, { code: ErrorCode.ValidationError }, 400);
}

/**
 * Refuses, before it is parsed, a document graphql-js's recursive parser could choke on: more than
 * `maxTokens` tokens, or braces, brackets and parentheses nested deeper than twice the depth limit
 * (a document that deep cannot pass the depth rule; unchecked, it overflows the call stack).
 * The lexer is iterative, stops at the first excess, and reports syntax errors to the parser.
 */
export function checkSourceLimits(query: string, limits: SourceLimits): void {
  const maxNesting = 2 * limits.maxDepth;
  const lexer = new Lexer(new Source(query));
  let tokens = 0;
  let nesting = 0;
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
      tokens += 1;
      if (tokens > limits.maxTokens) {
        throw documentRefusal(`query is too large: more than ${limits.maxTokens} tokens (GRAPHQL_MAX_TOKENS)`);
      }
      if (OPENERS.has(token.kind)) nesting += 1;
      else if (CLOSERS.has(token.kind)) nesting -= 1;
      if (nesting > maxNesting) {
        throw documentRefusal(
          `query is too deep: it nests more than ${maxNesting} levels of braces, brackets or parentheses, ` +
            `far beyond the query depth limit of ${limits.maxDepth}`,
        );
      }
    }
  } catch (error) {
    // A syntax error is the parser's to report, with its location.
    if (error instanceof GraphQLError) return;
    throw error;
  }
}
