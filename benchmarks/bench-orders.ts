// The fields of the benchmarks' `bench_orders` table that every benchmark serves.
import type { FieldConfig } from '../lib/config/schema.js'

export const ORDER_FIELDS: Record<string, FieldConfig> = {
  id: { type: 'bigint', readOnly: true, dbDefault: true },
  title: { type: 'string', required: true },
  status: { type: 'string' },
  total: { type: 'decimal' },
  placed_at: { type: 'timestamp' },
}
