import type { RequestContext } from '../context.js';
import type { AppError } from '../lib/errors.js';

/**
 * GraphQL context: `core` is the caller's request context for the services. Authentication
 * runs once when the context is built; when it failed, `core` is a stand-in that throws the
 * authentication error on first use, so schema introspection (GraphiQL's first request)
 * works without a key while every data field still demands one.
 */
export interface GraphQLContext {
  core: RequestContext;
}

export function unauthenticatedCore(error: AppError): RequestContext {
  return new Proxy({} as RequestContext, {
    get() {
      throw error;
    },
  });
}
