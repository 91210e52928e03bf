// :series in zones whose clocks change, on every supported PostgreSQL (CI runs this on 14 and 18):
// each answer's buckets are compared with plain SQL over the same rows, the buckets being every
// distinct date_trunc(granularity, instant, zone) between `from` and `to` (found by sampling the
// window every 15 minutes, every hour for buckets of a day and longer) and the counts a GROUP BY of the rows' own date_trunc. Every granularity,
// every range, and `from`/`to` as wall times and as instants, across the spring and autumn changes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'

const databaseUrl = await freshDatabase()
// Rows every 3h07 from 2022 to 2027, every 2h11 back from now for 440 days (the ranges), and every
// 10 minutes through the nights Berlin, New York and Santiago change their clocks. `day` is the UTC
// date of `at`, for a date field.
await runSql(databaseUrl, `
CREATE TABLE events (id serial PRIMARY KEY, at timestamptz NOT NULL, day date NOT NULL);
INSERT INTO events (at, day)
SELECT at, (at AT TIME ZONE 'UTC')::date FROM (
  SELECT generate_series(timestamptz '2022-01-01 00:00Z', timestamptz '2027-01-01 00:00Z', interval '3 hours 7 minutes') AS at
  UNION ALL SELECT now() - n * interval '2 hours 11 minutes' FROM generate_series(0, 4835) AS n
  UNION ALL SELECT generate_series(night, night + interval '8 hours', interval '10 minutes') FROM unnest(ARRAY[
    timestamptz '2025-03-29 22:00Z', timestamptz '2025-10-25 22:00Z',
    timestamptz '2025-03-09 03:00Z', timestamptz '2025-11-02 03:00Z',
    timestamptz '2024-09-07 23:00Z', timestamptz '2025-04-05 23:00Z'
  ]) AS night
) AS rows;
`)
const app = await buildApp({
  databaseUrl,
  roles: ['admin'],
  resources: { events: { fields: { id: { type: 'integer', readOnly: true }, at: { type: 'timestamp' }, day: { type: 'date' } } } },
})
await createUser(app, 'admin@example.com', 'admin')
const asAdmin = caller(app, await bearer(app, 'admin@example.com'))

interface Series { granularity: string, from: string, to: string, buckets: Array<{ start: string, count: number }> }

/** The buckets plain SQL finds for [from, to): every bucket start in the window, with its rows counted. */
async function plainBuckets (field: 'at' | 'day', granularity: string, zone: string, from: string, to: string): Promise<Array<[number, number]>> {
  const value = field === 'at' ? 'at' : '(day::timestamp AT TIME ZONE $2)'
  return await withClient(databaseUrl, async (client) => (await client.query<{ start: Date, count: string }>(`
    WITH "starts" AS (
      SELECT DISTINCT date_trunc($1, sample, $2) AS start FROM generate_series($3::timestamptz, $4::timestamptz - interval '1 microsecond', $5::interval) AS sample
    ), "counted" AS (
      SELECT date_trunc($1, ${value}, $2) AS start, count(*) AS count FROM events WHERE ${value} >= $3 AND ${value} < $4 GROUP BY 1
    )
    SELECT "starts".start, coalesce("counted".count, 0) AS count FROM "starts" LEFT JOIN "counted" USING (start) ORDER BY 1`,
  [granularity, zone, from, to, granularity === 'hour' ? '15 minutes' : '1 hour'])).rows.map((row) => [row.start.getTime(), Number(row.count)]))
}

async function series (query: string): Promise<Series> {
  const response = await asAdmin('GET', `/api/v1/events:series?${query}`)
  assert.equal(response.status, 200, `${query}: ${JSON.stringify(response.body)}`)
  return response.body as Series
}

async function assertPlain (query: string, field: 'at' | 'day', zone: string): Promise<Series> {
  const answer = await series(`field=${field}&time_zone=${encodeURIComponent(zone)}&${query}`)
  const expected = await plainBuckets(field, answer.granularity, zone, answer.from, answer.to)
  assert.ok(expected.length > 1, `${zone} ${query}: a window of one bucket proves little`)
  assert.deepEqual(answer.buckets.map((b) => [Date.parse(b.start), b.count]), expected, `${zone} ${query}`)
  return answer
}

/** A bucket start as plain SQL truncates an instant, for the bounds of a range. */
async function truncated (granularity: string, zone: string, instant: string): Promise<number> {
  return await withClient(databaseUrl, async (client) => (await client.query<{ start: Date }>(
    `SELECT date_trunc($1, ${instant}, $2) AS start`, [granularity, zone])).rows[0]!.start.getTime())
}

/** A wall time in the zone as an instant, by plain SQL. */
async function wallTime (zone: string, text: string): Promise<number> {
  return await withClient(databaseUrl, async (client) => (await client.query<{ at: Date }>(
    'SELECT $1::timestamp AT TIME ZONE $2 AS at', [text, zone])).rows[0]!.at.getTime())
}

