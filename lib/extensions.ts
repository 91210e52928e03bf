// One app's extension points: write hooks, list guards and API describers, added by plugins while
// they register and fixed once the app is ready, as Fastify's own hooks are. Each is refused alike:
// a HookRegistrationError with a TG_ERR_HOOK_* code (docs/plugins.md, "Extension points"). The
// write hooks' subscriptions and runner are hooks/registry.ts's.
import { HookRegistrationError, WriteHooks } from '../hooks/registry.js'
import type { WriteHook, WriteHookOptions } from '../hooks/types.js'
import type { ListGuard } from './read/guard-view.js'
import type { OperationsDescriber } from './openapi/document.js'

export class Extensions {
  /** The write hooks and their runner: the write pipeline and the user store run them. */
  readonly writeHooks: WriteHooks
  readonly #listGuards: ListGuard[] = []
  readonly #apiDescribers: OperationsDescriber[] = []
  #sealed = false

  /** `resources`: the names write hooks may subscribe to. */
  constructor (resources: Iterable<string>) {
    this.writeHooks = new WriteHooks(resources)
  }

  addWriteHook (hook: WriteHook, options?: WriteHookOptions): void {
    this.#admit('addWriteHook', 'write hooks', hook, '(event, tx) => Promise<void>')
    this.writeHooks.add(hook, options)
  }

  addListGuard (guard: ListGuard): void {
    this.#admit('addListGuard', 'list guards', guard, '(view, db) => Promise<string | undefined>')
    this.#listGuards.push(guard)
  }

  addApiDescriber (describer: OperationsDescriber): void {
    this.#admit('addApiDescriber', 'API describers', describer, '(api) => paths')
    this.#apiDescribers.push(describer)
  }

  /** Every list runs these before its queries, in the order they were added. */
  get listGuards (): readonly ListGuard[] {
    return this.#listGuards
  }

  /** Each plugin's description of its routes for the callers' OpenAPI documents. */
  get apiDescribers (): readonly OperationsDescriber[] {
    return this.#apiDescribers
  }

  /** Called when the app is ready: nothing may be added after. */
  seal (): void {
    this.#sealed = true
  }

  #admit (method: string, kind: string, extension: unknown, signature: string): void {
    if (this.#sealed) throw new HookRegistrationError('TG_ERR_HOOK_AFTER_READY', `${method} after the app is ready: add ${kind} while plugins register`)
    if (typeof extension !== 'function') throw new HookRegistrationError('TG_ERR_HOOK_NOT_FUNCTION', `${method} expects a function ${signature}`)
  }
}
