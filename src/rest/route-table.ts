import type { Router } from 'express';
import { routeOfHandler, type OperationRoute } from './operation-route.js';
import { v1Router } from './router.js';

interface Layer {
  route?: { path: string; methods: Record<string, boolean>; stack: { handle: unknown }[] };
  /** A dispatch to per-resource routers (src/rest/router.ts). */
  handle?: { routers?: Router[] };
}

/** A route as a router holds it, with what `route()` recorded about it when it is a /v1 operation route. */
export interface RouterRoute {
  /** "GET /products/:id" */
  name: string;
  method: string;
  path: string;
  operation?: OperationRoute;
}

/** Every route of a router, read from the router itself, in matching order. */
export function routesOf(router: Router): RouterRoute[] {
  return (router as unknown as { stack: Layer[] }).stack.flatMap((layer): RouterRoute[] => {
    if (layer.handle?.routers) return layer.handle.routers.flatMap(routesOf);
    const r = layer.route;
    if (!r) return [];
    const operation = r.stack.map((s) => routeOfHandler(s.handle)).find(Boolean);
    return Object.keys(r.methods).map((m) => ({ name: `${m.toUpperCase()} ${r.path}`, method: m.toUpperCase(), path: r.path, operation }));
  });
}

/** Every /v1 route (paths relative to /v1). The router is built without a listener: nothing here runs a request. */
export function v1Routes(): RouterRoute[] {
  return routesOf(v1Router({} as never));
}
