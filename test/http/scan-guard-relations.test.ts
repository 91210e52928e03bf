// The scan guard over filters that cross relations (docs/relations.md, "Filters"): a related table
// read row by row is refused with the index that table needs, led by the column that links it, and
// following the suggestion serves the list.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql } from '../helpers/db.js'
import { buildApp, createUser, bearer, caller } from '../helpers/app.js'
import type { Config } from '../../lib/config/schema.js'

const databaseUrl = await freshDatabase()
await runSql(databaseUrl, `
  CREATE TABLE teams (id bigserial PRIMARY KEY, name text NOT NULL);
  INSERT INTO teams (name) SELECT 'Team ' || n FROM generate_series(1, 2000) AS n;
  CREATE TABLE players (id bigserial PRIMARY KEY, team_id bigint NOT NULL REFERENCES teams (id), nick text NOT NULL, rank integer NOT NULL);
  INSERT INTO players (team_id, nick, rank) SELECT 1 + n % 2000, 'nick' || n, n % 100 FROM generate_series(1, 40000) AS n;
  ANALYZE teams;
  ANALYZE players;
`)

const resources: Config['resources'] = {
  teams: {
    fields: { id: { type: 'bigint', readOnly: true }, name: { type: 'string' } },
    relations: { players: { resource: 'players', by: 'team_id' } },
  },
  players: {
    fields: { id: { type: 'bigint', readOnly: true }, team_id: { type: 'bigint', references: 'teams' }, nick: { type: 'string' }, rank: { type: 'integer' } },
    relations: { team: { field: 'team_id' } },
  },
}

async function admin () {
  const app = await buildApp({ databaseUrl, resources })
  if (!(await app.tablegate.users!.hasUsers())) await createUser(app, 'admin@example.com')
  return caller(app, await bearer(app, 'admin@example.com'))
}

test('a to-many embed over an unindexed related table names the index on that table, led by its link, then its order', async () => {
  const call = await admin()
  const refused = await call('GET', '/api/v1/teams?page_size=5&fields=id,players.nick')
  assert.equal(refused.status, 400, JSON.stringify(refused.body))
  assert.equal(refused.body.type, 'urn:service:problem:expensive-query')
  assert.equal(refused.body.suggestion, 'CREATE INDEX ON "players" ("team_id", "id")')
})

test('a to-many filter over an unindexed related table names the index on that table, led by its link; created, it serves the list', async () => {
  const call = await admin()
  const filter = encodeURIComponent('players.nick = "nick42" AND players.rank > 10')
  const refused = await call('GET', `/api/v1/teams?page_size=5&filter=${filter}`)
  assert.equal(refused.status, 400, JSON.stringify(refused.body))
  assert.equal(refused.body.type, 'urn:service:problem:expensive-query')
  assert.equal(refused.body.suggestion, 'CREATE INDEX ON "players" ("team_id", "nick", "rank")')

  // nick42 plays for team 1 + 42 % 2000.
  await runSql(databaseUrl, `${refused.body.suggestion as string}; ANALYZE players;`)
  // A fresh app: the verdict is kept per list shape for the life of the process.
  const served = await (await admin())('GET', `/api/v1/teams?page_size=5&filter=${filter}`)
  assert.equal(served.status, 200, JSON.stringify(served.body))
  assert.deepEqual(served.body.items.map((team: { name: string }) => team.name), ['Team 43'])
})
