// The PostgreSQL majors a start accepts, by server_version_num: 14 to 18 and later ones run; an
// older server is refused in one line naming its version and the supported range.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { unsupportedServer } from '../../lib/db/server-version.js'

test('PostgreSQL 14 and later are served; 13 and older are refused naming their version and the range', () => {
  for (const supported of [140000, 140023, 150018, 160014, 170010, 180004, 190000]) assert.equal(unsupportedServer(supported), undefined, String(supported))
  const refusals: Array<[number, string]> = [[130016, '13.16'], [120022, '12.22'], [100023, '10.23'], [90624, '9.6.24']]
  for (const [versionNum, named] of refusals) {
    assert.equal(unsupportedServer(versionNum),
      `the database server is PostgreSQL ${named}; tablegate runs on PostgreSQL 14 to 18: upgrade the server, or point DATABASE_URL at one of those`)
  }
})
