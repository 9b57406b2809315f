import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { createComplexityRule, type FieldComplexityValue } from '@pothos/plugin-complexity';
import { getNamedType, getNullableType, GraphQLError, isLeafType, isListType, validate, visit, type ASTNode, type DocumentNode, type GraphQLField } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE, unstorableTextPaths } from '../lib/text.js';

/** How much one GraphQL request may ask for (GRAPHQL_MAX_* settings). */
export interface GraphQLLimits {
  maxCost: number;
  maxDepth: number;
  maxAliases: number;
  maxTokens: number;
}

/** Page size bounds of every connection (`first`/`last`), and the size when neither is given. */
export const MAX_PAGE = 100;
export const DEFAULT_PAGE = 20;

/** Set during validation: what the request costs, for the rate limiter. */
export interface QueryCostContext {
  queryCost?: number;
}

interface CostContext {
  problems: string[];
}

const PAGE_ARGS = ['first', 'last'] as const;

/**
 * The cost of a field, as Shopify and GitHub count it: a scalar costs nothing, an object 1, and
 * a connection 1 plus its page size (`first`/`last`, else the default page) times what each of
 * its nodes costs. `edges`/`nodes` of a connection do not multiply again; other lists of objects
 * count 10 items (ids given to `nodes(ids:)` count as many as there are).
 */
export function fieldCost(args: Record<string, unknown>, ctx: object, field: GraphQLField<unknown, unknown>): FieldComplexityValue {
  const named = getNamedType(field.type);
  for (const name of PAGE_ARGS) {
    const value = args[name];
    if (typeof value === 'number' && (value < 1 || value > MAX_PAGE)) (ctx as CostContext).problems?.push(`${field.name}: ${name} must be between 1 and ${MAX_PAGE}, got ${value}`);
  }
  if (isLeafType(named)) return 0;
  if (named.name.endsWith('Connection')) {
    const page = (args.first ?? args.last) as number | undefined;
    return { field: 1, multiplier: Math.min(Math.max(page ?? DEFAULT_PAGE, 0), MAX_PAGE) };
  }
  if (Array.isArray(args.ids)) return { field: 1, multiplier: args.ids.length };
  if (field.name === 'edges' || field.name === 'nodes') return { field: 0, multiplier: 1 };
  return isListType(getNullableType(field.type)) ? { field: 1, multiplier: 10 } : 1;
}

/** A refusal of the request as a whole: 400, like REST's, before anything runs. */
const refusal = (message: string, code: 'query_too_complex' | 'validation_failed', nodes?: readonly ASTNode[]) =>
  new GraphQLError(message, { nodes, extensions: { code, status: 400, http: { status: 400 } } });
const tooComplex = (message: string) => refusal(message, 'query_too_complex');

/** Text PostgreSQL cannot store, in a string literal or a variable: refused before anything runs. */
function unstorableTextErrors(document: DocumentNode, variables: unknown): GraphQLError[] {
  const errors: GraphQLError[] = [];
  visit(document, {
    StringValue(node) {
      if (!isStorableText(node.value)) errors.push(refusal(`A string argument ${UNSTORABLE_TEXT_MESSAGE}`, 'validation_failed', [node]));
    },
  });
  for (const path of unstorableTextPaths(variables ?? {})) {
    errors.push(refusal(`Variable $${path.join('.')} ${UNSTORABLE_TEXT_MESSAGE}`, 'validation_failed'));
  }
  return errors;
}

/**
 * Checks a request before it runs, and before its context (and so the database) is touched:
 * no unstorable text, connection pages within 1..100, cost and depth within the limits. The
 * cost is left in the context for the rate limiter. It runs after GraphQL's own validation,
 * whose result yoga caches by query text; this depends on the variables, so it is never cached.
 */
function requestChecks(limits: GraphQLLimits): Plugin<QueryCostContext> {
  return {
    onValidate({ context, extendContext, params }) {
      return ({ valid, result, setResult }) => {
        if (!valid) return;
        const request = (context as { params?: { variables?: Record<string, unknown>; operationName?: string | null } }).params;
        const variables = request?.variables ?? {};
        const textErrors = unstorableTextErrors(params.documentAST, variables);
        if (textErrors.length) return setResult([...result, ...textErrors]);
        const costContext: CostContext = { problems: [] };
        let cost = 0;
        const errors = validate(params.schema, params.documentAST, [
          createComplexityRule({
            context: costContext,
            variableValues: variables,
            operationName: request?.operationName ?? undefined,
            validate: (measured, report) => {
              cost = Math.max(cost, measured.complexity);
              if (measured.depth > limits.maxDepth) report(tooComplex(`Query depth ${measured.depth} is over the limit of ${limits.maxDepth}`));
              if (measured.complexity > limits.maxCost) report(tooComplex(`Query cost ${measured.complexity} is over the limit of ${limits.maxCost}; ask for smaller pages (first/last) or fewer nested connections`));
            },
          }),
        ]);
        const problems = costContext.problems.map((p) => refusal(p, 'validation_failed'));
        // Variables that do not fit their types stop the measuring too; execution reports those, as it always has.
        const overLimits = errors.filter((e) => e.extensions?.code === 'query_too_complex');
        if (overLimits.length || problems.length) return setResult([...result, ...problems, ...overLimits]);
        extendContext({ queryCost: cost });
      };
    },
  };
}

/** The yoga plugins that bound what a request may ask for. */
export function limitPlugins(limits: GraphQLLimits): Plugin[] {
  const tag = (_ctx: unknown, error: GraphQLError) => {
    Object.assign(error.extensions as Record<string, unknown>, { code: 'query_too_complex', status: 400, http: { status: 400 } });
  };
  return [
    maxTokensPlugin({ n: limits.maxTokens, onReject: [tag] }) as Plugin,
    maxAliasesPlugin({ n: limits.maxAliases, onReject: [tag] }) as Plugin,
    requestChecks(limits) as Plugin,
  ];
}
