// Which side a traversed filter's page starts from (lib/sql/selective.ts): a value few related
// rows hold collects their keys and reads the list's rows by them; a value many hold walks the
// list in its order and checks each row. A list's first page for a value sends the statement
// that counts and chooses; later ones send the side it chose, alone (lib/read/sides.ts). Each
// statement is run again under EXPLAIN ANALYZE with the request's values, once as PostgreSQL plans
// it for any value (generic) and once for the value itself, and the test looks at which branch ran.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { freshDatabase, runSql, withClient } from '../helpers/db.js'
import { bearer, buildApp, caller, createUser, type CallResult } from '../helpers/app.js'
import { statementsOf } from '../helpers/statements.js'

const databaseUrl = await freshDatabase()
// 20,000 accounts, 20 of them in LI; two bills each. Indexes on the accounts' country and the
// bills' link, as a team that filters bills by their account's country would have.
await runSql(databaseUrl, `
  CREATE TABLE accounts (id bigint PRIMARY KEY, country text NOT NULL, name text NOT NULL, closed boolean NOT NULL DEFAULT false);
  INSERT INTO accounts SELECT n, CASE WHEN n % 1000 = 0 THEN 'LI' ELSE (ARRAY['DE', 'FR', 'US'])[1 + n % 3] END, 'account ' || n FROM generate_series(1, 20000) AS n;
  CREATE INDEX accounts_country ON accounts (country);
  CREATE TABLE bills (id bigint PRIMARY KEY, account_id bigint NOT NULL REFERENCES accounts (id), amount integer NOT NULL);
  INSERT INTO bills SELECT n, 1 + n % 20000, n % 100 FROM generate_series(1, 40000) AS n;
  CREATE INDEX bills_account ON bills (account_id);
  ANALYZE accounts; ANALYZE bills;
`)
const app = await buildApp({
  databaseUrl,
  resources: {
    accounts: { fields: { id: { type: 'bigint' }, country: { type: 'string' }, name: { type: 'string' }, closed: { type: 'boolean' } }, relations: { bills: { resource: 'bills', by: 'account_id' } } },
    bills: {
      fields: { id: { type: 'bigint' }, account_id: { type: 'bigint', references: 'accounts' }, amount: { type: 'integer' } },
      relations: { account: { field: 'account_id' } },
      // A user who is no admin reads the bills of accounts in LI only: a rule through the relation.
      access: { read: (ctx) => ctx.user.roles.includes('admin') ? true : { filter: 'account.country = "LI"' } },
    },
  },
})
await createUser(app, 'admin@example.com', 'admin')
await createUser(app, 'clerk@example.com', 'user')
const admin = caller(app, await bearer(app, 'admin@example.com'))
const clerk = caller(app, await bearer(app, 'clerk@example.com'))
const q = encodeURIComponent

/** The plan nodes of an EXPLAIN (FORMAT JSON), flattened, init plans and CTEs included. */
function nodesOf (node: any): any[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)]
}

interface Statement {
  readonly text: string
  readonly values: string[]
}

/**
 * A page statement's values, told apart by where they stand: the tables' names for their
 * statistics, the page's row count, and the filter's value.
 */
function statement (text: string, value: string): Statement {
  const count = Math.max(0, ...[...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])))
  const values = Array.from({ length: count }, (_, i) => {
    const at = `$${i + 1}`
    if (text.includes(`p.oid = ${at}::regclass`)) return '"bills"'
    if (text.includes(`t.oid = ${at}::regclass`)) return '"accounts"'
    if (text.includes(`${at}::float8`)) return '51'
    return value
  })
  return { text, values }
}

/**
 * The one statement that reads a page of bills: not the scan guard's EXPLAIN or the login's key
 * on a first request, nor the count an estimate past its 30 s settles after its page.
 */
async function pageOf (url: string, as = admin): Promise<string> {
  const statements = await statementsOf(async () => { assert.equal((await as('GET', url)).status, 200) })
  const pages = statements.filter((text) => /^(WITH|SELECT) .*FROM "bills"/.test(text) && !/^SELECT count\(\*\)::int AS total|"__counted"\) SELECT count\(\*\)::int AS total/.test(text))
  assert.equal(pages.length, 1, statements.join('\n'))
  return pages[0]!
}

const billsUrl = (filter: string): string => `/api/v1/bills?page_size=50${filter === '' ? '' : `&filter=${q(filter)}`}`

/**
 * The statements pages of bills filtered by `filter` send: the first request's counts the passing
 * accounts and chooses as it runs; the second sends the side that one chose, alone.
 */
async function pageStatements (filter: string, value: string, as = admin): Promise<{ counted: Statement, remembered: Statement }> {
  const counted = await pageOf(billsUrl(filter), as)
  assert.match(counted, /"__keys" AS MATERIALIZED/)
  const remembered = await pageOf(billsUrl(filter), as)
  assert.doesNotMatch(remembered, /__keys|pg_class|UNION ALL/)
  return { counted: statement(counted, value), remembered: statement(remembered, value) }
}

