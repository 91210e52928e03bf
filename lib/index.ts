// Public library surface of tablegate.
export { default as tablegate } from '../plugins/tablegate/index.js'
export { createServer, type ServerOptions } from './server.js'
export { defineConfig } from './config/define-config.js'
export type { Config, ResourceConfig, FieldConfig, VerifierConfig } from './config/schema.js'
export { createVerifier, type Verifier, type VerifierOptions, type Principal } from './auth/verifier.js'
export type { TablegateContext, TablegateDecorator, CallerUser } from './context.js'
export type { UserStore, UserSummary, CreateUserInput } from './auth/users.js'
export { Problem, problem, PROBLEMS, type ProblemSlug } from './problems.js'
