// The registry of write hooks and their runner. A hook subscribes to resources and operations,
// so a resource no hook hears of keeps its one-statement writes. Registration errors carry a
// `code`, as Fastify's do, for every extension point (lib/extensions.ts); run errors name the
// hook that failed and keep the original as `cause`. A Problem thrown by a hook (say a 409) reaches the caller as it is, and so does a database that
// went away under the hook (a 503 or 504, not the hook's fault).
import { isProblem } from '../lib/problems.js'
import { isDatabaseUnavailable } from '../lib/db/pg-errors.js'
import type { Queryable } from '../lib/db/query.js'
import type { WriteEvent, WriteHook, WriteHookOptions, WriteOperation } from './types.js'

const OPERATIONS: readonly WriteOperation[] = ['create', 'update', 'delete', 'undelete', 'revoke-sessions']

export class WriteHookError extends Error {
  constructor (hook: WriteHook, cause: unknown) {
    super(`write hook ${hook.name === '' ? '(anonymous)' : hook.name} failed`, { cause })
    this.name = 'WriteHookError'
  }
}

export type HookRegistrationCode = 'TG_ERR_HOOK_NOT_FUNCTION' | 'TG_ERR_HOOK_UNKNOWN_RESOURCE' | 'TG_ERR_HOOK_UNKNOWN_OPERATION' | 'TG_ERR_HOOK_AFTER_READY'

export class HookRegistrationError extends Error {
  constructor (readonly code: HookRegistrationCode, message: string) {
    super(message)
    this.name = 'HookRegistrationError'
  }
}

interface Subscription {
  readonly hook: WriteHook
  readonly resources: ReadonlySet<string> | undefined
  readonly operations: ReadonlySet<WriteOperation> | undefined
}

const NONE: readonly WriteHook[] = Object.freeze([])

export class WriteHooks {
  readonly #subscriptions: Subscription[] = []
  readonly #resources: ReadonlySet<string>
  // Writes ask for their hooks on every request: answered from a map built when hooks are added.
  readonly #byTarget = new Map<string, readonly WriteHook[]>()

  /** `resources`: the names hooks may subscribe to. */
  constructor (resources: Iterable<string>) {
    this.#resources = new Set(resources)
  }

  /** Whether the app is ready and that it is a function, the extension registry checks (lib/extensions.ts). */
  add (hook: WriteHook, options: WriteHookOptions = {}): void {
    for (const resource of options.resources ?? []) {
      if (!this.#resources.has(resource)) throw new HookRegistrationError('TG_ERR_HOOK_UNKNOWN_RESOURCE', `addWriteHook: no resource named '${String(resource)}'`)
    }
    for (const operation of options.operations ?? []) {
      if (!OPERATIONS.includes(operation)) throw new HookRegistrationError('TG_ERR_HOOK_UNKNOWN_OPERATION', `addWriteHook: '${String(operation)}' is not one of ${OPERATIONS.join(', ')}`)
    }
    this.#subscriptions.push({
      hook,
      resources: options.resources === undefined ? undefined : new Set(options.resources),
      operations: options.operations === undefined ? undefined : new Set(options.operations),
    })
    this.#byTarget.clear()
  }

  /** The hooks of one resource and operation, in the order they were added. */
  for (resource: string, operation: WriteOperation): readonly WriteHook[] {
    const target = `${operation}\0${resource}`
    let hooks = this.#byTarget.get(target)
    if (hooks === undefined) {
      const found = this.#subscriptions.filter((s) => (s.resources?.has(resource) ?? true) && (s.operations?.has(operation) ?? true)).map((s) => s.hook)
      hooks = found.length === 0 ? NONE : found
      this.#byTarget.set(target, hooks)
    }
    return hooks
  }

  async run (event: WriteEvent, tx: Queryable): Promise<void> {
    const hooks = this.for(event.resource, event.operation)
    if (hooks.length === 0) return
    // Hooks get the transaction only while they run: a statement sent on a `tx` kept for later
    // would run on its own, or inside whichever unit of work holds that connection next.
    const during = whileRunning(tx)
    try {
      for (const hook of hooks) {
        try {
          await hook(event, during.tx)
        } catch (err) {
          if (isProblem(err) || isDatabaseUnavailable(err)) throw err
          throw new WriteHookError(hook, err)
        }
      }
    } finally {
      during.end()
    }
  }
}

/** `tx` until `end()`; after it every statement is refused. */
function whileRunning (tx: Queryable): { readonly tx: Queryable, end: () => void } {
  let ended = false
  const query = (...args: unknown[]): unknown => {
    if (ended) throw new Error('a write hook\'s tx is valid only while the hook runs: the write it belonged to has ended')
    return (tx as unknown as { query: (...a: unknown[]) => unknown }).query(...args)
  }
  return { tx: { query } as unknown as Queryable, end: () => { ended = true } }
}
