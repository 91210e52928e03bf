// The configuration schema: one TypeBox source for the `Config` type, the startup check and the
// reference in docs/configuration.md (`npm run docs:config`). Annotations: `description`,
// `default` (a literal default, the value an empty config resolves to), `defaultText` (a default
// that is not one literal), `env` (the environment variable read when the key is absent),
// `examples` (values; a function's example is its source text) and `keyName` (what a record's keys are).
// Functions (rules, validate, onUnhandledError, onInvitation, onSend) are checked as functions; `.json` configs omit them.
import { Type, type Static, type TFunction, type TOptional, type TSchema, type TUnsafe } from '@sinclair/typebox'
import type { FieldRule, Rule } from './rules.js'
import type { AccountMailHandler, ExistingUserSignUpHandler, InvitationHandler, PluginEntry, RecordValidator, UnhandledErrorHandler } from './functions.js'
import { MenuEntrySchema, PageSchema, ViewsSchema } from './metadata-schema.js'

// TypeBox can check that a value is a function but not its signature: each schema holding one is
// wrapped in `Type.Unsafe<T>`, which keeps the check as it is and makes `Static` give `T`.
function fn (description?: string): TFunction {
  return Type.Function([Type.Any(), Type.Any()], Type.Any(), description === undefined ? {} : { description })
}
function unsafe<T> (schema: TSchema, options: Record<string, unknown> = {}): TUnsafe<T> {
  return Type.Unsafe<T>({ ...schema, ...options })
}
const RoleList = Type.Array(Type.String(), { description: 'role names' })
const RULE_DESCRIPTION = 'true or false; a list of roles; `{ filter }` (an equality map or AIP-160 text: a row filter); ' +
  '`{ check: (record, ctx) => boolean | { filter } }` (judged on the stored record in the write transaction); or `(ctx) => ` any of these.'
const RuleSchema = unsafe<Rule>(Type.Union([Type.Boolean(), RoleList, fn('(ctx) => rule'), Type.Object({ filter: Type.Any() }), Type.Object({ check: fn('(record, ctx) => boolean | { filter }') })]),
  { description: RULE_DESCRIPTION })
/** Field rules decide read or write for the whole field: no row filters, no record checks. */
const FieldRuleSchema = unsafe<FieldRule>(Type.Union([Type.Boolean(), RoleList, fn('(ctx) => boolean')]))

export const FieldTypeSchema = Type.Union([
  Type.Literal('string', { description: 'Text.' }),
  Type.Literal('integer', { description: 'A 32-bit whole number, as a JSON number.' }),
  Type.Literal('bigint', { description: 'A 64-bit whole number, written as a JSON string so no digit is lost.' }),
  Type.Literal('number', { description: 'A floating-point number, as a JSON number.' }),
  Type.Literal('decimal', { description: 'An exact decimal number, written as a JSON string (a JSON number is accepted).' }),
  Type.Literal('boolean', { description: 'true or false.' }),
  Type.Literal('date', { description: 'A calendar date, `YYYY-MM-DD`.' }),
  Type.Literal('timestamp', { description: 'An instant, written as UTC ISO 8601 with six fraction digits.' }),
  Type.Literal('uuid', { description: 'A UUID.' }),
  Type.Literal('json', { description: 'Any JSON value, stored as it is sent.' }),
], { title: 'Field types', description: 'What values the field holds and which columns it may sit on.' })

export const FieldSchema = Type.Object({
  type: FieldTypeSchema,
  column: Type.Optional(Type.String({ description: 'The column the field reads and writes.', defaultText: 'the field name', examples: ['created_by'] })),
  readOnly: Type.Optional(Type.Boolean({ description: 'No body may set the field; it is still read (a key filled by the database, a computed column).', default: false, examples: [true] })),
  required: Type.Optional(Type.Boolean({ description: 'A create must give a value (unless `default` or `dbDefault` provides one); also makes the field not nullable unless `nullable` says otherwise.', default: false, examples: [true] })),
  nullable: Type.Optional(Type.Boolean({ description: 'A body may set the field to `null` (never where the column is NOT NULL).', defaultText: 'the opposite of `required`', examples: [false] })),
  default: Type.Optional(Type.Any({ description: 'The value a create writes when the body leaves the field out. Checked at startup against the field (type, enum, limits) and the column.', examples: ['draft'] })),
  dbDefault: Type.Optional(Type.Boolean({ description: 'The column has a database default (a sequence, `now()`): a create may leave a required field out and the database fills it.', default: false, examples: [true] })),
  enum: Type.Optional(Type.Array(Type.Any(), { description: 'The only values allowed, in the order clients offer them. Filters are checked against it too.', examples: [['draft', 'open', 'locked']] })),
  minLength: Type.Optional(Type.Integer({ minimum: 0, description: 'The fewest characters of a `string` value.', examples: [1] })),
  maxLength: Type.Optional(Type.Integer({ minimum: 0, description: 'The most characters of a `string` value. A `varchar(n)` column limits the length without it.', examples: [200] })),
  pattern: Type.Optional(Type.String({ description: 'A regular expression (ECMAScript) a `string` value must match.', examples: ['^[A-Z]{2}-[0-9]+$'] })),
  minimum: Type.Optional(Type.Number({ description: 'The smallest value of an `integer` or `number` field.', examples: [1] })),
  maximum: Type.Optional(Type.Number({ description: 'The largest value of an `integer` or `number` field.', examples: [5] })),
  filterable: Type.Optional(Type.Boolean({ description: 'The field may appear in `filter`.', default: true, examples: [false] })),
  sortable: Type.Optional(Type.Boolean({ description: 'The field may appear in `order_by`.', default: true, examples: [false] })),
  searchable: Type.Optional(Type.Boolean({ description: 'The field is one `search(...)` in a filter looks through.', default: false, examples: [true] })),
  references: Type.Optional(Type.String({ description: 'The resource whose key the values name: a write may only name a record the caller can read (see resources.md, References).', examples: ['projects'] })),
}, { additionalProperties: false, title: 'Fields', description: 'One field of a resource: a column, its type, and the rules of its values.', examples: [{ type: 'string', required: true, maxLength: 200, searchable: true }] })

