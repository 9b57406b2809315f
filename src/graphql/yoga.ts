import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { GraphQLError } from 'graphql';
import { createYoga, maskError as defaultMaskError } from 'graphql-yoga';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { AppError, graphqlCodeOf, httpStatusOf } from '../lib/errors.js';
import { authenticate, type ListenerEnv } from '../rest/auth.js';
import { unauthenticatedCore, type GraphQLContext } from './context.js';
import { graphqlPath } from './input.js';
import { schema } from './schema.js';

function toGraphQLError(err: AppError, original: GraphQLError | undefined) {
  return new GraphQLError(err.messages(graphqlPath).join('; '), {
    nodes: original?.nodes,
    path: original?.path,
    source: original?.source,
    positions: original?.positions,
    extensions: {
      code: graphqlCodeOf(err.code),
      status: httpStatusOf(err.code),
      ...(err.issues.length ? { fields: err.issues.map((i) => ({ path: graphqlPath(i.path), message: i.message })) } : {}),
    },
  });
}

/** /graphql of one listener: same key rules as /v1, errors carry extensions.code, GraphiQL served from the package (no CDN). */
export function graphqlHandler(env: ListenerEnv, logger: Logger) {
  return createYoga<{ req: Request; res: Response }>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    renderGraphiQL,
    graphiql: { title: `Billing service (${env.mode})`, headers: JSON.stringify({ 'x-api-key': '' }) },
    logging: false,
    context: async ({ req, res }): Promise<GraphQLContext> => {
      const traceId = res.locals.traceId as string;
      try {
        return { core: await authenticate(env, req.get('x-api-key'), traceId, 'graphql') };
      } catch (err) {
        if (err instanceof AppError) return { core: unauthenticatedCore(err) };
        throw err;
      }
    },
    maskedErrors: {
      maskError(error, message, isDev) {
        const original = error instanceof GraphQLError ? error : undefined;
        const cause = original ? original.originalError : error;
        if (cause instanceof AppError) return toGraphQLError(cause, original);
        logger.error({ err: cause ?? error }, 'graphql resolver error');
        return defaultMaskError(error, message, isDev);
      },
    },
  });
}
