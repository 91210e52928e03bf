// `npm run bench:init`: `tablegate init` on a database of 200 tables (20 columns each: keys,
// lengths, enum and domain columns, CHECK constraints of each shape, a foreign key to the table
// before), read and written by initConfig as the command does. Prints the time of each of a few
// runs (the catalog is read in five queries, whatever the number of tables) and checks that every
// run writes the same bytes.
import { performance } from 'node:perf_hooks'
import pg from 'pg'
import { benchDatabase } from './database.js'
import { initConfig } from '../lib/init/index.js'

const TABLES = 200
const database = await benchDatabase()
const db = new pg.Pool({ connectionString: database.url, max: 1 })
try {
  const statements = [
    "CREATE TYPE bench_state AS ENUM ('new', 'open', 'closed')",
    'CREATE DOMAIN bench_score AS integer CHECK (VALUE BETWEEN 0 AND 100)',
  ]
  for (let n = 1; n <= TABLES; n++) {
    statements.push(`CREATE TABLE bench_${n} (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      ${n > 1 ? `parent_id bigint REFERENCES bench_${n - 1},` : ''}
      title varchar(200) NOT NULL,
      state bench_state NOT NULL DEFAULT 'new',
      score bench_score,
      kind text CHECK (kind IN ('a', 'b', 'c')),
      qty integer CHECK (qty >= 0 AND qty <= 1000),
      price numeric(12, 2),
      ratio double precision,
      flag boolean NOT NULL DEFAULT false,
      born date,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz,
      deleted_at timestamptz,
      owner_id text,
      tenant_id text,
      ref uuid,
      data jsonb,
      search tsvector,
      note text CHECK (note ~ '^[a-z]')
    )`)
  }
  await db.query(statements.join(';\n'))
  let first: string | undefined
  for (let run = 1; run <= 3; run++) {
    const started = performance.now()
    const text = await initConfig(db)
    const ms = performance.now() - started
    first ??= text
    if (text !== first) throw new Error('a rerun wrote different bytes')
    console.log(`run ${run}: ${TABLES} tables read and written in ${ms.toFixed(0)} ms (${(text.length / 1024).toFixed(0)} KiB of config)`)
  }
} finally {
  await db.end()
  await database.stop()
}