const OperationRule = (operation: string, example: unknown, more = ''): TOptional<TUnsafe<Rule>> => Type.Optional(unsafe<Rule>(RuleSchema, {
  description: `Who may ${operation}.${more}`,
  defaultText: 'a matching capability with bundled `roles`, else `defaultAccess`, else allowed',
  examples: [example],
}))

export const AccessSchema = Type.Object({
  read: OperationRule('list and get records (and run aggregates and exports); a row filter narrows every read', true),
  create: OperationRule('create records', ['admin', 'manager'], ' A row filter on create (`.own`) fills the owner field.'),
  update: OperationRule('update records', '(ctx) => ({ filter: { owner_id: ctx.user.id } })'),
  delete: OperationRule('delete records', "{ check: (record) => record.status !== 'locked' }"),
  undelete: OperationRule('undelete soft-deleted records', false, ' Without it, the `delete` rule decides.'),
  export: Type.Optional(unsafe<Rule>(RuleSchema, {
    description: 'Who may stream records with `:export` (never more than they may read: a row filter here narrows the read rule\'s rows). No `{ check }`: an export judges no record.',
    defaultText: 'as `read`; with bundled `roles`, an `export` capability once a bundle names one for the resource (see access.md)',
    examples: [['admin', 'analyst']],
  })),
  showDeleted: Type.Optional(unsafe<FieldRule>(FieldRuleSchema, {
    description: 'Who may read soft-deleted records (`show_deleted=true`), under their read rule; others get 403 `access-denied`.',
    default: true,
    examples: [['admin']],
  })),
  fields: Type.Optional(Type.Record(Type.String(), Type.Object({
    read: Type.Optional(unsafe<FieldRule>(FieldRuleSchema, { description: 'Who reads the field; everyone else works with a model without it.', default: true, examples: [['admin', 'manager']] })),
    write: Type.Optional(unsafe<FieldRule>(FieldRuleSchema, { description: 'Who may set the field in a body (it must be readable too). A function sees `ctx.operation`: `create` on a create, `update` on an update (`(ctx) => ctx.operation === \'create\'`: set once, then read-only).', default: true, examples: [['admin']] })),
  }, { additionalProperties: false, title: 'Field access', description: 'Who reads and who writes one field.' }), {
    keyName: 'field',
    description: 'Field rules by field name.',
    examples: [{ cost: { read: ['admin', 'manager'], write: ['admin'] } }],
  })),
}, {
  additionalProperties: false,
  title: 'Access rules',
  description: 'The resource\'s access rules (see access.md).',
  examples: [{ read: true, create: ['admin', 'manager'], delete: { filter: { status: 'draft' } } }],
})

export const ToOneRelationSchema = Type.Object({
  field: Type.String({ description: 'A field of this resource that `references` the related resource: the record it names is the related one.', examples: ['customer_id'] }),
}, { additionalProperties: false, title: 'To-one relation', description: 'The record a `references` field of this resource names (see relations.md).', examples: [{ field: 'customer_id' }] })

export const ToManyRelationSchema = Type.Object({
  resource: Type.String({ description: 'The related resource, whose records point back at this one.', examples: ['order_lines'] }),
  by: Type.String({ description: 'The field of the related resource that `references` this resource.', examples: ['order_id'] }),
  orderBy: Type.Optional(Type.String({ description: 'The order of the related records, as in `order_by` (sortable fields, `desc` after a field to reverse it); the key ends it.', defaultText: 'the related resource\'s key', examples: ['position', 'created_at desc'] })),
  pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'How many related records an embed gives before its `next_page_token`.', default: 10, examples: [25] })),
}, { additionalProperties: false, title: 'To-many relation', description: 'The records of another resource whose `by` field names this one (see relations.md).', examples: [{ resource: 'order_lines', by: 'order_id', orderBy: 'position', pageSize: 10 }] })

