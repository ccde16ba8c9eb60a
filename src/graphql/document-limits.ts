/**
 * The limits of a GraphQL document sent to POST /graphql (issue 29): its length in characters
 * before it is parsed (and before yoga caches anything by its text), lexical tokens while it is
 * parsed (comments included, issue 45: a comment is skipped between tokens, so it would otherwise
 * cost nothing), then selection depth, aliases and directives while it is validated, so an
 * oversized document is refused with one clear error before any resolver runs. The counting is
 * GraphQL Armor's (its rules and token-counting parser) with graphql-js' count of comments; the
 * numbers come from config (GRAPHQL_MAX_*), and every persisted operation fits them
 * (test/graphql/cost-limits.test.ts).
 *
 * The fifth limit, cost, needs the variables (a page size is often one), so it is checked when the
 * operation is about to execute, by src/graphql/query-cost.ts, and refused in the same shape
 * (documentTooComplex below).
 *
 * It must never run a resolver or look at variables: it sees the document only (yoga caches the
 * outcome of parsing and validating one document text).
 */
import { maxAliasesRule, type MaxAliasesOptions } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import { MaxTokensParserWLexer } from '@escape.tech/graphql-armor-max-tokens';
import type { Plugin } from 'graphql-yoga';
import { GraphQLError } from 'graphql';
import type {
  DocumentNode,
  ParseOptions,
  Source,
  ValidationContext,
  ValidationRule,
} from 'graphql';
import type { Config } from '../base/config.ts';

/** The limits of one document, each counted over the whole document (fragments included). */
export interface DocumentLimits {
  /** deepest selection (a fragment spread adds a level); introspection's `__schema` is free */
  depth: number;
  /** aliased fields (`__typename` is free) */
  aliases: number;
  /** lexical tokens of the document text (names, punctuation, values) */
  tokens: number;
  /** the most an operation may cost with its variables (src/graphql/query-cost.ts) */
  cost: number;
  /** directives used (`@include`, `@skip`, ...) */
  directives: number;
  /** characters of the document text (a comment or a string is one token however long) */
  chars: number;
}

/** The limits configured by GRAPHQL_MAX_DEPTH, _ALIASES, _TOKENS, _COST, _DIRECTIVES and _DOCUMENT_CHARS. */
export function documentLimitsOf(config: Config): DocumentLimits {
  return {
    depth: config.GRAPHQL_MAX_DEPTH,
    aliases: config.GRAPHQL_MAX_ALIASES,
    tokens: config.GRAPHQL_MAX_TOKENS,
    cost: config.GRAPHQL_MAX_COST,
    directives: config.GRAPHQL_MAX_DIRECTIVES,
    chars: config.GRAPHQL_MAX_DOCUMENT_CHARS,
  };
}

/**
 * The refusal of a document over `limit`: BAD_REQUEST with `detail.code` `document_too_complex`,
 * the limit's name and any `found` figures; `said` tells the number and what was found. Yoga
 * answers it as any parse or validation error (GraphQL over HTTP): 400 to a client that accepts
 * application/graphql-response+json, 200 with only `errors` to one that accepts application/json
 * (`http.spec`, which yoga strips from the answer, asks the same of an error raised later).
 */
export function documentTooComplex(
  limit: keyof DocumentLimits,
  said: string,
  found: Record<string, number> = {},
): GraphQLError {
  return new GraphQLError(`Document too complex: ${said}`, {
    extensions: {
      code: 'BAD_REQUEST',
      detail: { code: 'document_too_complex', limit, ...found },
      http: { spec: true, status: 400 },
    },
  });
}

/** The refusal of Armor's finding: its message says the number and what it found. */
function tooComplex(limit: keyof DocumentLimits, armorError: GraphQLError): GraphQLError {
  return documentTooComplex(limit, armorError.message.replace(/^Syntax Error: /, ''));
}

/** Armor's callbacks for `limit`: its error is reported (as a validation error), never thrown. */
function refusal(limit: keyof DocumentLimits): Pick<MaxAliasesOptions, 'onReject'> & {
  propagateOnRejection: false;
} {
  return {
    propagateOnRejection: false,
    onReject: [
      (context: ValidationContext | null, error: GraphQLError) =>
        context?.reportError(tooComplex(limit, error)),
    ],
  };
}

/**
 * The validation rules of the document's limits: depth, aliases and directives (tokens are counted
 * by parseWithinLimits, cost with the variables by src/graphql/query-cost.ts).
 */
export function documentLimitRules(limits: DocumentLimits): ValidationRule[] {
  return [
    maxDepthRule({ n: limits.depth, ...refusal('depth') }),
    maxAliasesRule({ n: limits.aliases, ...refusal('aliases') }),
    maxDirectivesRule({ n: limits.directives, ...refusal('directives') }),
  ] as ValidationRule[];
}

/** The refusal of a document text longer than `limits.chars`, or null when it fits. */
export function documentTooLong(
  text: string,
  limits: Pick<DocumentLimits, 'chars'>,
): GraphQLError | null {
  if (text.length <= limits.chars) return null;
  return documentTooComplex('chars', `Document longer than ${limits.chars} characters.`, {
    chars: text.length,
    max: limits.chars,
  });
}

/**
 * Armor's token-counting parser, counting comments too: the lexer skips the comments between two
 * tokens, so Armor's count never sees them; graphql-js counts them once `maxComments` is set.
 */
class DocumentParser extends MaxTokensParserWLexer {
  private readonly maxTokens: number;

  constructor(source: string | Source, maxTokens: number, options?: ParseOptions) {
    super(source, {
      ...options,
      // turns graphql-js' count of comments on; the limit is checked below, with the tokens
      maxComments: Number.MAX_SAFE_INTEGER,
      n: maxTokens,
      propagateOnRejection: false,
      onReject: [
        (_context, error) => {
          throw tooComplex('tokens', error);
        },
      ],
    });
    this.maxTokens = maxTokens;
  }

  override advanceLexer(): void {
    super.advanceLexer();
    if (this.tokenCount + (this._lexer._commentCount ?? 0) > this.maxTokens)
      throw documentTooComplex('tokens', `Token limit of ${this.maxTokens} exceeded.`);
  }
}

/**
 * Parses a document, refusing it when its text is longer than `limits.chars`, and stopping with
 * the token limit's error as soon as it has read more tokens (comments included) than `limits.tokens`.
 */
export function parseWithinLimits(
  source: string | Source,
  limits: Pick<DocumentLimits, 'tokens' | 'chars'>,
  options?: ParseOptions,
): DocumentNode {
  const tooLong = documentTooLong(typeof source === 'string' ? source : source.body, limits);
  if (tooLong) throw tooLong;
  return new DocumentParser(source, limits.tokens, options).parseDocument();
}

/**
 * The yoga plugin: a document text over the character limit is refused before yoga parses (or
 * caches) it; documents are parsed within the token limit and validated with the others.
 */
export function useDocumentLimits(limits: DocumentLimits): Plugin {
  const rules = documentLimitRules(limits);
  return {
    onParams: ({ params, setResult }) => {
      const tooLong = typeof params.query === 'string' && documentTooLong(params.query, limits);
      if (tooLong) setResult({ errors: [tooLong] });
    },
    onParse: ({ setParseFn }) => {
      setParseFn((source: string | Source, options?: ParseOptions) =>
        parseWithinLimits(source, limits, options),
      );
    },
    onValidate: ({ addValidationRule }) => {
      for (const rule of rules) addValidationRule(rule);
    },
  };
}
