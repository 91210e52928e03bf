// An export's text reaches the socket in chunks of bounded size whatever the rows' width: a chunk
// over 128 KiB would be a string in V8's large-object space, freed only by a full collection, so
// the server's memory would grow with the row count (benchmarks/export.ts measures the RSS).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer } from '../helpers/app.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE notes (id serial PRIMARY KEY, body text NOT NULL);
  INSERT INTO notes (body) SELECT repeat(chr(97 + n % 26), 1000) FROM generate_series(1, 3000) AS n;
`)
const app = await buildApp({ databaseUrl, resources: { notes: { fields: { id: { type: 'integer', readOnly: true }, body: { type: 'string' } } } } })
await createUser(app, 'admin@example.com')
const auth = await bearer(app, 'admin@example.com')

for (const format of ['ndjson', 'csv'] as const) {
  test(`${format}: 3 MB of rows in chunks of at most 64 KiB, every row once, in order`, async () => {
    const response = await app.inject({ method: 'GET', url: `/api/v1/notes:export?format=${format}`, headers: auth, payloadAsStream: true })
    assert.equal(response.statusCode, 200)
    const chunks: Buffer[] = []
    await new Promise<void>((resolve, reject) => {
      const stream = response.stream()
      stream.on('data', (chunk: Buffer) => { chunks.push(chunk) }).on('end', resolve).on('error', reject)
    })
    const sizes = chunks.map((c) => c.length)
    assert.ok(Math.max(...sizes) <= 64 * 1024, `largest chunk ${Math.max(...sizes)} bytes`)
    assert.ok(chunks.length >= 40, `${chunks.length} chunks`)
    const lines = Buffer.concat(chunks).toString('utf8').split(format === 'csv' ? '\r\n' : '\n').filter((l) => l !== '')
    const rows = format === 'csv' ? lines.slice(1) : lines
    assert.equal(rows.length, 3000)
    assert.equal(rows[2], format === 'csv' ? `3,${'d'.repeat(1000)}` : `{"id":3,"body":"${'d'.repeat(1000)}"}`)
  })
}