export const ResourceSchema = Type.Object({
  table: Type.Optional(Type.String({ description: 'The table as SQL names it: `table` or `schema.table`, an unquoted name folded to lower case, a quoted one kept as written (`"Odd Schema".t2`). A table of the login store (named as in `authSchema`, in any schema) is refused: it holds password hashes, session tokens and signing keys, kept under rules of their own.', defaultText: 'the resource name', examples: ['sales.orders'] })),
  key: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String(), { minItems: 1 })], { description: 'The key field, or the fields of a composite key, in URL order.', default: 'id', examples: [['region', 'number']] })),
  softDelete: Type.Optional(Type.String({ description: 'A nullable `timestamptz` column that marks deleted rows: DELETE sets it, `:undelete` clears it, reads leave such rows out unless `show_deleted`.', examples: ['deleted_at'] })),
  tenant: Type.Optional(Type.Union([
    Type.String({ title: 'Tenant column', description: 'The column holding the tenant.' }),
    Type.Object({ through: Type.String({ description: 'To-one relations to a resource kept per tenant, one or two: `project`, `task.project`.' }) }, { additionalProperties: false, title: 'Tenant through a relation', description: 'The tenant of the row these relations lead to, read as stored (a soft-deleted parent still carries its tenant).' }),
  ], { description: 'How rows belong to tenants: a column of the table, or `{ through }` its parent\'s (see access.md#tenants). Rows of other tenants do not exist for a caller; creates fill the column, or must name a parent in the caller\'s tenant.', examples: ['tenant_id', { through: 'project' }] })),
  owner: Type.Optional(Type.String({ description: 'The field holding the id of the user who owns a row: what `.own` capabilities compare with the caller\'s id.', examples: ['owner_id'] })),
  version: Type.Optional(Type.String({ description: 'An integer or `timestamptz` column every write bumps: ETags and `If-Match` use it.', examples: ['version'] })),
  fields: Type.Record(Type.String(), FieldSchema, { keyName: 'field', description: 'The fields by name (field names are what callers see; `column` maps one to another column).', examples: [{ id: { type: 'bigint', readOnly: true, dbDefault: true }, title: { type: 'string', required: true } }] }),
  validate: Type.Optional(unsafe<RecordValidator>(fn('(record, ctx) => issues'), {
    description: 'A check of every record created or updated, after the field rules: answers `[{ field, code?, message }]` (empty: valid), each a field error of the 400 `invalid-record`. `ctx` is `{ user, tenant, operation }`. `record` is the fields the body sets (on create with the defaults): on update the patch, not the stored record (see resources.md#validate).',
    examples: ["(record) => record.ends_at < record.starts_at ? [{ field: 'ends_at', message: 'ends_at must be after starts_at.' }] : []"],
  })),
  changes: Type.Optional(Type.Object({
    capture: Type.Optional(Type.Union([Type.Literal('pipeline'), Type.Literal('trigger')], {
      description: '`pipeline`: every write through tablegate (batch ops included) is recorded in its own transaction. `trigger`: `tablegate migrate` installs a row trigger on the table, so writes made outside tablegate (plain SQL, other services) are recorded too.',
      default: 'pipeline',
      examples: ['trigger'],
    })),
  }, { additionalProperties: false, title: 'Change feed', description: 'Records every write to the table in the change log, so callers can follow it at `GET {basePath}/{resource}:changes` under their own read access (see changes.md).', examples: [{ capture: 'trigger' }] })),
  access: Type.Optional(AccessSchema),
  relations: Type.Optional(Type.Record(Type.String(), Type.Union([ToOneRelationSchema, ToManyRelationSchema]), {
    keyName: 'relation',
    description: 'Related records a caller can embed through `fields` paths and filter by, under each resource\'s own access (see relations.md). A relation name is not a field name of the resource.',
    examples: [{ customer: { field: 'customer_id' }, lines: { resource: 'order_lines', by: 'order_id', orderBy: 'position' } }],
  })),
}, {
  additionalProperties: false,
  title: 'Resources',
  description: 'One resource: a table served under the base path, with its fields and rules (see resources.md).',
  examples: [{ table: 'orders', softDelete: 'deleted_at', version: 'version', fields: { id: { type: 'bigint', readOnly: true, dbDefault: true }, title: { type: 'string', required: true } } }],
})

export const KeySetCacheSchema = Type.Object({
  refreshMs: Type.Optional(Type.Integer({ minimum: 1000, description: 'How long fetched keys are used before they are fetched again.', default: 600_000, examples: [300_000] })),
  minReloadMs: Type.Optional(Type.Integer({ minimum: 0, description: 'The least time between two fetches, so a token with an unknown `kid` cannot make the server fetch on every request.', default: 30_000, examples: [10_000] })),
}, { additionalProperties: false, title: 'Verifier key cache', description: 'How the key set of `jwksUrl` is cached.', examples: [{ refreshMs: 300_000 }] })