/** Whether a statement ran on the bills' link index (collected keys) or walked the bills' key, under each kind of plan. */
async function sidesOf ({ text, values }: Statement): Promise<Array<'collected' | 'walked'>> {
  return await withClient(databaseUrl, async (client) => {
    const sides: Array<'collected' | 'walked'> = []
    for (const mode of ['force_generic_plan', 'force_custom_plan']) {
      await client.query(`SET plan_cache_mode = ${mode}`)
      await client.query('DEALLOCATE ALL')
      await client.query(`PREPARE page AS ${text}`)
      const plan = (await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE page (${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ')})`)).rows[0]['QUERY PLAN'][0].Plan
      const ran = (index: string): boolean => nodesOf(plan).some((node) => node['Index Name'] === index && node['Actual Loops'] > 0)
      assert.notEqual(ran('bills_account'), ran('bills_pkey'), JSON.stringify(plan))
      sides.push(ran('bills_account') ? 'collected' : 'walked')
    }
    return sides
  })
}

/** The sides the counting statement and then the remembered one ran, each under a generic and a custom plan. */
async function sideRun (filter: string, value: string, as = admin): Promise<Array<'collected' | 'walked'>> {
  const { counted, remembered } = await pageStatements(filter, value, as)
  return [...await sidesOf(counted), ...await sidesOf(remembered)]
}

test('a traversed filter few related rows pass collects their keys; one most pass walks the list, whatever the plan', async () => {
  // LI: 20 of 20,000 accounts, 40 bills; DE: a third of them.
  assert.deepEqual(await sideRun('account.country = "LI"', 'LI'), ['collected', 'collected', 'collected', 'collected'])
  assert.deepEqual(await sideRun('account.country = "DE"', 'DE'), ['walked', 'walked', 'walked', 'walked'])
  // The same for a read rule's path: the clerk's bills are those of the 20 accounts in LI.
  assert.deepEqual(await sideRun('', 'LI', clerk), ['collected', 'collected', 'collected', 'collected'])
  const listed = await clerk('GET', '/api/v1/bills?page_size=100&fields=id')
  assert.equal(listed.body.items.length, 40)
})

/** Bills filtered by `country` as plain SQL finds them, in key order. */
async function storedBills (country: string, limit: number): Promise<number[]> {
  return await withClient(databaseUrl, async (client) => (await client.query(
    'SELECT b.id::int AS id FROM bills b JOIN accounts a ON a.id = b.account_id WHERE a.country = $1 ORDER BY b.id LIMIT $2', [country, limit])).rows.map((r) => r.id as number))
}

test('both sides answer what the filter means, page after page, counted or remembered', async () => {
  for (const [country, pages] of [['LI', 1], ['DE', 4]] as const) {
    const stored = await storedBills(country, 2000)
    // The first page counts and chooses; the pages after it, and every page of a second pass, send the chosen side alone.
    for (const counts of [[true, false, false, false], [false, false, false, false]]) {
      const all: number[] = []
      const counted: boolean[] = []
      let token = ''
      do {
        let page: CallResult | undefined
        const statements = await statementsOf(async () => { page = await admin('GET', `/api/v1/bills?page_size=500&fields=id&filter=${q(`account.country = "${country}"`)}${token === '' ? '' : `&page_token=${q(token)}`}`) })
        assert.equal(page!.status, 200, JSON.stringify(page!.body))
        assert.deepEqual(Object.keys(page!.body.items[0]), ['id', 'etag', 'permissions'])
        counted.push(statements.some((text) => text.includes('"__keys"')))
        all.push(...page!.body.items.map((bill: { id: string }) => Number(bill.id)))
        token = page!.body.next_page_token
      } while (token !== '' && all.length < 2000)
      assert.deepEqual(counted, counts.slice(0, pages))
      assert.deepEqual(all, stored)
    }
  }
})

test('a condition no index of the target serves stays one EXISTS: collecting would read the target row by row', async () => {
  const statements = await statementsOf(async () => { assert.equal((await admin('GET', `/api/v1/bills?page_size=5&filter=${q('account.name = "account 7"')}`)).status, 200) })
  const page = statements.find((text) => /^(WITH|SELECT) .*FROM "bills"/.test(text))!
  assert.doesNotMatch(page, /__keys/)
  assert.match(page, /EXISTS \(SELECT 1 FROM "accounts" AS "__related_1"/)
})

test('the chosen side is remembered per list and caller for 30 s; then counted again, a changed table is read from its new side', async (t) => {
  const url = `/api/v1/bills?page_size=20&fields=id&filter=${q('account.country = "LI"')}`
  const ids = async (): Promise<number[]> => (await admin('GET', url)).body.items.map((bill: { id: string }) => Number(bill.id))
  assert.match(await pageOf(url), /"__keys"/)
  assert.match(await pageOf(url), /^SELECT .* = ANY \(ARRAY\(SELECT/)
  // Another caller's pages of the same list count for themselves.
  assert.match(await pageOf(url, clerk), /"__keys"/)
  assert.doesNotMatch(await pageOf(url, clerk), /"__keys"/)
  // 2,000 more accounts in LI: 4,040 bills, past the threshold (about 714 accounts). Within 30 s
  // the collected side still answers, and answers right.
  await runSql(databaseUrl, "UPDATE accounts SET country = 'LI' WHERE id % 10 = 1")
  try {
    assert.match(await pageOf(url), /^SELECT .* = ANY \(ARRAY\(SELECT/)
    assert.deepEqual(await ids(), await storedBills('LI', 20))
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() })
    t.mock.timers.tick(31_000)
    assert.match(await pageOf(url), /"__keys"/)
    const walked = await pageOf(url)
    assert.match(walked, /^SELECT .* WHERE EXISTS \(SELECT 1 FROM "accounts" AS "__related_1" .* OFFSET 0\)/)
    assert.doesNotMatch(walked, /"__keys"|ANY/)
    assert.deepEqual(await ids(), await storedBills('LI', 20))
  } finally {
    await runSql(databaseUrl, "UPDATE accounts SET country = (ARRAY['DE', 'FR', 'US'])[1 + id % 3] WHERE id % 10 = 1")
  }
})
