// The benchmarks' `bench_orders` table: its seeding, and the fields every benchmark serves.
import type pg from 'pg'
import type { FieldConfig } from '../lib/config/schema.js'

export const ORDER_FIELDS: Record<string, FieldConfig> = {
  id: { type: 'bigint', readOnly: true, dbDefault: true },
  title: { type: 'string', required: true },
  status: { type: 'string' },
  total: { type: 'decimal' },
  placed_at: { type: 'timestamp' },
}

/**
 * `bench_orders` (and an empty `bench_customers`) with `rows` rows owned by `owner`, the indexes the scenarios use (status and
 * placed_at for filter + sort, owner for the row filter), and fresh statistics.
 */
export async function seedOrders (db: pg.Pool | pg.Client, rows: number, owner: string | null = null): Promise<void> {
  await db.query(`DROP TABLE IF EXISTS bench_orders;
    CREATE TABLE bench_orders (id bigserial PRIMARY KEY, title text NOT NULL, status text NOT NULL DEFAULT 'draft',
      total numeric(12, 2), placed_at timestamptz, owner_id text, cost numeric(12, 2), version integer NOT NULL DEFAULT 1)`)
  await db.query(`INSERT INTO bench_orders (title, status, total, placed_at, owner_id, cost)
    SELECT 'Order ' || n, (ARRAY['draft', 'open', 'locked'])[1 + n % 3], (n % 1000) * 1.25, timestamptz '2026-01-01' + n * interval '1 minute', $2, n % 97
    FROM generate_series(1, $1::int) AS n`, [rows, owner])
  await db.query('CREATE INDEX bench_orders_status_placed ON bench_orders (status, placed_at DESC, id DESC)')
  await db.query('CREATE INDEX bench_orders_owner ON bench_orders (owner_id, id)')
  // Vacuumed as autovacuum leaves a settled table: its visibility map set, so a count over the
  // owner index (the estimate of a row-filtered list) reads the index alone.
  await db.query('VACUUM (ANALYZE) bench_orders')
  // Another resource, for hooks that hear of other writes than the ones measured.
  await db.query('DROP TABLE IF EXISTS bench_customers; CREATE TABLE bench_customers (id bigserial PRIMARY KEY, name text NOT NULL)')
}

/** `bench_cards`: `count` cards numbered 1..count by a unique, non-deferrable `position`, for reorders. */
export async function seedCards (db: pg.Pool | pg.Client, count: number): Promise<void> {
  await db.query(`DROP TABLE IF EXISTS bench_cards;
    CREATE TABLE bench_cards (id serial PRIMARY KEY, title text NOT NULL, position integer NOT NULL UNIQUE, version integer NOT NULL DEFAULT 1)`)
  await db.query("INSERT INTO bench_cards (title, position) SELECT 'card ' || n, n FROM generate_series(1, $1::int) AS n", [count])
}

export const CUSTOMERS = 10_000
export const LINES_PER_ORDER = 5
/** Customers live in this many countries, 40 customers (400 orders) each: a selective filter value. */
export const RELATION_COUNTRIES = 250

/** The code of country `k` (0 ≤ k < RELATION_COUNTRIES): AA, AB, …, as seedRelations writes it. */
export function relationCountry (k: number): string {
  return String.fromCharCode(65 + Math.floor(k / 26), 65 + (k % 26))
}

/**
 * The relations of `bench_orders` (which seedOrders made): `bench_customers` with `CUSTOMERS` rows
 * in RELATION_COUNTRIES countries, each order's `customer_id` among them, and `bench_order_lines`,
 * `LINES_PER_ORDER` per order; each foreign key indexed as tablegate's startup check asks (the
 * lines' as the scan guard names it for the embed: `by`, the relation's order, the key, so each
 * order's lines are read in order with no sort), and the customers' country, so that a filter on
 * it reads a few customers and their orders.
 */
export async function seedRelations (db: pg.Pool | pg.Client): Promise<void> {
  await db.query(`ALTER TABLE bench_customers ADD COLUMN country text NOT NULL DEFAULT 'DE';
    INSERT INTO bench_customers (name, country)
      SELECT 'Customer ' || n, chr(65 + (n % ${RELATION_COUNTRIES}) / 26) || chr(65 + (n % ${RELATION_COUNTRIES}) % 26) FROM generate_series(1, ${CUSTOMERS}) AS n;
    CREATE INDEX bench_customers_country ON bench_customers (country)`)
  await db.query(`ALTER TABLE bench_orders ADD COLUMN customer_id bigint;
    UPDATE bench_orders SET customer_id = 1 + id % ${CUSTOMERS};
    CREATE INDEX bench_orders_customer ON bench_orders (customer_id)`)
  await db.query(`DROP TABLE IF EXISTS bench_order_lines;
    CREATE TABLE bench_order_lines (id bigserial PRIMARY KEY, order_id bigint NOT NULL, position integer NOT NULL, sku text NOT NULL, quantity integer NOT NULL);
    INSERT INTO bench_order_lines (order_id, position, sku, quantity)
      SELECT o.id, p, 'SKU-' || (o.id * 7 + p) % 5000, 1 + p FROM bench_orders o, generate_series(1, ${LINES_PER_ORDER}) AS p;
    CREATE INDEX bench_order_lines_order ON bench_order_lines (order_id, position, id)`)
  await db.query('VACUUM (ANALYZE) bench_customers, bench_orders, bench_order_lines')
}
