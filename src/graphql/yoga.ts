import { getOperationAST, GraphQLError } from 'graphql';
import { createYoga, maskError as defaultMaskError, type Plugin } from 'graphql-yoga';
import type { Request, Response } from 'express';
import { API_KEY_PLACEHOLDER, CUSTOMER_GRAPH_EXAMPLE } from './example-queries.js';
import type { Logger } from 'pino';
import { AppError, httpStatusOf, isErrorCode, type ErrorCode } from '../lib/errors.js';
import { quotaHeaders, RateLimitError } from '../lib/rate-limit.js';
import { metricsSink, type MetricsSink } from '../metrics/sink.js';
import { authenticate, type ListenerEnv } from '../rest/auth.js';
import { unauthenticatedCore, type GraphQLContext } from './context.js';
import { graphqlPath } from './input.js';
import { limitPlugins, type GraphQLLimits, type QueryCostContext } from './limits.js';
import type { GraphQLSchema } from 'graphql';

let schemaLoad: Promise<GraphQLSchema> | undefined;
/**
 * The schema (every module's types, built by Pothos), loaded on first use instead of at
 * start-up: building it is a sizeable part of a start. The service warms it up once it is
 * listening, so the first GraphQL request rarely waits for it (`warmUp` of the running service, which the server process calls).
 */
export const loadSchema = (): Promise<GraphQLSchema> =>
  (schemaLoad ??= import('./schema.js').then(
    (m) => m.schema,
    (err: unknown) => {
      // Not kept: the next request tries again.
      schemaLoad = undefined;
      throw err;
    },
  ));

function toGraphQLError(err: AppError, original: GraphQLError | undefined) {
  return new GraphQLError(err.messages(graphqlPath).join('; '), {
    nodes: original?.nodes,
    path: original?.path,
    source: original?.source,
    positions: original?.positions,
    extensions: {
      code: err.code,
      status: httpStatusOf(err.kind),
      ...(err.issues.length ? { fields: err.issues.map((i) => ({ path: graphqlPath(i.path), message: i.message })) } : {}),
    },
  });
}

/**
 * Errors GraphQL itself reports about a request (it does not parse; a field, argument or
 * variable does not fit the schema) carry the service's codes too, like REST's 400s.
 */
const requestErrorCodes: Plugin = {
  onResultProcess({ result, setResult }) {
    if (Array.isArray(result) || !('errors' in result) || !result.errors?.length) return;
    const errors = result.errors.map((err) => {
      const code = err.extensions?.code;
      if (typeof code === 'string' && isErrorCode(code)) return err;
      const http = err.extensions?.http as { status?: number } | undefined;
      const ours: ErrorCode =
        code === 'INTERNAL_SERVER_ERROR'
          ? 'internal'
          : code === 'GRAPHQL_PARSE_FAILED' || code === 'BAD_REQUEST'
            ? 'malformed_request'
            : http?.status === 413
              ? 'payload_too_large'
              : 'validation_failed';
      return new GraphQLError(err.message, { nodes: err.nodes, source: err.source, positions: err.positions, path: err.path, originalError: err.originalError, extensions: { ...err.extensions, code: ours } });
    });
    setResult({ ...result, errors });
  },
};

/**
 * `graphql_operation_duration_seconds` and `graphql_operation_cost` (metrics on only): from
 * parsing to the end of execution, authentication and rate limit included, and the cost the
 * checks in limits.ts measured. Operations refused before they run are not observed.
 */
function operationMetrics(sink: MetricsSink): Plugin<QueryCostContext> {
  const started = new WeakMap<object, number>();
  return {
    onParse({ context }) {
      started.set(context, performance.now());
    },
    onExecute({ args }) {
      const context = args.contextValue as QueryCostContext;
      const start = started.get(context) ?? performance.now();
      const operation = getOperationAST(args.document, args.operationName);
      return {
        onExecuteDone() {
          sink.graphqlOperation(operation?.name?.value, operation?.operation ?? 'unknown', (performance.now() - start) / 1000, context.queryCost);
        },
      };
    },
  };
}

/**
 * /graphql of one listener: same key rules as /v1 (and `Idempotency-Key` for mutations),
 * errors carry the same codes in extensions.code, GraphiQL served from the package (no CDN).
 */
export function graphqlHandler(listener: ListenerEnv, logger: Logger, limits: GraphQLLimits) {
  const metrics = metricsSink();
  return createYoga<{ req: Request; res: Response } & QueryCostContext>({
    schema: loadSchema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // Loaded on the first GraphiQL page, not at every start: it is a third of a second of start-up.
    renderGraphiQL: async (options) => (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(options),
    graphiql: {
      title: `Billing service (${listener.env.mode})`,
      // Ready to run: the key's place in the headers editor (open), the customer graph as the document.
      headers: JSON.stringify({ 'x-api-key': API_KEY_PLACEHOLDER }, null, 2),
      defaultEditorToolsVisibility: 'headers',
      defaultQuery: CUSTOMER_GRAPH_EXAMPLE,
    },
    logging: false,
    plugins: [...limitPlugins(limits), requestErrorCodes, ...(metrics ? [operationMetrics(metrics) as Plugin] : [])],
    context: async ({ req, res, queryCost }): Promise<GraphQLContext> => {
      const traceId = res.locals.traceId as string;
      let core;
      try {
        const headers = { apiKey: req.get('x-api-key'), idempotencyKey: req.get('idempotency-key') };
        core = await authenticate(listener, headers, traceId, 'graphql');
      } catch (err) {
        if (err instanceof AppError) return { core: unauthenticatedCore(err) };
        throw err;
      }
      // A key's GraphQL budget is spent by cost, known before anything runs (limits.ts).
      try {
        res.set(quotaHeaders(await listener.limits.graphql.take(core.apiKeyId ?? core.storeId, queryCost ?? 1)));
      } catch (err) {
        if (!(err instanceof RateLimitError)) throw err;
        const headers = quotaHeaders(err.quota, true);
        throw new GraphQLError(err.message, { extensions: { code: err.code, status: 429, http: { status: 429, headers } } });
      }
      return { core };
    },
    maskedErrors: {
      maskError(error, message, isDev) {
        const original = error instanceof GraphQLError ? error : undefined;
        const cause = original ? original.originalError : error;
        if (cause instanceof AppError) return toGraphQLError(cause, original);
        // Raised by GraphQL or by this service's plugins about the request, not by a failure.
        if (original && (!cause || cause instanceof GraphQLError)) return original;
        logger.error({ err: cause ?? error }, 'graphql resolver error');
        return defaultMaskError(error, message, isDev);
      },
    },
  });
}
