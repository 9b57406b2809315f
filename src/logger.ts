import { pino } from 'pino';

/** One logger for the process. Keys and secrets never reach the log: headers that carry them are redacted. */
export function createLogger(level: string) {
  return pino({
    level,
    redact: {
      paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
      censor: '[redacted]',
    },
  });
}

export type { Logger } from 'pino';