const ZONES = ['Europe/Berlin', 'America/New_York', 'America/Santiago']

test('series from/to: every granularity across the clock changes counts what plain SQL counts, bucket by bucket', async () => {
  const windows: Array<[string, string, string]> = [
    // Wall times in the zone, spanning spring and autumn changes of 2025 (Santiago's: April and September 2024/2025).
    ['hour', '2025-03-30T00:00', '2025-03-30T06:00'],
    ['hour', '2025-10-26T00:00', '2025-10-26T06:00'],
    ['hour', '2025-03-09T00:00', '2025-03-09T06:00'],
    ['hour', '2025-11-02T00:00', '2025-11-02T06:00'],
    ['hour', '2024-09-07T22:00', '2024-09-08T04:00'],
    ['hour', '2025-04-05T21:00', '2025-04-06T03:00'],
    ['day', '2025-03-01', '2025-04-15'],
    ['day', '2025-10-20', '2025-11-10'],
    ['day', '2024-09-01', '2024-09-20'],
    ['day', '2025-04-01', '2025-04-10'],
    ['week', '2024-08-01', '2025-12-01'],
    ['month', '2022-01-01', '2026-12-01'],
    ['quarter', '2022-01-01', '2027-01-01'],
    ['year', '2022-01-01', '2027-01-01'],
  ]
  for (const zone of ZONES) {
    for (const [granularity, from, to] of windows) {
      const answer = await assertPlain(`granularity=${granularity}&from=${from}&to=${to}`, 'at', zone)
      assert.deepEqual([Date.parse(answer.from), Date.parse(answer.to)], [await wallTime(zone, from), await wallTime(zone, to)], `${zone} ${granularity} ${from}`)
    }
    // Instants with offsets, falling inside buckets: the first and last buckets are partial.
    await assertPlain(`granularity=day&from=${encodeURIComponent('2025-03-29T13:45:00+01:00')}&to=${encodeURIComponent('2025-11-03T02:30:00Z')}`, 'at', zone)
    await assertPlain(`granularity=hour&from=${encodeURIComponent('2025-10-26T00:20:00Z')}&to=${encodeURIComponent('2025-10-26T07:40:00Z')}`, 'at', zone)
    // A date field: each date its local midnight.
    await assertPlain('granularity=week&from=2025-02-01&to=2025-12-01', 'day', zone)
    await assertPlain('granularity=day&from=2024-09-01&to=2024-09-20', 'day', zone)
  }
})

test('series ranges: 7d, 30d, 90d and 1y start at the bucket of now minus the range on the zone\'s calendar, end after the bucket of now, and count as plain SQL does', async () => {
  for (const zone of ZONES) {
    const granularities: Array<[string, string, string[]]> = [
      ['7d', '7 days', ['', 'hour', 'day']], ['30d', '30 days', ['', 'day', 'week']], ['90d', '90 days', ['', 'day', 'week', 'month']], ['1y', '1 year', ['', 'week', 'month', 'quarter']],
    ]
    for (const [range, back, asked] of granularities) {
      for (const granularity of asked) {
        // The server's now falls between these two: a bucket may begin between the request and the check.
        const started = `'${new Date().toISOString()}'::timestamptz`
        const answer = await assertPlain(`range=${range}${granularity === '' ? '' : `&granularity=${granularity}`}`, 'at', zone)
        const either = async (at: (now: string) => string): Promise<number[]> => [await truncated(answer.granularity, zone, at(started)), await truncated(answer.granularity, zone, at('now()'))]
        const from = await either((now) => `(${now} AT TIME ZONE $2 - interval '${back}') AT TIME ZONE $2`)
        assert.ok(from.includes(Date.parse(answer.from)), `${zone} ${range} ${granularity} from: ${answer.from}, not one of ${from.map((t) => new Date(t).toISOString()).join(', ')}`)
        const last = await either((now) => now)
        assert.ok(last.includes(Date.parse(answer.buckets.at(-1)!.start)), `${zone} ${range} ${granularity} last bucket: ${answer.buckets.at(-1)!.start}, not one of ${last.map((t) => new Date(t).toISOString()).join(', ')}`)
      }
    }
  }
})

test('series range=all: the data\'s span at each granularity counts as plain SQL does', async () => {
  for (const zone of ZONES) {
    for (const granularity of ['', 'day', 'week', 'month', 'quarter', 'year']) {
      const answer = await assertPlain(`range=all${granularity === '' ? '' : `&granularity=${granularity}`}`, 'at', zone)
      assert.equal(answer.buckets.reduce((sum, b) => sum + b.count, 0),
        await withClient(databaseUrl, async (client) => Number((await client.query('SELECT count(*) AS n FROM events')).rows[0].n)))
    }
    await assertPlain('range=all&granularity=month', 'day', zone)
  }
})
