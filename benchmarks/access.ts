// `npm run bench:access`: what access control and row permissions add to a list page of 50, on one
// table, through HTTP inject with a real token: no rules; a row filter and a hidden field; and the
// same with permissions decided row by row (an update rule unlike the read rule).
import { cpus } from 'node:os'
import pg from 'pg'
import { benchDatabase } from './database.js'
import { createServer } from '../lib/server.js'
import type { Config } from '../lib/config/schema.js'

const RUNS = 3000
const database = await benchDatabase()
const databaseUrl = database.url
const fields: NonNullable<Config['resources']>[string]['fields'] = {
  id: { type: 'bigint', readOnly: true },
  title: { type: 'string' },
  status: { type: 'string' },
  owner_id: { type: 'string' },
  cost: { type: 'decimal' },
}
const variants: Array<[string, Config]> = [
  ['no access rules, no permissions', { rowPermissions: false, resources: { items: { fields } } }],
  ['row filter + hidden field, no permissions', {
    rowPermissions: false,
    resources: { items: { owner: 'owner_id', fields, access: { read: (ctx) => ({ filter: { owner_id: ctx.user.id } }), fields: { cost: { read: ['admin'] } } } } },
  }],
  ['row filter + hidden field + permissions', {
    resources: {
      items: {
        owner: 'owner_id',
        fields,
        access: {
          read: (ctx) => ({ filter: { owner_id: ctx.user.id } }),
          update: (ctx) => ({ filter: `owner_id = "${ctx.user.id}" AND status != locked` }),
          fields: { cost: { read: ['admin'] } },
        },
      },
    },
  }],
]

const db = new pg.Client({ connectionString: databaseUrl })
await db.connect()
const ROUNDS = 3
const apps: Array<{ name: string, app: Awaited<ReturnType<typeof createServer>>, request: () => Promise<void> }> = []
try {
  for (const [index, [name, config]] of variants.entries()) {
    // Each variant has its own table, so all three apps live side by side and alternate.
    const table = `items_${index}`
    await db.query(`CREATE TABLE ${table} (id bigserial PRIMARY KEY, title text NOT NULL, status text NOT NULL, owner_id text, cost numeric)`)
    const resources = Object.fromEntries(Object.entries(config.resources!).map(([, r]) => [table, r]))
    const app = await createServer({ databaseUrl, authSecret: 'bench-secret-0123456789abcdef', ...config, resources })
    const users = app.tablegate.users!
    if (!(await users.hasUsers())) await users.create({ email: 'admin@example.com', password: 'correct-horse-battery' })
    const user = await users.findByEmail('bench@example.com') ?? await users.create({ email: 'bench@example.com', password: 'correct-horse-battery', role: 'user' })
    await db.query(`INSERT INTO ${table} (title, status, owner_id, cost) SELECT 'Item ' || n, (ARRAY['draft', 'open', 'locked'])[1 + n % 3], $1, n FROM generate_series(1, 10000) n`, [user.id])
    await db.query(`ANALYZE ${table}`)
    const { token } = await users.issueToken('bench@example.com', { ttlSeconds: 3600 })
    apps.push({
      name,
      app,
      request: async () => {
        const response = await app.inject({ method: 'GET', url: `/api/v1/${table}?page_size=50`, headers: { authorization: `Bearer ${token}` } })
        if (response.statusCode !== 200) throw new Error(`${name}: ${response.statusCode} ${response.body}`)
      },
    })
  }
  for (const { request } of apps) for (let i = 0; i < 1000; i++) await request()
  const times = apps.map(() => [] as number[])
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, { request }] of apps.entries()) {
      const start = process.hrtime.bigint()
      for (let n = 0; n < RUNS; n++) await request()
      times[i]!.push(Number(process.hrtime.bigint() - start) / 1000 / RUNS)
    }
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}; list page of 50; ${RUNS} sequential requests × ${ROUNDS} alternating rounds, median`)
  const baseline = median(times[0]!)
  apps.forEach(({ name }, i) => {
    const us = median(times[i]!)
    console.log(`${name.padEnd(44)} ${us.toFixed(0).padStart(5)} µs/request${i === 0 ? '' : `   ${us >= baseline ? '+' : ''}${(us - baseline).toFixed(0)} µs`}`)
  })
} finally {
  for (const { app } of apps) await app.close()
  await db.end()
  await database.stop()
}
