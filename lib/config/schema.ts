// The configuration schema: one TypeBox source for the `Config` type and the startup check.
// Functions (rules, validate, onUnhandledError) are checked as functions; `.json` configs omit them.
import { Type, type Static } from '@sinclair/typebox'
import type { FieldRule, Rule } from './rules.js'
import type { PluginEntry, RecordValidator, UnhandledErrorHandler } from './functions.js'
import { MenuEntrySchema, PageSchema, ViewsSchema } from './metadata-schema.js'

// TypeBox can check that a value is a function but not its signature: each schema holding one is
// wrapped in `Type.Unsafe<T>`, which keeps the check as it is and makes `Static` give `T`.
const Fn = Type.Function([Type.Any(), Type.Any()], Type.Any())
const RoleList = Type.Array(Type.String())
const RuleSchema = Type.Unsafe<Rule>(Type.Union([Type.Boolean(), RoleList, Fn, Type.Object({ filter: Type.Any() }), Type.Object({ check: Fn })]))
/** Field rules decide read or write for the whole field: no row filters, no record checks. */
const FieldRuleSchema = Type.Unsafe<FieldRule>(Type.Union([Type.Boolean(), RoleList, Fn]))

const FieldType = Type.Union([
  Type.Literal('string'), Type.Literal('integer'), Type.Literal('bigint'), Type.Literal('number'), Type.Literal('decimal'),
  Type.Literal('boolean'), Type.Literal('date'), Type.Literal('timestamp'), Type.Literal('uuid'), Type.Literal('json'),
])

export const FieldSchema = Type.Object({
  type: FieldType,
  column: Type.Optional(Type.String()),
  readOnly: Type.Optional(Type.Boolean()),
  required: Type.Optional(Type.Boolean()),
  nullable: Type.Optional(Type.Boolean()),
  default: Type.Optional(Type.Any()),
  dbDefault: Type.Optional(Type.Boolean()),
  enum: Type.Optional(Type.Array(Type.Any())),
  minLength: Type.Optional(Type.Integer({ minimum: 0 })),
  maxLength: Type.Optional(Type.Integer({ minimum: 0 })),
  pattern: Type.Optional(Type.String()),
  minimum: Type.Optional(Type.Number()),
  maximum: Type.Optional(Type.Number()),
  filterable: Type.Optional(Type.Boolean()),
  sortable: Type.Optional(Type.Boolean()),
  searchable: Type.Optional(Type.Boolean()),
  references: Type.Optional(Type.String()),
}, { additionalProperties: false })

export const ResourceSchema = Type.Object({
  table: Type.Optional(Type.String()),
  key: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String(), { minItems: 1 })])),
  softDelete: Type.Optional(Type.String()),
  tenant: Type.Optional(Type.String()),
  owner: Type.Optional(Type.String()),
  version: Type.Optional(Type.String()),
  fields: Type.Record(Type.String(), FieldSchema),
  validate: Type.Optional(Type.Unsafe<RecordValidator>(Fn)),
  access: Type.Optional(Type.Object({
    read: Type.Optional(RuleSchema),
    create: Type.Optional(RuleSchema),
    update: Type.Optional(RuleSchema),
    delete: Type.Optional(RuleSchema),
    undelete: Type.Optional(RuleSchema),
    fields: Type.Optional(Type.Record(Type.String(), Type.Object({
      read: Type.Optional(FieldRuleSchema),
      write: Type.Optional(FieldRuleSchema),
    }, { additionalProperties: false }))),
  }, { additionalProperties: false })),
}, { additionalProperties: false })

export const KeySetCacheSchema = Type.Object({
  refreshMs: Type.Optional(Type.Integer({ minimum: 1000 })),
  minReloadMs: Type.Optional(Type.Integer({ minimum: 0 })),
}, { additionalProperties: false })

/** Options of the token verifier when tokens come from an auth server elsewhere (no login routes here). */
export const VerifierSchema = Type.Object({
  jwksUrl: Type.Optional(Type.String()),
  keys: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Any()))),
  issuer: Type.Optional(Type.String()),
  audience: Type.Optional(Type.String()),
  rolesClaim: Type.Optional(Type.String()),
  tenantClaim: Type.Optional(Type.String()),
  tenant: Type.Optional(Type.String()),
  algorithms: Type.Optional(Type.Array(Type.String(), { minItems: 1 })),
  cache: Type.Optional(KeySetCacheSchema),
}, { additionalProperties: false })