/** Options of the token verifier when tokens come from an auth server elsewhere (no login routes here). */
export const VerifierSchema = Type.Object({
  jwksUrl: Type.Optional(Type.String({ description: 'Where the auth server publishes its public keys (a JWKS). Give this or `keys`.', examples: ['https://auth.example.com/.well-known/jwks.json'] })),
  keys: Type.Optional(Type.Array(Type.Record(Type.String(), Type.Any()), { description: 'The public keys as JWKs, instead of `jwksUrl`.', examples: [[{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'main' }]] })),
  issuer: Type.Optional(Type.String({ description: 'The `iss` a token must carry.', defaultText: 'not checked', examples: ['https://auth.example.com'] })),
  audience: Type.Optional(Type.String({ description: 'The `aud` a token must carry.', defaultText: 'not checked', examples: ['https://api.example.com'] })),
  rolesClaim: Type.Optional(Type.String({ description: 'The claim holding the caller\'s roles (a list, or one comma separated string).', default: 'role', examples: ['roles'] })),
  tenantClaim: Type.Optional(Type.String({ description: 'The claim holding the caller\'s tenant.', defaultText: 'none: callers have no tenant unless `tenant` gives one', examples: ['org_id'] })),
  tenant: Type.Optional(Type.String({ description: 'A fixed tenant of every caller, instead of a claim.', defaultText: 'the config\'s `tenant`', examples: ['acme'] })),
  algorithms: Type.Optional(Type.Array(Type.String(), { minItems: 1, description: 'The signature algorithms accepted.', defaultText: 'every asymmetric JWS algorithm (EdDSA, ES*, RS*, PS*)', examples: [['EdDSA']] })),
  cache: Type.Optional(KeySetCacheSchema),
}, {
  additionalProperties: false,
  title: 'Verifier',
  description: 'Verify tokens of an auth server elsewhere instead of the built-in one: no login routes are mounted then.',
  defaultText: 'the built-in auth server',
  examples: [{ jwksUrl: 'https://auth.example.com/.well-known/jwks.json', issuer: 'https://auth.example.com', audience: 'https://api.example.com', rolesClaim: 'roles' }],
})

export const ScanGuardSchema = Type.Object({
  mode: Type.Optional(Type.Union([Type.Literal('reject'), Type.Literal('warn'), Type.Literal('off')], { description: '`reject`: 400 `expensive-query` with a create-index suggestion; `warn`: answer and log; `off`: no check.', default: 'reject', examples: ['warn'] })),
  seqScanRows: Type.Optional(Type.Integer({ minimum: 0, description: 'A sequential scan of a table with more rows than this (the planner\'s estimate) is expensive.', default: 10_000, examples: [50_000] })),
}, { additionalProperties: false, title: 'Scan guard', description: 'What happens to a list or aggregate whose plan scans a large table sequentially (see queries.md).', examples: [{ mode: 'warn', seqScanRows: 50_000 }] })

export const OrganizationsSchema = Type.Object({
  roles: Type.Optional(Type.Array(Type.String(), { minItems: 1, description: 'The organization roles a member may have, apart from the service `roles`; `owner` must be one (the last owner of an organization can be neither removed nor demoted).', default: ['owner', 'admin', 'member'], examples: [['owner', 'admin', 'member', 'viewer']] })),
  creatorRole: Type.Optional(Type.String({ description: 'The role of a user in an organization they create (one of `roles`).', default: 'owner', examples: ['admin'] })),
  allowUserToCreate: Type.Optional(Type.Boolean({ description: 'Signed-in users may create organizations; `false` leaves it to the host (`tablegate org create`, `app.tablegate.organizations`).', default: true, examples: [false] })),
  invitationExpiresIn: Type.Optional(Type.Integer({ minimum: 1, description: 'How long an invitation can be accepted, in seconds.', default: 172_800, examples: [604_800] })),
  roleCapabilities: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()), { description: 'Capabilities (as in capability bundles: `orders.read`, `orders.*`, `orders.read.own`) each organization role adds to the caller\'s service capabilities while that organization is active. Needs `roles` given as capability bundles.', examples: [{ member: ['orders.read'], admin: ['orders.*'] }] })),
  onInvitation: Type.Optional(unsafe<InvitationHandler>(fn('(invitation) => void'), {
    description: 'Called with each new invitation, to send it (tablegate sends no mail).',
    defaultText: 'none: invitations are only listed',
    examples: ["async (invitation) => mailer.send(invitation.email, 'Join ' + invitation.organization.name)"],
  })),
}, {
  additionalProperties: false,
  title: 'Organizations',
  description: 'Organizations on the built-in login: members with organization roles, invitations (see organizations.md). Off unless given; `{}` turns them on with the defaults.',
  defaultText: 'off',
  examples: [{ roles: ['owner', 'admin', 'member'], allowUserToCreate: false }],
})

const MailLink = '({ user, url, token }) => void'

export const EmailVerificationSchema = Type.Object({
  required: Type.Optional(Type.Boolean({ description: 'A user who signed up (`signUp`) cannot sign in, nor get a token, until their email is verified (403 `EMAIL_NOT_VERIFIED`). Users an admin or the host creates are not held to it.', default: false, examples: [true] })),
  onSend: unsafe<AccountMailHandler>(fn(MailLink), {
    description: 'Called with each verification link to send (after sign-up, on `/send-verification-email`, and to the new address of `/change-email`): tablegate sends no mail.',
    examples: ["async ({ user, url }) => mailer.send(user.email, 'Confirm your email: ' + url)"],
  }),
}, {
  additionalProperties: false,
  title: 'Email verification',
  description: 'Email verification links (see login.md, "Accounts people manage themselves"). Off unless given.',
  defaultText: 'off',
})

