// The example shop served by `npm start`: schema and seed from ./migrations, the built-in audit
// log, a custom write hook, and customers ↔ orders ↔ order lines as relations (docs/relations.md).
import { fileURLToPath } from 'node:url'
import { auditLog, defineConfig } from 'tablegate'
import shopRules from './rules.js'

export default defineConfig({
  migrations: fileURLToPath(new URL('./migrations', import.meta.url)),
  roles: ['admin', 'manager', 'user'],
  defaultRole: 'user',
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
})
