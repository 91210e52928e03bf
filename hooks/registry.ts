// The registry of write hooks and their runner. Errors name the hook that failed and keep the
// original as `cause`; a Problem thrown by a hook (say a 409) reaches the caller as it is.
import { isProblem } from '../lib/problems.js'
import type { Queryable } from '../lib/db/query.js'
import type { WriteEvent, WriteHook } from './types.js'

export class WriteHookError extends Error {
  constructor (hook: WriteHook, cause: unknown) {
    super(`write hook ${hook.name === '' ? '(anonymous)' : hook.name} failed`, { cause })
    this.name = 'WriteHookError'
  }
}

export class WriteHooks {
  readonly #hooks: WriteHook[] = []

  add (hook: WriteHook): void {
    if (typeof hook !== 'function') throw new TypeError('addWriteHook expects a function (event, tx) => Promise<void>')
    this.#hooks.push(hook)
  }

  get size (): number {
    return this.#hooks.length
  }

  async run (event: WriteEvent, tx: Queryable): Promise<void> {
    for (const hook of this.#hooks) {
      try {
        await hook(event, tx)
      } catch (err) {
        if (isProblem(err)) throw err
        throw new WriteHookError(hook, err)
      }
    }
  }
}