export const PasswordResetSchema = Type.Object({
  expiresIn: Type.Optional(Type.Integer({ minimum: 60, maximum: 86_400, description: 'How long a reset link can be used, in seconds.', default: 3600, examples: [900] })),
  onSend: unsafe<AccountMailHandler>(fn(MailLink), {
    description: 'Called with each reset link to send (`/request-password-reset` for a known email): tablegate sends no mail.',
    examples: ["async ({ user, url }) => mailer.send(user.email, 'Reset your password: ' + url)"],
  }),
}, {
  additionalProperties: false,
  title: 'Password reset',
  description: 'Password reset by email link (see login.md, "Accounts people manage themselves"). Off unless given.',
  defaultText: 'off',
})

export const PasswordPolicySchema = Type.Object({
  minLength: Type.Optional(Type.Integer({ minimum: 8, maximum: 128, description: 'The fewest characters of a new password.', default: 12, examples: [14] })),
  maxLength: Type.Optional(Type.Integer({ minimum: 64, maximum: 1024, description: 'The most characters of a new password (OWASP: at least 64, so passphrases fit).', default: 128, examples: [256] })),
}, {
  additionalProperties: false,
  title: 'Password policy',
  description: 'The length bounds of every new password: sign-up, reset, change, and users an admin or the host creates.',
  examples: [{ minLength: 14, maxLength: 128 }],
})

