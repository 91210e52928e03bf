// Type tests of `defineConfig`: compiled by `npm test` (tsc over test/), never run. The first
// configs must compile as written; each `@ts-expect-error` marks a mistake that must not.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { auditLog, defineConfig, type FieldRule, type Rule } from '../../lib/index.js'

const reported: string[] = []

async function stamp (app: FastifyInstance, options: { readonly header: string }): Promise<void> {
  app.addHook('onSend', async (_request, reply) => { reply.header(options.header, '1') })
}

function ping (app: FastifyInstance, _options: Record<string, never>, done: (err?: Error) => void): void {
  app.get('/ping', async () => 'pong')
  done()
}

// Rules kept apart from the config are typed by the exported rule types.
const ownRows: Rule = (ctx) => ({ filter: { owner_id: ctx.user.id } })
const adminsOnly: FieldRule = (ctx) => ctx.user.roles.includes('admin')

// No parameter below is annotated: each takes its type from `defineConfig`.
export const shop = defineConfig({
  roles: ['admin', 'manager', 'user'],
  defaultRole: 'user',
  onUnhandledError: (err, request) => { reported.push(`${request.method} ${request.url}: ${String(err)}`) },
  plugins: [auditLog, [auditLog, { table: 'audit.orders_log' }], [stamp, { header: 'x-shop' }], ping],
  resources: {
    orders: {
      softDelete: 'deleted_at',
      owner: 'owner_id',
      version: 'version',
      fields: {
        id: { type: 'bigint', readOnly: true, dbDefault: true },
        owner_id: { type: 'string' },
        title: { type: 'string', required: true, maxLength: 200, searchable: true },
        status: { type: 'string', enum: ['draft', 'open', 'locked'], default: 'draft' },
        total: { type: 'decimal' },
        cost: { type: 'decimal' },
      },
      validate: async (record, ctx) => {
        const issues = []
        if (ctx.operation === 'create' && record.title === '') issues.push({ field: 'title', message: 'A title is required.' })
        if (record.total === '0' && !ctx.user.roles.includes('admin')) issues.push({ field: 'total', code: 'zero', message: 'Only admins may set a zero total.' })
        return issues
      },
      access: {
        read: (ctx) => ctx.user.roles.includes('manager') || { filter: { owner_id: ctx.user.id } },
        create: ['admin', 'manager', 'user'],
        update: (ctx) => ctx.tenant === undefined ? { filter: 'status != "locked"' } : { check: (record) => record.status !== 'locked' },
        delete: { check: async (record, ctx) => ctx.user.roles.includes('admin') || { filter: { owner_id: ctx.user.id, status: 'draft' } } },
        undelete: ownRows,
        fields: {
          cost: { read: ['admin', 'manager'], write: (ctx) => ctx.user.roles.includes('admin') },
          status: { read: true, write: adminsOnly },
        },
      },
    },
    tags: {
      table: 'shop.tags',
      key: ['scope', 'name'],
      fields: { scope: { type: 'string' }, name: { type: 'string' } },
      validate: (record) => record.name === '' ? [{ field: 'name', message: 'A tag needs a name.' }] : [],
      access: { read: true, create: (ctx) => ctx.resource === 'tags', update: false, delete: { filter: { scope: 'public' } } },
    },
  },
})

export const bundles = defineConfig({
  roles: { manager: ['orders.*', '*.read'], user: ['orders.read.own', 'orders.create.own'] },
  defaultAccess: 'deny',
  resources: { orders: { owner: 'owner_id', fields: { id: { type: 'bigint', readOnly: true }, owner_id: { type: 'string' } } } },
})

const fields = { id: { type: 'bigint' as const } }

defineConfig({ resources: { orders: { fields, access: {
  // @ts-expect-error: the context has `user`, not `usr`
  read: (ctx) => ctx.usr.roles.includes('x'),
} } } })

defineConfig({ resources: { orders: { fields, access: {
  // @ts-expect-error: a user has `roles`
  read: (ctx) => ctx.user.rolez.includes('x'),
} } } })

defineConfig({ resources: { orders: { fields, access: {
  // @ts-expect-error: a rule answers a boolean, { filter } or { check }
  read: () => 'yes',
} } } })

defineConfig({ resources: { orders: { fields, access: {
  // @ts-expect-error: a check answers a boolean or { filter }
  delete: { check: () => 1 },
} } } })

defineConfig({ resources: { orders: { fields,
  // @ts-expect-error: validate answers a list of issues
  validate: () => 'total is wrong',
} } })

defineConfig({ resources: { orders: { fields, access: { fields: { id: {
  // @ts-expect-error: a field rule decides the whole field: no row filter
  read: (ctx) => ({ filter: { owner_id: ctx.user.id } }),
} } } } } })

defineConfig({ resources: { orders: { fields: {
  // @ts-expect-error: no field type `text`
  title: { type: 'text' },
} } } })

defineConfig({
  // @ts-expect-error: onUnhandledError gets the error and the request, nothing more
  onUnhandledError: (_err: unknown, _request: FastifyRequest, _reply: FastifyReply) => {},
})

defineConfig({
  // @ts-expect-error: a plugin entry is a plugin or [plugin, options]
  plugins: [42],
})

defineConfig({ resources: { orders: { fields,
  // @ts-expect-error: the option is `softDelete`
  sofDelete: 'deleted_at',
} } })

export const withOrganizations = defineConfig({
  organizations: {
    roles: ['owner', 'admin', 'member'],
    onInvitation: async (invitation) => { reported.push(`${invitation.email} to ${invitation.organization.slug} as ${invitation.role} until ${invitation.expiresAt.toISOString()}`) },
  },
})

defineConfig({ organizations: {
  // @ts-expect-error: an invitation names its organization as { id, name, slug }
  onInvitation: (invitation) => { reported.push(invitation.organization.toUpperCase()) },
} })
