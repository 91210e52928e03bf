// A Fastify logger that keeps the messages of its warnings, for tests of what a start warns of.
import type { FastifyBaseLogger } from 'fastify'

export function warningsLogger (warnings: string[]): FastifyBaseLogger {
  const quiet = (): void => {}
  const logger = {
    level: 'warn',
    warn: (obj: unknown, message?: string) => { warnings.push(message ?? String(obj)) },
    fatal: quiet, error: quiet, info: quiet, debug: quiet, trace: quiet, silent: quiet,
    child: () => logger,
  }
  return logger as unknown as FastifyBaseLogger
}
