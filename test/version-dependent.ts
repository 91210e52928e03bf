// The test files that run again on the oldest PostgreSQL tablegate supports (`npm run test:pg14`,
// test/run.ts `--version-dependent`): those whose SQL or catalog reads could differ between
// majors. The rest (login, routes, documents, the console, the CLI) sends the same few statements
// whatever the server, and runs once, on the newest. By group, each with why.
export const VERSION_DEPENDENT: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['filters: operators, casts, regex, json paths, pg_trgm, now() offsets', ['http/filters', 'http/filter-properties', 'http/value-grammar', 'http/hostile-input', 'http/field-messages']],
  ['relations: EXISTS, laterals, JSON arrays of to-many children, paths in order and aggregates', ['http/relations-filter', 'http/relations-order', 'http/relations-aggregates', 'http/relations-many', 'http/relations-embed', 'http/relations-export', 'http/relations-write', 'http/relations-startup', 'http/relation-paths', 'http/scan-guard-relations']],
  ['tenancy and rules through relations, tenant columns of several types', ['http/tenancy-through', 'http/rules-through-relations', 'http/organization-existing-tenants', 'http/tenants-and-paths']],
  ['aggregates: date_bin and time zones, width_bucket, extremes', ['http/aggregates', 'http/histogram-extremes', 'http/series-zones']],
  ['the planner: estimates, EXPLAIN, keyset plans, generic plans', ['http/estimates', 'http/scan-guard.test', 'http/seek', 'http/plan-cache']],
  ['writes: json_populate_recordset, guarded updates, reorders, references', ['http/batch', 'http/guarded-update', 'http/references', 'http/resources', 'http/etags', 'http/conditional-get']],
  ['exports: cursors and row streams', ['http/export.test', 'http/export-chunks']],
  ['the catalog: introspection, CHECK constraints, drift, the login store\'s schema', ['http/model-startup', 'http/column-limits', 'http/init.test', 'http/init-drift', 'http/store-schema']],
  ['the change feed: xid8 and pg_snapshot_xmin, jsonb_populate_record of row images, CREATE OR REPLACE TRIGGER, logged updates: RETURNING old on 18, a CTE locking FOR UPDATE before it', ['http/changes.test', 'http/changes-properties', 'http/changes-logged-write']],
  ['timeouts and lost connections', ['http/timeouts', 'http/connection-loss', 'http/transaction-loss']],
  ['one request of each kind end to end', ['http/smoke']],
]
