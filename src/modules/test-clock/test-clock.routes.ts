import type { Router } from 'express';
import { route } from '../../rest/operation-route.js';
import { advanceTestClockOp, getTestClockOp } from './test-clock.operations.js';

export function testClockRoutes(router: Router): void {
  route(router, 'get', '/test-clock', getTestClockOp);
  route(router, 'post', '/test-clock/advance', advanceTestClockOp);
}
