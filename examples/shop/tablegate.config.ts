// The example shop served by `npm start`: schema and seed from ./migrations, the built-in audit
// log, a custom write hook, customers ↔ orders ↔ order lines as relations (docs/relations.md), and
// organizations whose projects are theirs alone (docs/organizations.md; README's walk-through
// makes two of them), which people join by invitation, signing up themselves (docs/login.md,
// "Accounts people manage themselves"), with the mails logged (./mail.ts).
import { fileURLToPath } from 'node:url'
import { auditLog, defineConfig } from 'tablegate'
import shopRules from './rules.js'
import { logMail } from './mail.js'

// Every signed-in role does anything with the shop's own tables, as with a plain role list.
const shop = ['customers.*', 'orders.*', 'order_lines.*']

export default defineConfig({
  migrations: fileURLToPath(new URL('./migrations', import.meta.url)),
  // Capability bundles (docs/access.md), so organization roles can add to them.
  roles: { admin: ['*'], manager: shop, user: shop },
  defaultRole: 'user',
  // Projects come from the organization role alone: a member reads and creates its
  // organization's projects, its admins and owners also update and delete them.
  organizations: {
    roleCapabilities: {
      member: ['projects.read', 'projects.create'],
      admin: ['projects.*'],
      owner: ['projects.*'],
    },
    onInvitation: (invitation) => {
      logMail(invitation.email, `Join ${invitation.organization.name}`, `http://localhost:5173/ (sign up with this address, then accept invitation ${invitation.id})`)
    },
  },
  // Only an invited email may sign up; it joins the organization by accepting the invitation.
  signUp: 'invitation',
  emailVerification: { onSend: ({ user, url }) => { logMail(user.email, 'Confirm your email', url) } },
  passwordReset: { onSend: ({ user, url }) => { logMail(user.email, 'Reset your password', url) } },
  // The audit log, readable by admins at /api/v1/audit_log.
  plugins: [[auditLog, { resource: 'audit_log' }], shopRules],
  resources: {
    customers: {
      fields: {
        id: { type: 'bigint', readOnly: true, dbDefault: true },
        name: { type: 'string', required: true, maxLength: 200, searchable: true },
        email: { type: 'string', maxLength: 320 },
        created_at: { type: 'timestamp', readOnly: true, dbDefault: true },
      },
      relations: { orders: { resource: 'orders', by: 'customer_id', orderBy: 'placed_at desc' } },
    },
    orders: {
      softDelete: 'deleted_at',
      version: 'version',
      fields: {
        id: { type: 'bigint', readOnly: true, dbDefault: true },
        customer_id: { type: 'bigint', references: 'customers' },
        title: { type: 'string', required: true, maxLength: 200, searchable: true },
        status: { type: 'string', enum: ['draft', 'open', 'locked'], default: 'draft' },
        total: { type: 'decimal' },
        position: { type: 'integer' },
        placed_at: { type: 'timestamp' },
      },
      relations: {
        customer: { field: 'customer_id' },
        lines: { resource: 'order_lines', by: 'order_id', orderBy: 'position' },
      },
    },
    projects: {
      // The caller's active organization: rows of another organization do not exist for them.
      tenant: 'org_id',
      fields: {
        id: { type: 'bigint', readOnly: true, dbDefault: true },
        name: { type: 'string', required: true, maxLength: 200, searchable: true },
        budget: { type: 'decimal' },
        created_at: { type: 'timestamp', readOnly: true, dbDefault: true },
      },
    },
    order_lines: {
      fields: {
        id: { type: 'bigint', readOnly: true, dbDefault: true },
        order_id: { type: 'bigint', required: true, references: 'orders' },
        position: { type: 'integer', required: true },
        sku: { type: 'string', required: true, maxLength: 40 },
        quantity: { type: 'integer', default: 1, minimum: 1 },
        price: { type: 'decimal' },
      },
    },
  },
  // What the console (docs/console.md) shows: each role gets these with its hidden fields taken out.
  views: {
    orders: {
      columns: ['title', 'customer_id', 'status', 'total', 'placed_at'],
      sort: 'placed_at desc',
      search: ['title'],
      filters: ['status', 'customer_id'],
      layout: [['title', 'status'], ['customer_id', 'total'], ['placed_at', 'position']],
      chart: { type: 'bar', x: 'status', y: 'total' },
      title: '{title}',
      nav: { recent: { field: 'placed_at', label: 'Latest orders' } },
    },
    customers: { columns: ['name', 'email', 'created_at'], sort: 'name', search: ['name'], title: '{name}' },
    order_lines: { columns: ['order_id', 'position', 'sku', 'quantity', 'price'], sort: 'order_id, position', title: '{sku}' },
    projects: { columns: ['name', 'budget', 'created_at'], sort: 'name', search: ['name'], title: '{name}' },
  },
  pages: [{
    name: 'dashboard',
    title: 'Dashboard',
    elements: [
      { type: 'chart', resource: 'orders' },
      { type: 'table', resource: 'orders', columns: ['title', 'status', 'total'] },
      { type: 'button', resource: 'orders', action: 'create', label: 'New order' },
    ],
  }],
  userMenu: [
    { page: 'dashboard' },
    { resource: 'orders' },
    { resource: 'customers' },
    { resource: 'order_lines', label: 'Order lines' },
    { resource: 'projects' },
    { resource: 'audit_log', label: 'Audit log' },
  ],
})