export const ConfigSchema = Type.Object({
  databaseUrl: Type.Optional(Type.String({ description: 'The application database.', env: 'DATABASE_URL', defaultText: 'embedded PostgreSQL in `dataDir`', examples: ['postgres://app:secret@db.internal:5432/app'] })),
  databaseReadUrl: Type.Optional(Type.String({ description: 'Reads (one read-only statement each) go here: a read replica.', env: 'DATABASE_READ_URL', defaultText: 'the application database', examples: ['postgres://app:secret@replica.internal:5432/app'] })),
  adminDatabaseUrl: Type.Optional(Type.String({ description: 'Where the auth store lives.', env: 'ADMIN_DATABASE_URL', defaultText: 'the application database', examples: ['postgres://auth:secret@db.internal:5432/auth'] })),
  authSchema: Type.Optional(Type.String({ pattern: '^[a-z_][a-z0-9_]*$', description: 'The schema of the auth tables (`auth_user`, `auth_account`, `auth_session`, `auth_key`, `auth_rate_limit`, `auth_revocation`, and `auth_organization`, `auth_member`, `auth_invitation`, and `auth_one_time_token`). No resource may serve a table of these names, in this schema or any other.', defaultText: '`tablegate_auth` on a new database; where the store already is on the search path (an install from before), that schema', examples: ['auth'] })),
  authSecret: Type.Optional(Type.String({ minLength: 16, description: 'Signs cookies and encrypts signing keys and page tokens.', env: 'AUTH_SECRET', defaultText: 'generated into `dataDir/auth-secret` with the embedded database; required with `DATABASE_URL`', examples: ['a-long-random-secret-from-your-vault'] })),
  dataDir: Type.Optional(Type.String({ description: 'The embedded PostgreSQL\'s data, its credentials and the generated secret.', default: '.tablegate', examples: ['/var/lib/tablegate'] })),
  basePath: Type.Optional(Type.String({ pattern: '^/[A-Za-z0-9_\\-/.]*[A-Za-z0-9_\\-]$', description: 'The resource API prefix; system and login routes sit at its parent (`/api`).', default: '/api/v1', examples: ['/service/v2'] })),
  publicUrl: Type.Optional(Type.String({ description: 'The issuer and audience of tokens; its origin is trusted; https makes cookies `Secure`.', env: 'AUTH_URL', default: 'http://localhost:5173', examples: ['https://api.example.com'] })),
  trustedOrigins: Type.Optional(Type.Array(Type.String(), { description: 'More origins allowed to send cookie-authenticated POSTs and to call the API from a browser (CORS); `https://*.example.com` patterns allowed.', env: 'TRUSTED_ORIGINS (comma separated, added)', default: [], examples: [['https://app.example.com', 'https://*.example.com']] })),
  signInPerMinute: Type.Optional(Type.Integer({ minimum: 1, description: 'Sign-in attempts per minute and client (`request.ip`, see `trustProxy`).', default: 5, examples: [10] })),
  trustProxy: Type.Optional(Type.Union([Type.Boolean(), Type.Integer({ minimum: 1 }), Type.String(), Type.Array(Type.String())], {
    description: 'Which peers\' `x-forwarded-for` is believed (Fastify\'s `trustProxy`): `true`, `false`, or addresses, CIDR ranges and `loopback`/`linklocal`/`uniquelocal`; behind a public load balancer list its addresses. A hop count is refused, saying why. See login.md.',
    env: 'TRUST_PROXY (`true`, `false`, or comma separated)',
    default: ['loopback', 'uniquelocal'],
    examples: [['10.0.0.0/8', 'loopback']],
  })),
  roles: Type.Optional(Type.Union([RoleList, Type.Record(Type.String(), RoleList, { keyName: 'role' })], {
    description: 'The role list, or capability bundles `{ role: [\'orders.*\', \'*.read\', \'tasks.update.own\'] }` (see access.md); `admin` is always first.',
    default: ['admin', 'user'],
    examples: [{ manager: ['orders.*', '*.read'], clerk: ['orders.read.own', 'orders.create.own'] }],
  })),
  defaultRole: Type.Optional(Type.String({ description: 'The role of a new user created without one.', defaultText: 'the only role besides admin, if there is one', examples: ['clerk'] })),
  defaultAccess: Type.Optional(Type.Union([Type.Literal('allow'), Type.Literal('deny')], { description: 'What an operation without a rule (and without a capability, with bundles) is, for every role, admin included.', defaultText: 'allowed with a plain role list; with bundles, a matching capability', examples: ['deny'] })),
  tenant: Type.Optional(Type.String({ description: 'The fixed tenant of every caller.', defaultText: 'none', examples: ['acme'] })),
  allTenants: Type.Optional(Type.Array(Type.String(), { description: 'Service roles whose callers work across tenants (staff: support, billing, back office): without a tenant of their own they read every tenant\'s rows, and a create into a tenant column names its tenant in the body. With a tenant (an active organization) they are confined to it like anyone. See access.md#staff-across-tenants.', default: [], examples: [['support']] })),
  statementTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, description: 'The statement timeout of every request transaction; past it, 504 `statement-timeout`.', default: 15_000, examples: [5_000] })),
  bodyLimit: Type.Optional(Type.Integer({
    minimum: 1024,
    maximum: 1_073_741_824,
    description: 'The largest request body accepted, in bytes, on every route that reads a JSON body (writes, `:search`, `:batchWrite`, the login routes); a larger one is 413 `payload-too-large`. 1 MiB holds a `:search` filter of 200,000 characters and a `:batchWrite` of 500 operations of up to 2 KB each. In an app of your own (`app.register(tablegate, config)`) it holds for JSON bodies on every route, whatever the app\'s Fastify `bodyLimit` (see resources.md).',
    default: 1_048_576,
    examples: [4_194_304],
  })),
  textMaxLength: Type.Optional(Type.Integer({
    minimum: 1,
    maximum: 10_485_760,
    description: 'The most characters (code points) of a `string` field that has no `maxLength` of its own and sits on a column without a length (`text`, `citext`, `varchar` without `(n)`): a longer value is 400 `invalid-record` naming the field, and the OpenAPI document says it as the field\'s `maxLength` (see resources.md, Bounded inputs).',
    default: 65_536,
    examples: [10_000],
  })),
  serverTiming: Type.Optional(Type.Boolean({ description: 'Answer every request with a `Server-Timing` header: `auth`, `access`, `plan`, `db`, `serialize` (see operations.md).', default: false, examples: [true] })),
  console: Type.Optional(Type.Union([Type.Literal(false), Type.Object({
    path: Type.Optional(Type.String({ pattern: '^/([A-Za-z0-9._~-]+/)*$', description: 'Where the console is served: a path ending in `/`, outside the API root.', default: '/', examples: ['/console/'] })),
  }, { additionalProperties: false })], {
    description: 'The console, an admin UI that runs as the signed-in caller (see console.md): static files at `path`; `false` turns it off.',
    defaultText: 'off in the library, `{ path: \'/\' }` for `tablegate serve`',
    examples: [{ path: '/admin/' }, false],
  })),
  metrics: Type.Optional(Type.Union([Type.Literal(false), Type.Object({ role: Type.Optional(Type.String({ minLength: 1, description: 'The role that may read the metrics.', default: 'admin', examples: ['ops'] })) }, { additionalProperties: false })], {
    description: '`GET /api/metrics` (Prometheus text) for callers with `role`; `false`: no metrics route and no per-request work (see operations.md).',
    default: { role: 'admin' },
    examples: [false],
  })),
  rateLimits: Type.Optional(Type.Object({
    read: Type.Optional(Type.String({ description: 'Reads per caller: gets, lists, `:seek`, `:search`, `:changes`, `/meta`, `/openapi.json`. A budget is requests per window: `600/min`, `100/10s`, `5000/h` (units `s`, `min`, `h`, `d`).', examples: ['600/min'] })),
    write: Type.Optional(Type.String({ description: 'Writes per caller: creates, updates, deletes, `:undelete`, `:batchWrite` (one request, however many operations).', examples: ['120/min'] })),
    export: Type.Optional(Type.String({ description: '`:export`s per caller (beside `exportsPerCaller`, which bounds how many stream at once).', examples: ['10/min'] })),
    aggregate: Type.Optional(Type.String({ description: 'Aggregate routes (`:stats` and the like) per caller.', examples: ['60/min'] })),
    anonymous: Type.Optional(Type.String({ description: 'Requests without a token per client address (`request.ip`, see `trustProxy`; IPv6 by /64): the API docs and the console\'s files. The login routes have `signInPerMinute`; health checks are never limited.', examples: ['300/min'] })),
    exempt: Type.Optional(Type.Array(Type.String(), { description: 'Roles whose callers are not limited (service accounts, back office); each such request is logged, at most one line per caller and minute.', default: [], examples: [['service']] })),
  }, {
    additionalProperties: false,
    title: 'Request limits',
    description: 'How many requests one caller (user id, and the active organization where there is one) makes per operation class, counted in the database so that every process shares one budget (see rate-limits.md). Past one: 429 `too-many-requests` with `Retry-After`; every limited answer carries `RateLimit-Policy` and `RateLimit`. A class without a budget is not limited.',
    defaultText: 'off: no limits, no headers',
    examples: [{ read: '600/min', write: '120/min', export: '10/min', aggregate: '60/min', anonymous: '300/min', exempt: ['service'] }],
  })),
  exportTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, description: 'How long one `:export` may stream, in one read-only transaction (its statement timeout).', default: 600_000, examples: [1_800_000] })),
  exportsPerCaller: Type.Optional(Type.Integer({ minimum: 1, description: 'How many `:export`s one caller (user id and tenant) streams at once in one process; past it, 429 `too-many-requests` with `Retry-After`. The process also streams at most a quarter of `poolSizes.read` in all.', default: 1, examples: [2] })),
  changes: Type.Optional(Type.Object({
    retention: Type.Optional(Type.String({ pattern: '^[1-9][0-9]*(s|m|h|d)$', description: 'How long the change log keeps a change: a token older than this is 410 `changes-expired`. A number and a unit, `s`, `m`, `h` or `d`; at least 1 s. Pruned in the background at least once a minute.', default: '24h', examples: ['7d', '3s'] })),
    streamsPerCaller: Type.Optional(Type.Integer({ minimum: 1, description: 'Open change streams (Server-Sent Events and waiting long-polls) one caller (user id and tenant) holds at once in one process; past it, 429 `too-many-requests`.', default: 5, examples: [10] })),
    streamsPerProcess: Type.Optional(Type.Integer({ minimum: 1, description: 'Open change streams one process holds in all; past it, 503 `service-unavailable` with `Retry-After`.', default: 2000, examples: [5000] })),
    heartbeatSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 300, description: 'How often a stream sends a comment line (with its newest resume id where it moved on without an event for the caller), so proxies keep it open.', default: 15, examples: [30] })),
    pollMs: Type.Optional(Type.Integer({ minimum: 10, maximum: 60_000, description: 'How often a process reads the change log when no `NOTIFY` woke it: the delivery delay where `LISTEN` cannot run (a transaction pooler without `DATABASE_LISTEN_URL`), and a safety net beside it.', default: 1_000, examples: [250] })),
    listenUrl: Type.Optional(Type.String({ description: 'A direct connection (not through a transaction pooler) on which the process LISTENs for new changes. Without it the process listens on `DATABASE_URL` unless `databasePooler` says that is a pooler, and polls otherwise.', env: 'DATABASE_LISTEN_URL', examples: ['postgres://app@db:5432/shop'] })),
  }, { additionalProperties: false, title: 'Change feed settings', description: 'The change log and the streams that follow it (see changes.md).', examples: [{ retention: '7d', streamsPerCaller: 10 }] })),
  revocationPollMs: Type.Optional(Type.Integer({ minimum: 50, maximum: 10_000, description: 'How often each process reads new bans, deletions and role changes that void or limit tokens issued before them.', default: 5_000, examples: [1_000] })),
  poolSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'The connections of each application pool (writes, reads) of one process; a request that finds none free within `connectTimeoutMs` is a 503. For N processes see deployment.md.', env: 'DATABASE_POOL_SIZE', default: 10, examples: [20] })),
  poolSizes: Type.Optional(Type.Object({
    write: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'The write pool.', defaultText: '`poolSize`', examples: [10] })),
    read: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'The read pool (on `databaseReadUrl` when given).', defaultText: '`poolSize`', examples: [20] })),
    auth: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'The auth store\'s pool (on `adminDatabaseUrl` when given).', default: 3, examples: [5] })),
  }, { additionalProperties: false, title: 'Pool sizes', description: 'Each pool\'s own size, over `poolSize`.', defaultText: '`poolSize` for writes and reads, 3 for the auth store', examples: [{ read: 30, auth: 2 }] })),
  databasePooler: Type.Optional(Type.Union([Type.Literal('none'), Type.Literal('transaction')], { description: '`transaction`: the database URLs lead to a transaction pooler (PgBouncer, pgcat, Supavisor), so nothing is kept in the session: no startup settings, unnamed statements, the statement timeout sent with every transaction (see deployment.md).', env: 'DATABASE_POOLER', default: 'none', examples: ['transaction'] })),
  connectTimeoutMs: Type.Optional(Type.Integer({ minimum: 1, description: 'How long a request waits for a database connection (a new one, or a free one of a busy pool); past it, 503 `service-unavailable` with `Retry-After`. The client also gives up on an answer 5 s after `statementTimeoutMs`.', default: 5_000, examples: [2_000] })),
  scanGuard: Type.Optional(ScanGuardSchema),
  rowPermissions: Type.Optional(Type.Union([Type.Boolean(), Type.Object({ except: Type.Array(Type.String(), { description: 'Resources whose records carry no `permissions`.' }) }, { additionalProperties: false })], {
    description: 'Records carry `permissions` (what the caller may do with each); `false` turns them off, `{ except }` for some resources.',
    default: true,
    examples: [{ except: ['orders'] }],
  })),
  onUnhandledError: Type.Optional(unsafe<UnhandledErrorHandler>(fn('(err, request) => void'), {
    description: 'Called for every 500, after it is logged; what it throws is logged too, never answered.',
    examples: ['(err, request) => errorTracker.capture(err, { url: request.url })'],
  })),
  verifier: Type.Optional(VerifierSchema),
  organizations: Type.Optional(OrganizationsSchema),
  signUp: Type.Optional(Type.Union([Type.Literal(false), Type.Literal('invitation'), Type.Literal('open')], {
    description: 'Who may create their own account at `POST /api/auth/sign-up/email`: nobody (`false`), only an email holding a pending organization invitation (`\'invitation\'`), or anyone (`\'open\'`). New users get `defaultRole`, never `admin`.',
    default: false,
    examples: ['invitation'],
  })),
  onExistingUserSignUp: Type.Optional(unsafe<ExistingUserSignUpHandler>(fn('({ user }) => void'), {
    description: 'Called when someone signs up with an email that already has an account (the answer is the same as for a new email, so the owner is told here instead: "someone tried to sign up with your address").',
    defaultText: 'none',
    examples: ["async ({ user }) => mailer.send(user.email, 'Someone tried to sign up with your email')"],
  })),
  emailVerification: Type.Optional(EmailVerificationSchema),
  passwordReset: Type.Optional(PasswordResetSchema),
  passwordPolicy: Type.Optional(PasswordPolicySchema),
  migrateOnStart: Type.Optional(Type.Boolean({ description: 'Run the (idempotent) auth store migration and the application `migrations` when the server starts.', default: true, examples: [false] })),
  migrations: Type.Optional(Type.String({ description: 'A directory of application `.sql` files, applied once each in name order by `tablegate migrate` and at start.', defaultText: 'none', examples: ['./migrations'] })),
  plugins: Type.Optional(Type.Array(Type.Unsafe<PluginEntry>(Type.Union([fn('plugin'), Type.Tuple([fn('plugin'), Type.Any()])])), {
    description: 'Fastify plugins registered after tablegate: `plugin` or `[plugin, options]` (how `tablegate serve` gets the audit log or your hooks; see plugins.md).',
    default: [],
    examples: ["[auditLog, [myHooks, { notify: 'ops@example.com' }]]"],
  })),
  logger: Type.Optional(Type.Union([Type.Boolean(), Type.Record(Type.String(), Type.Any())], {
    description: 'Fastify logger options; `false` silences `serve` (see operations.md).',
    defaultText: 'off in the library, `info` for `tablegate serve`',
    examples: [{ level: 'debug' }],
  })),
  resources: Type.Optional(Type.Record(Type.String(), ResourceSchema, { keyName: 'resource', description: 'The resources by name (the name is the URL segment).', default: {}, examples: [{ orders: { fields: { id: { type: 'bigint', readOnly: true, dbDefault: true }, title: { type: 'string', required: true } } } }] })),
  views: Type.Optional(ViewsSchema),
  pages: Type.Optional(Type.Array(PageSchema, { description: 'Pages for clients, served by `/api/meta` with what each caller may do on them (see meta.md).' })),
  userMenu: Type.Optional(Type.Array(MenuEntrySchema, { description: 'The user menu for clients: resources and pages, in order; entries the caller cannot use are left out. Without it, each caller\'s menu in `/api/meta` is every resource they may read, in the order of `resources`.', examples: [[{ resource: 'orders' }, { page: 'overview', label: 'Home' }]] })),
}, {
  additionalProperties: false,
  title: 'Top-level keys',
  description: 'The default export of the config file.',
  examples: [{
    databaseUrl: 'postgres://app:secret@db.internal:5432/app',
    publicUrl: 'https://api.example.com',
    roles: { member: ['tasks.read.own', 'tasks.create.own', 'tasks.update.own', 'projects.read'], auditor: ['*.read'] },
    defaultRole: 'member',
    resources: {
      projects: { fields: { id: { type: 'integer', readOnly: true, dbDefault: true }, name: { type: 'string', required: true, maxLength: 100 } } },
      tasks: {
        owner: 'owner_id',
        softDelete: 'deleted_at',
        fields: {
          id: { type: 'integer', readOnly: true, dbDefault: true },
          title: { type: 'string', required: true, maxLength: 200, searchable: true },
          due: { type: 'date' },
          priority: { type: 'integer', minimum: 1, maximum: 5, default: 3 },
          project_id: { type: 'integer', references: 'projects' },
          owner_id: { type: 'string', readOnly: true },
        },
        access: { fields: { owner_id: { read: ['admin', 'auditor'] } } },
      },
    },
  }],
})

export type Config = Static<typeof ConfigSchema>
export type ResourceConfig = Static<typeof ResourceSchema>
export type FieldConfig = Static<typeof FieldSchema>
export type VerifierConfig = Static<typeof VerifierSchema>
export type OrganizationsConfig = Static<typeof OrganizationsSchema>