export const ConfigSchema = Type.Object({
  databaseUrl: Type.Optional(Type.String()),
  /** Reads (one read-only statement each) go here: a read replica. */
  databaseReadUrl: Type.Optional(Type.String()),
  adminDatabaseUrl: Type.Optional(Type.String()),
  authSchema: Type.Optional(Type.String({ pattern: '^[a-z_][a-z0-9_]*$' })),
  authSecret: Type.Optional(Type.String({ minLength: 16 })),
  dataDir: Type.Optional(Type.String()),
  basePath: Type.Optional(Type.String({ pattern: '^/[A-Za-z0-9_\\-/.]*[A-Za-z0-9_\\-]$' })),
  publicUrl: Type.Optional(Type.String()),
  trustedOrigins: Type.Optional(Type.Array(Type.String())),
  signInPerMinute: Type.Optional(Type.Integer({ minimum: 1 })),
  /** Who may set `x-forwarded-for` (Fastify's `trustProxy`): true, false, or addresses and CIDR ranges (a hop count is refused, saying why). */
  trustProxy: Type.Optional(Type.Union([Type.Boolean(), Type.Integer({ minimum: 1 }), Type.String(), Type.Array(Type.String())])),
  roles: Type.Optional(Type.Union([RoleList, Type.Record(Type.String(), RoleList)])),
  defaultRole: Type.Optional(Type.String()),
  defaultAccess: Type.Optional(Type.Union([Type.Literal('allow'), Type.Literal('deny')])),
  tenant: Type.Optional(Type.String()),
  statementTimeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
  /** Answer every request with a Server-Timing header (auth, access, plan, db, serialize). */
  serverTiming: Type.Optional(Type.Boolean()),
  /** GET /api/metrics, for callers with `role` (default admin); false: no metrics at all. */
  metrics: Type.Optional(Type.Union([Type.Literal(false), Type.Object({ role: Type.Optional(Type.String({ minLength: 1 })) }, { additionalProperties: false })])),
  /** How long a `:export` may stream, in one read-only transaction (default 10 minutes). */
  exportTimeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
  /** How often each process reads new bans, deletions and role changes that limit issued tokens. */
  revocationPollMs: Type.Optional(Type.Integer({ minimum: 50, maximum: 10_000 })),
  /** Connections of each application pool (writes, reads). */
  poolSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  /** How long to wait for a database connection (a new one, or a free one of the pool). */
  connectTimeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
  scanGuard: Type.Optional(Type.Object({
    mode: Type.Optional(Type.Union([Type.Literal('reject'), Type.Literal('warn'), Type.Literal('off')])),
    seqScanRows: Type.Optional(Type.Integer({ minimum: 0 })),
  }, { additionalProperties: false })),
  rowPermissions: Type.Optional(Type.Union([Type.Boolean(), Type.Object({ except: Type.Array(Type.String()) }, { additionalProperties: false })])),
  onUnhandledError: Type.Optional(Type.Unsafe<UnhandledErrorHandler>(Fn)),
  verifier: Type.Optional(VerifierSchema),
  migrateOnStart: Type.Optional(Type.Boolean()),
  migrations: Type.Optional(Type.String()),
  /** Fastify plugins registered after tablegate: `plugin` or `[plugin, options]`. */
  plugins: Type.Optional(Type.Array(Type.Unsafe<PluginEntry>(Type.Union([Fn, Type.Tuple([Fn, Type.Any()])])))),
  logger: Type.Optional(Type.Union([Type.Boolean(), Type.Record(Type.String(), Type.Any())])),
  resources: Type.Optional(Type.Record(Type.String(), ResourceSchema)),
  views: Type.Optional(ViewsSchema),
  pages: Type.Optional(Type.Array(PageSchema)),
  userMenu: Type.Optional(Type.Array(MenuEntrySchema)),
}, { additionalProperties: false })

export type Config = Static<typeof ConfigSchema>
export type ResourceConfig = Static<typeof ResourceSchema>
export type FieldConfig = Static<typeof FieldSchema>
export type VerifierConfig = Static<typeof VerifierSchema>
