export { WriteHooks, WriteHookError } from './registry.js'
export type { WriteEvent, WriteHook, WriteOperation, RecordValues } from './types.js'
